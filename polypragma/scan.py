"""Find the ``#pragma scop`` / ``#pragma endscop`` regions of a source file.

Scanning works on the raw text, before preprocessing, because the regions are
spliced back into that text.  It checks the markup (pairs, no nesting) and
collects the ``#pragma polypragma ...`` lines that follow ``#pragma scop``
as per-region options.  :func:`scan_data` finds the data scopes and updates
(``#pragma polypragma data ...``, ``#pragma polypragma update ...``) of the
host code around regions.
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
            if open_at is None and _DATA.match(match.group(3)):
                continue  # data scopes and updates: scan_data
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


# -- data scopes and updates -------------------------------------------------------------

_DATA = re.compile(r"^\s*(data|update)\b(.*)$")
_DATA_KINDS = {"data": ("copy", "copyin", "copyout", "create"), "update": ("host", "device")}


@dataclass(frozen=True)
class DataClause:
    """``kind(name)`` or ``kind(name[start:count])`` of a data directive; ``start`` and ``count`` as C text."""

    kind: str
    name: str
    start: str | None = None
    count: str | None = None

    @property
    def text(self) -> str:
        return self.name if self.start is None else f"{self.name}[{self.start}:{self.count}]"


@dataclass(frozen=True)
class DataDirective:
    """``#pragma polypragma data ...`` before a compound statement (its braces at ``open_line`` and
    ``close_line``/``close_column``, 1-based), or ``#pragma polypragma update ...``."""

    kind: str  # "data" or "update"
    file: str
    line: int
    column: int
    clauses: tuple[DataClause, ...]
    open_line: int = 0
    close_line: int = 0
    close_column: int = 0

    @property
    def location(self) -> Location:
        return Location(self.file, self.line, self.column)


def _blank_literals(lines: list[str]) -> list[str]:
    """``lines`` (comments already blanked) with string and character literals blanked too."""
    out = []
    for line in lines:
        chars = list(line)
        i = 0
        while i < len(chars):
            if chars[i] in "\"'":
                quote = chars[i]
                j = i + 1
                while j < len(chars) and chars[j] != quote:
                    j += 2 if chars[j] == "\\" else 1
                for k in range(i + 1, min(j, len(chars))):
                    chars[k] = " "
                i = j + 1
            else:
                i += 1
        out.append("".join(chars))
    return out


def code_lines(lines: list[str]) -> list[str]:
    """``lines`` with comments and string and character literals blanked (same lengths)."""
    return _blank_literals([line for _, line in _code_lines("\n".join(lines))])


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses and brackets."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _clauses(kind: str, text: str, where: Location) -> tuple[DataClause, ...]:
    clauses = []
    rest = text.strip()
    allowed = _DATA_KINDS[kind]
    while rest:
        match = re.match(r"(\w+)\s*\(", rest)
        if not match or match.group(1) not in allowed:
            raise FatalError(f"'#pragma polypragma {kind}' expects clauses {', '.join(c + '(...)' for c in allowed)}, "
                             f"not '{rest}'", where)
        depth, end = 0, None
        for k in range(match.end() - 1, len(rest)):
            depth += {"(": 1, ")": -1}.get(rest[k], 0)
            if depth == 0:
                end = k
                break
        if end is None:
            raise FatalError(f"unbalanced parentheses in '#pragma polypragma {kind}'", where)
        for item in _split_top(rest[match.end():end]):
            array = re.fullmatch(r"(\w+)\s*(?:\[(.*)\])?", item, re.S)
            if not array:
                raise FatalError(f"'{item}' in '#pragma polypragma {kind}' is not an array name or a section "
                                 "'name[start:count]'", where)
            start = count = None
            if array.group(2) is not None:
                section = _split_colon(array.group(2))
                if section is None:
                    raise FatalError(f"'{item}': a section is written 'name[start:count]'", where)
                start, count = section
            clauses.append(DataClause(match.group(1), array.group(1), start, count))
        rest = rest[end + 1:].strip()
    if not clauses:
        raise FatalError(f"'#pragma polypragma {kind}' names no array", where)
    return tuple(clauses)


def _split_colon(text: str) -> tuple[str, str] | None:
    depth = 0
    for k, ch in enumerate(text):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if ch == ":" and depth == 0 and text[:k].strip() and text[k + 1:].strip():
            return text[:k].strip(), text[k + 1:].strip()
    return None


def matching_brace(code: list[str], line: int, column: int) -> tuple[int, int] | None:
    """(line index, column) of the ``}`` closing the ``{`` at ``column`` of line index ``line`` in ``code``
    (lines with comments and literals blanked: code_lines), or None where it is never closed."""
    depth = 0
    for k in range(line, len(code)):
        for col in range(column if k == line else 0, len(code[k])):
            ch = code[k][col]
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if ch == "}" and depth == 0:
                return k, col
    return None


def scan_data(text: str, file: str) -> list[DataDirective]:
    """The ``#pragma polypragma data`` and ``update`` directives of ``text``, in source order.

    A data directive must stand before a compound statement, which must not hold a ``return`` or a
    ``goto`` (they would leave the scope without its end: the arrays would not come back)."""
    numbered = list(_code_lines(text))
    code = _blank_literals([line for _, line in numbered])
    directives = []
    for index, line in enumerate(code):
        match = _PRAGMA.match(line)
        if not match or match.group(2) != "polypragma":
            continue
        data = _DATA.match(match.group(3))
        if not data:
            continue
        where = Location(file, index + 1, len(match.group(1)) + 1)
        kind = data.group(1)
        clauses = _clauses(kind, data.group(2), where)
        if kind == "update":
            directives.append(DataDirective(kind, file, index + 1, where.column, clauses))
            continue
        # the compound statement: '{' first, then its matching '}'
        position = index + 1
        while position < len(code) and not code[position].strip():
            position += 1
        if position == len(code) or not code[position].lstrip().startswith("{"):
            raise FatalError("'#pragma polypragma data' must stand before a compound statement '{ ... }'", where)
        close = matching_brace(code, position, len(code[position]) - len(code[position].lstrip()))
        if close is None:
            raise FatalError("the compound statement after '#pragma polypragma data' is never closed", where)
        body = "\n".join(code[position:close[0] + 1])
        leaving = re.search(r"\b(return|goto)\b", body)
        if leaving:
            raise FatalError(f"'{leaving.group(1)}' inside a data scope is not supported: it would leave the scope "
                             "without copying its arrays back", where)
        directives.append(DataDirective(kind, file, index + 1, where.column, clauses, position + 1, close[0] + 1,
                                        close[1] + 1))
    return directives
