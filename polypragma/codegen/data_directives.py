"""The data scopes and updates of the host code (``#pragma polypragma data``/``update``, found by
:func:`polypragma.scan.scan_data`) as calls into the data layer of the GPU runtime (host_data.py).

Each directive becomes code on its own line, and the scope's closing brace gets the scope's end after
it on the same line, so the generated file keeps the source's line numbers.  For

    #pragma polypragma data copy(A[0:n*n]) copyin(B)
    {
      ...
    }

the pragma's line opens a block that declares the clauses and enters the scope, and the closing
brace's line ends it:

    { polypragma_data_clause polypragma_scope_12[] = {...}; polypragma_f_data_enter(...);
    {
      ...
    } polypragma_f_data_exit(...); }

The ``c`` target has no device: its directives become comments.
"""

from __future__ import annotations

import re

from polypragma.codegen import host_data
from polypragma.diagnostics import Reporter
from polypragma.scan import DataClause, DataDirective, code_lines


def literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _extent(clause: DataClause) -> tuple[str, str, list[str]]:
    """(host address, bytes, checks) of the array a clause names."""
    name = clause.name
    if clause.start is None:
        check = (f"_Static_assert(!__builtin_types_compatible_p(__typeof__({name}), __typeof__(&({name})[0])), "
                 f"\"polypragma: {name} is a pointer: give its elements in the data directive, as "
                 f"{name}[start:count]\");")
        return f"(void *)({name})", f"sizeof({name})", [check]
    return (f"(void *)&({name})[{clause.start}]", f"(size_t)({clause.count}) * sizeof(({name})[0])", [])


def edits(directives: list[DataDirective], lines: list[str], source: str, stem: str,
          gpu: bool) -> dict[int, str]:
    """The new text of the lines (1-based) the directives stand on, and of the scopes' closing lines."""
    out: dict[int, str] = {}
    names = host_data.names(stem)
    for d in directives:
        indent = lines[d.line - 1][: len(lines[d.line - 1]) - len(lines[d.line - 1].lstrip())]
        text = " ".join(f"{c.kind}({c.text})" for c in d.clauses)
        if not gpu:
            out[d.line] = f"{indent}/* polypragma {d.kind} {text}: no device in this target */"
            continue
        where = literal(f"{source}:{d.line}: {d.kind} {text}")
        if d.kind == "update":
            calls = []
            for c in d.clauses:
                address, size, checks = _extent(c)
                calls += checks + [f"{names['update_' + c.kind]}({where}, {address}, {size});"]
            out[d.line] = indent + " ".join(calls)
            continue
        variable = f"polypragma_scope_{d.line}"
        checks, entries = [], []
        for c in d.clauses:
            address, size, check = _extent(c)
            checks += check
            entries.append(f"{{{address}, {size}, POLYPRAGMA_{c.kind.upper()}, 0, {literal(c.text)}}}")
        out[d.line] = (f"{indent}{{ {' '.join(checks)}{' ' if checks else ''}polypragma_data_clause {variable}[] = "
                       f"{{{', '.join(entries)}}}; {names['enter']}({where}, {len(entries)}, {variable});")
        close = out.get(d.close_line, lines[d.close_line - 1])
        # later scopes' closing braces on the same line were edited first: columns from the right stay valid
        column = d.close_column
        out[d.close_line] = (close[:column] + f" {names['exit']}({where}, {len(entries)}, {variable}); }}"
                             + close[column:])
    return out


def warn_host_uses(directives: list[DataDirective], lines: list[str], region_lines: set[int],
                   offloading: set[str], defined: set[str], reporter: Reporter) -> None:
    """A warning for the first line of host code inside a data scope that uses one of its arrays (a
    subscript, a dereference, an assignment, or a call of a function this file defines, ``defined``,
    whose regions do not all run on the device, ``offloading``) outside regions and directives, unless
    an ``update host`` of the array comes before it in the scope (and, when the line may write it, an
    ``update device`` after it): it would read a stale host copy, or write one the regions do not see.  A heuristic on the text: calls
    of functions of other files (their regions are safe: they copy through the host) and host code
    reaching the arrays under other names are not seen."""
    lines = code_lines(lines)  # comments and literals blanked
    updates = [(u.line, c.kind, c.name) for u in directives if u.kind == "update" for c in u.clauses]
    for d in directives:
        if d.kind != "data":
            continue
        for name in sorted({c.name for c in d.clauses}):
            pattern = re.compile(rf"\b{re.escape(name)}\b")
            for number in range(d.open_line, d.close_line + 1):
                line = lines[number - 1]
                if number in region_lines or line.lstrip().startswith("#") or not pattern.search(line):
                    continue
                direct = re.search(rf"\b{re.escape(name)}\s*(\[|->|=[^=])|\*\s*\(?\s*{re.escape(name)}\b", line)
                called = [f for f in re.findall(r"\b(\w+)\s*\(", line) if f in defined and f not in offloading]
                if not direct and not called:
                    continue
                before = any(d.open_line < u < number and k == "host" and n == name for u, k, n in updates)
                after = any(number < u < d.close_line and k == "device" and n == name for u, k, n in updates)
                writes = called or re.search(
                    rf"\b{re.escape(name)}\s*(\[[^;]*?\]\s*|->\s*\w+\s*)?([-+*/%&|^]?=(?!=)|\+\+|--)"
                    rf"|(\+\+|--)\s*\*?\s*{re.escape(name)}\b|\*\s*{re.escape(name)}\s*([-+*/%&|^]?=(?!=))", line)
                if before and (after or not writes):  # a read needs the host copy current, a write the device's after
                    continue
                reporter.warning(f"host code uses '{name}', which the data scope at line {d.line} keeps on the "
                                 f"device: put it between '#pragma polypragma update host({name})' and "
                                 f"'#pragma polypragma update device({name})'",
                                 _location(d, number, line, pattern))
                break


def _location(d: DataDirective, number: int, line: str, pattern):
    from polypragma.diagnostics import Location

    return Location(d.file, number, pattern.search(line).start() + 1)
