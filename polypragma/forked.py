"""isl's work in a forked process, where isl itself could take polypragma down with it.

:func:`run` computes a value in a forked copy of this process and carries it back (isl objects travel
in isl's text form).  The scheduler runs there so that it can be killed when its time is up
(:func:`polypragma.schedule.compute_schedule`: isl's operation count does not bound every part of it),
and isl's dataflow analysis where it has crashed before (a segmentation fault on valid input,
:mod:`polypragma.dependences`).  Every child dies with its parent (:func:`die_with_parent`): a build
tool that kills polypragma on a timeout (``subprocess.run(timeout=...)`` sends SIGKILL) must not leave
isl running.
"""

from __future__ import annotations

import ctypes
import faulthandler
import multiprocessing
import os
import signal
import sys
import traceback

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


class Crashed(Exception):
    """The forked process ended without an answer: a signal killed it (isl crashed)."""


def run(work, timeout: float | None = None):
    """``work()``, computed in a forked copy of this process: its value (one pickle can carry: isl's text
    form of an object, say), or the exception it raised, raised here (isl.Error with its message);
    :class:`Crashed` where the process died without an answer; TimeoutError where ``timeout`` seconds
    passed first (the process is killed).  Where processes cannot be forked, ``work()`` runs here, with no
    timeout."""
    if not can_fork():
        return work()
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()

    def child() -> None:
        try:
            die_with_parent(parent)
            faulthandler.disable()  # (a crash is an answer, not a fault to report)
            try:
                answer = ("value", work())
            except Exception as exc:
                # where it was raised, for a bug's report (the parent's traceback ends in this module)
                exc.add_note("raised in a forked process:\n" + traceback.format_exc().rstrip())
                answer = ("raised", exc)
            try:
                sender.send(answer)
            except Exception:  # (a value or exception pickle cannot carry)
                sender.send(("raised", RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}")))
        finally:
            sender.close()
            os._exit(0)

    process = context.Process(target=child, daemon=True)
    process.start()
    sender.close()
    answer = None
    try:
        if timeout is not None and not receiver.poll(timeout):
            raise TimeoutError
        answer = receiver.recv()
    except EOFError:
        pass
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
    if answer is None:
        raise Crashed(f"the forked process ended without an answer (exit code {process.exitcode})")
    kind, value = answer
    if kind == "raised":
        raise value
    return value
