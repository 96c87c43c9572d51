"""Time spent in named parts of a stage, for ``-v``.

The driver times each stage; a stage made of calls deep in other modules (the GPU stage's mapping
and memory analysis, code generation's kernels and host functions) has those modules mark their
parts with :func:`part`, and the driver, inside :func:`recording`, prints one line per part and one
for what is left of the stage, so the lines of ``-v`` add up to the run's time.  Outside
:func:`recording` (no ``-v``) a part costs a function call.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from typing import Iterator

_recorders: list[list[tuple[str, float]]] = []
_depth = [0]


@contextmanager
def recording() -> Iterator[list[tuple[str, float]]]:
    """Collect the parts timed inside the block: (label, seconds), in the order they ended."""
    parts: list[tuple[str, float]] = []
    _recorders.append(parts)
    saved = _depth[0]
    _depth[0] = 0
    try:
        yield parts
    finally:
        _depth[0] = saved
        _recorders.pop()


class Part:
    """A part being timed: what the block found may still change its ``label`` (a build given up)."""

    def __init__(self, label: str):
        self.label = label


@contextmanager
def part(label: str) -> Iterator[Part]:
    """Time the block as one part; a part inside another counts in the outer one only."""
    this = Part(label)
    if not _recorders or _depth[0]:
        yield this
        return
    _depth[0] += 1
    started = time.perf_counter()
    try:
        yield this
    finally:
        _depth[0] -= 1
        _recorders[-1].append((this.label, time.perf_counter() - started))


def process_started() -> float | None:
    """When this process started, on the clock of ``time.perf_counter`` (None where unknown): what
    the interpreter's start and the imports took is the time from it to the first stage.  Linux
    only (/proc), to the kernel's clock tick (10 ms)."""
    try:
        with open("/proc/self/stat", "rb") as handle:
            stat = handle.read()
        # the fields after the command name (in parentheses, which may hold spaces); starttime is 22nd
        ticks = int(stat[stat.rindex(b")") + 2:].split()[19])
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return time.perf_counter() - age if age >= 0 else None
