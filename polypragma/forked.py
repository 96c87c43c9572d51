"""isl's work in a forked process, where isl itself could take polypragma down with it.

The scheduler runs in a child killed when its time is up (:func:`polypragma.schedule.compute_schedule`:
isl's operation count does not bound every part of it), and isl's dataflow analysis is first tried in a
child where it has crashed before (:func:`survives`: a segmentation fault on valid input,
:mod:`polypragma.dependences`).  Every child dies with its parent (:func:`die_with_parent`): a build
tool that kills polypragma on a timeout (``subprocess.run(timeout=...)`` sends SIGKILL) must not leave
isl running.
"""

from __future__ import annotations

import ctypes
import faulthandler
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def can_fork() -> bool:
    return hasattr(os, "fork")


def die_with_parent(parent: int) -> None:
    """In a forked child: have the kernel kill this process when its parent dies (Linux's
    PR_SET_PDEATHSIG; isl holds the interpreter, so no thread of ours could watch), and exit at once if
    the parent died before that was set (the process is then a child of another)."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)


def survives(work) -> bool:
    """Whether ``work()`` ends, in a forked copy of this process, without a signal ending the process
    (an exception is an ending: the caller meets it again when it does the work itself, which gives the
    same answer, isl being deterministic); True where processes cannot be forked."""
    if not can_fork():
        return True
    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            die_with_parent(parent)
            faulthandler.disable()  # (the crash is the answer, not a fault to report)
            work()
        finally:
            os._exit(0)
    try:
        _, status = os.waitpid(pid, 0)
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    return not os.WIFSIGNALED(status)
