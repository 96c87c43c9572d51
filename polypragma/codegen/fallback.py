"""The CPU fallback of a region the GPU targets offload (the original lines, run when no device is there),
and the early returns after the call.

A declaration at the top level of the region (``double lo = a[0], hi = a[0];``, ``double tmp[n];``) is
visible after it, so the generated code declares it before the call into the host code, which copies its
values back; the original lines then must not declare it again (the fallback would set a copy that code
after the region never sees): the declaration becomes its initialisations as assignments, on the same
lines, so ``#line`` keeps pointing at the user's source.
"""

from __future__ import annotations

from pycparser import c_ast

from polypragma.diagnostics import Location, Unsupported
from polypragma.frontend.c_tree import subtree
from polypragma.model import Scop


def check_returns(scop: Scop) -> None:
    """The early returns the region may take are printed after the call (as the c target prints them
    after its code: the kernels ran exactly the instances before the return), their values computed on
    the host then; a value reading data the region writes could read the host's copy while a data scope
    keeps the current one on the device, so such a return is refused, at its line:col."""
    written = {a.c_name or a.name for a in scop.written_arrays()}
    for _, value, location in scop.returns:
        read = sorted({n.name for n in subtree(value) if isinstance(n, c_ast.ID) and n.name in written}) \
            if value is not None else []
        if read:
            raise Unsupported("'return' statement", location,
                              f"returns a value read from '{read[0]}', which the region writes; not supported by "
                              "the GPU targets (they compute it on the host after the call)")


def fallback_lines(source_lines: list[str], scop: Scop, users: str = "the GPU targets") -> list[str]:
    """The lines of the region between its pragmas, its top-level declarations made assignments; a
    declaration they cannot make one is refused, as not supported by ``users``."""
    region = scop.region
    first = region.begin_line + 1  # the line after '#pragma scop'
    lines = list(source_lines[region.begin_line : region.end_line - 1])
    by_line: dict[int, list[tuple[int, str, str]]] = {}
    for line, column, name, assignment in scop.region_declarations:
        by_line.setdefault(line, []).append((column, name, assignment))
    for line, declarators in sorted(by_line.items()):
        k = line - first
        column = min(c for c, _, _ in declarators)
        construct = f"declaration of '{declarators[0][1]}' at the top level of the region"
        if not 0 <= k < len(lines):
            raise Unsupported(construct, Location(region.file, line, column),
                              f"comes from a macro or another file; not supported by {users}")
        before = lines[k][:column - 1]
        if any(ch in before for ch in ";{}") or before.strip().startswith("#"):
            raise Unsupported(construct, Location(region.file, line, column),
                              f"shares its line with other code; not supported by {users} (put it on "
                              "lines of its own)")
        end = _statement_end(lines, k, column - 1)
        if end is None:
            raise Unsupported(construct, Location(region.file, line, column),
                              f"has no end polypragma can find; not supported by {users}")
        last, position = end
        rest = lines[last][position + 1:].strip()
        if rest and not rest.startswith("//") and not (rest.startswith("/*") and rest.endswith("*/")):
            raise Unsupported(construct, Location(region.file, line, column),
                              f"shares its line with other code; not supported by {users} (put it on "
                              "lines of its own)")
        indent = lines[k][:len(lines[k]) - len(lines[k].lstrip())]
        assignments = " ".join(a for _, _, a in declarators if a)
        lines[k] = indent + (assignments or "/* declared before the call */")
        for j in range(k + 1, last + 1):
            lines[j] = ""
    return lines


def _statement_end(lines: list[str], k: int, column: int) -> tuple[int, int] | None:
    """(line index, position) of the ';' ending the declaration that has a declarator at ``column`` of
    line ``k``: the first one outside brackets."""
    depth = 0
    for j in range(k, len(lines)):
        text = lines[j]
        for position in range(column if j == k else 0, len(text)):
            ch = text[position]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == ";" and depth == 0:
                return j, position
    return None
