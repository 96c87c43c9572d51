"""Find the ``#pragma scop`` / ``#pragma endscop`` regions of a source file.

Scanning works on the raw text, before preprocessing, because the regions are
spliced back into that text.  It checks the markup (pairs, no nesting) and
collects the ``#pragma polypragma ...`` lines that follow ``#pragma scop``
as per-region options.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from polypragma.diagnostics import FatalError, Location

_PURE = re.compile(r"\s*pure\s*\(\s*\w+(\s*,\s*\w+)*\s*\)\s*$")
_PRAGMA = re.compile(r"^(\s*)#\s*pragma\s+(scop|endscop|polypragma)\b(.*)$")


@dataclass(frozen=True)
class Region:
    """One marked region: the lines of its two pragmas (1-based, inclusive)."""

    index: int
    file: str
    begin_line: int
    end_line: int
    begin_column: int = 1
    options: tuple[str, ...] = field(default=())

    @property
    def location(self) -> Location:
        return Location(self.file, self.begin_line, self.begin_column)

    def __str__(self) -> str:
        return f"region {self.index} ({self.file}:{self.begin_line}-{self.end_line})"


def _code_lines(text: str):
    """Yield (line number, line with comments blanked) for each line of ``text``."""
    in_comment = False
    for number, line in enumerate(text.splitlines(), start=1):
        out = []
        i = 0
        while i < len(line):
            if in_comment:
                end = line.find("*/", i)
                if end < 0:
                    out.append(" " * (len(line) - i))
                    break
                out.append(" " * (end + 2 - i))
                i = end + 2
                in_comment = False
            elif line.startswith("/*", i):
                in_comment = True
                out.append("  ")
                i += 2
            elif line.startswith("//", i):
                break
            else:
                out.append(line[i])
                i += 1
        yield number, "".join(out)


def scan(text: str, file: str) -> list[Region]:
    """Return the regions of ``text`` in source order.

    Raises :class:`FatalError` for a nested ``#pragma scop``, an
    ``endscop`` without ``scop``, or a ``scop`` that is never closed.
    """
    regions: list[Region] = []
    open_at: tuple[int, int] | None = None
    options: list[str] = []
    previous_was_marker = False
    for number, line in _code_lines(text):
        match = _PRAGMA.match(line)
        if not match:
            if line.strip():
                previous_was_marker = False
            continue
        column = len(match.group(1)) + 1
        kind = match.group(2)
        where = Location(file, number, column)
        if kind == "scop":
            if open_at is not None:
                raise FatalError(
                    f"'#pragma scop' inside the region opened at line {open_at[0]}; regions do not nest",
                    where,
                )
            open_at = (number, column)
            options = []
            previous_was_marker = True
        elif kind == "endscop":
            if open_at is None:
                raise FatalError("'#pragma endscop' without a preceding '#pragma scop'", where)
            regions.append(
                Region(len(regions), file, open_at[0], number, open_at[1], tuple(options))
            )
            open_at = None
            previous_was_marker = False
        else:  # polypragma options
            if open_at is None and _PURE.match(match.group(3)):
                continue  # '#pragma polypragma pure(f, g)': read by the frontend
            if open_at is None or not previous_was_marker:
                raise FatalError(
                    "'#pragma polypragma' must follow '#pragma scop' directly", where
                )
            options.append(match.group(3).strip())
    if open_at is not None:
        raise FatalError(
            "'#pragma scop' is never closed by '#pragma endscop'",
            Location(file, open_at[0], open_at[1]),
        )
    return regions
