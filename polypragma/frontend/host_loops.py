"""Loops that run on the host around the rest of a region: convergence loops.

A loop the model cannot count, ``while (diff > tol) { ... }`` or ``do { ... } while (diff > tol);``, is
one statement of the model, run as written (on the GPU targets: on one thread); a counted loop that
leaves on data, ``for (it = 0; it < max; it++) { ...; if (diff < tol) break; }``, is refused (the exit's
condition is not affine).  Yet their bodies are usually parallel loops.  Such a loop, at the top level of
a region, is split off instead (:func:`split`): its header, its exits (``if (c) break;`` at the top level
of its body) and its closing brace stay host code as written, and the statements between them become
regions of their own (:class:`Piece`), as do the region's statements before and after the loop.  The
driver compiles each piece as a region (a piece may split again) and, on the GPU targets, keeps the
arrays the pieces use on the device from the first piece to the end of the region (a data scope without
clauses: host_data.py's ``keep``), so the loop's iterations cross no array over the link.

The host code reads and writes scalars only: the loop's header and exits, and pieces of scalar
statements left as written (``it++;``), read plain variables of arithmetic type, constants and pure math
functions, never an array, a pointer or a struct (whose current copy may be the device's).  A scalar a
piece writes is copied back at the end of each call, so the host's condition reads its value.

The split needs each host part on lines of its own (the pieces are whole lines: their original loops are
their fallback): the header ending in ``{``, the closing ``}`` (``} while (c);``) alone on its line, each
exit on lines of its own.  Else, and where a piece cannot be compiled, the region is compiled whole.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from pycparser import c_ast

from polypragma.frontend.c_tree import subtree
from polypragma.frontend.library import PURE_FUNCTIONS
from polypragma.frontend.locate import LocatedRegion, origins, read_after, same_file
from polypragma.frontend.normalise import is_break
from polypragma.frontend.symbols import Scope, TypeTable
from polypragma.scan import code_lines, matching_brace

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


@dataclass(frozen=True)
class HostLines:
    """Source lines ``first`` to ``last`` (1-based, inclusive), run on the host as written."""

    first: int
    last: int


@dataclass(frozen=True)
class Piece:
    """Statements of the region compiled as a region of their own: ``where`` locates them (its region's
    lines bracket theirs, as a region's pragmas do)."""

    where: LocatedRegion


@dataclass(frozen=True)
class Split:
    """A region as host code and pieces, in source order."""

    parts: tuple[HostLines | Piece, ...]
    loops: tuple[str, ...]  # each loop run on the host, described (-v, --explain)

    @property
    def pieces(self) -> list[Piece]:
        return [p for p in self.parts if isinstance(p, Piece)]


def candidates(items: list[c_ast.Node], opaque: set[int] | None = None) -> list[c_ast.Node]:
    """The loops among a region's top-level ``items`` that may run on the host, with loops inside: with
    ``opaque``, those starting on these lines (the model's statements run as written); without, the
    ``while`` and ``do`` loops and the counted loops leaving on a condition at the top level of their body."""
    return [item for item in items if isinstance(item, _LOOPS) and isinstance(item.stmt, c_ast.Compound)
            and any(isinstance(n, _LOOPS) for n in subtree(item.stmt))
            and (item.coord is not None and item.coord.line in opaque if opaque is not None
                 else not isinstance(item, c_ast.For) or any(_exit(i) for i in item.stmt.block_items or []))]


def split(where: LocatedRegion, loops: list[c_ast.Node], source_lines: list[str], scope: Scope,
          types: TypeTable) -> Split | None:
    """``where``'s region with ``loops`` (some of :func:`candidates`) run on the host, or None where the
    layout or the loops' host code does not allow it."""
    region = where.region
    code = code_lines(source_lines)
    host = _HostCode(scope, types, where.items)
    parts: list[HostLines | Piece] = []
    described: list[str] = []

    def add(items: list[c_ast.Node], holder: c_ast.Compound, path: list[c_ast.Compound], begin: int,
            end: int) -> bool:
        """Add ``items``, the whole lines between ``begin`` and ``end`` (exclusive), as a piece, or as
        host lines when they touch scalars only."""
        if not items:
            return not any(code[n - 1].strip() for n in range(begin + 1, end))
        if any(_leaves(item) for item in items):
            return False  # (a 'break' or 'continue' of the host loop inside a statement of the body)
        if not _starts_line(items[0], code, region.file):
            return False
        on_host = [host.statement(item) for item in items]
        if all(on_host):
            parts.append(HostLines(begin + 1, end - 1))
            return True
        # statements of scalars before and after the rest stay on the host too (no kernel on one thread)
        first = on_host.index(False)
        if first and _starts_line(items[first], code, region.file):
            parts.append(HostLines(begin + 1, items[first].coord.line - 1))
            begin, items, on_host = items[first].coord.line - 1, items[first:], on_host[first:]
        after = len(on_host) - on_host[::-1].index(False)
        tail = None
        if after < len(items) and _starts_line(items[after], code, region.file):
            tail = HostLines(items[after].coord.line, end - 1)
            end, items = items[after].coord.line, items[:after]
        last = (holder.block_items or []).index(items[-1])
        piece = dataclasses.replace(region, index=f"{region.index}_{len(parts)}", begin_line=begin, end_line=end,
                                    begin_column=1)
        parts.append(Piece(LocatedRegion(piece, where.function, path, items,
                                         read_after(where.function, holder, last),
                                         origins(where.function, items), where.goto_targets)))
        if tail is not None:
            parts.append(tail)
        return True

    def following_line(items: list[c_ast.Node], item: c_ast.Node, end: int) -> int:
        """The line before the one where the item after ``item`` starts (``end`` - 1 after the last)."""
        rest = items[items.index(item) + 1:]
        return (rest[0].coord.line if rest and _in_file(rest[0], region.file) else end) - 1

    if any(isinstance(n, (c_ast.Return, c_ast.Goto, c_ast.Label)) for item in where.items for n in subtree(item)):
        return None  # (leaving the region half-way would skip the end of the arrays' stay on the device)
    done = region.begin_line  # the last line of the parts so far
    pending: list[c_ast.Node] = []
    for item in where.items:
        if not any(item is loop for loop in loops):
            pending.append(item)
            continue
        limit = following_line(where.items, item, region.end_line)
        layout = _loop_layout(item, code, region.file, limit)
        if layout is None or not host.header(item) or not add(pending, where.path[-1], where.path, done,
                                                              item.coord.line):
            return None
        header, close = layout
        pending = []
        parts.append(HostLines(item.coord.line, header))
        body, path = item.stmt.block_items or [], where.path + [item.stmt]
        done, chunk = header, []
        for inner in body:
            condition = _exit(inner)
            if condition is None:
                chunk.append(inner)
                continue
            if not host.expression(condition) or not _starts_line(inner, code, region.file) \
                    or not add(chunk, item.stmt, path, done, inner.coord.line):
                return None
            done, chunk = following_line(body, inner, close), []
            parts.append(HostLines(inner.coord.line, done))
        if not add(chunk, item.stmt, path, done, close):
            return None
        parts.append(HostLines(close, limit))
        done = limit
        kind = {c_ast.While: "while", c_ast.DoWhile: "do-while", c_ast.For: "for"}[type(item)]
        exits = any(_exit(inner) is not None for inner in body)
        reads = "its exits read" if exits and kind == "for" else "its condition and exits read" if exits \
            else "its condition reads"
        described.append(f"the {kind} loop at line {item.coord.line} runs on the host ({reads} data the region "
                         "computes); the statements around it and in it are regions of their own")
    if not add(pending, where.path[-1], where.path, done, region.end_line):
        return None
    result = Split(tuple(parts), tuple(described))
    return result if result.pieces else None


def _exit(item: c_ast.Node) -> c_ast.Node | None:
    """The condition of ``if (c) break;`` (also ``if (c) { break; }``), else None."""
    return item.cond if is_break(item) else None


def _leaves(node: c_ast.Node) -> bool:
    """Whether ``node`` holds a ``break`` or ``continue`` of a loop around it."""
    if isinstance(node, (c_ast.Break, c_ast.Continue)):
        return True
    if isinstance(node, _LOOPS):
        return False  # (a switch's 'break' counts: the piece is refused, which is safe)
    return any(_leaves(child) for _, child in node.children())


def _in_file(node: c_ast.Node, file: str) -> bool:
    return node.coord is not None and node.coord.line is not None and same_file(str(node.coord.file), file)


def _starts_line(item: c_ast.Node, code: list[str], file: str) -> bool:
    """Whether ``item`` is in this file with no other statement before it on its line (where pycparser
    places an expression after its first token, ``*p = 0;`` at ``p``, the text before it may hold that)."""
    return _in_file(item, file) and not any(ch in ";{}:" for ch in code[item.coord.line - 1][:(item.coord.column or 1) - 1])


_DO_CLOSE = re.compile(r"^\}\s*while\s*\(.*\)\s*;$")


def _loop_layout(loop: c_ast.Node, code: list[str], file: str, limit: int) -> tuple[int, int] | None:
    """(the line of the body's opening brace, the line of its closing one) where the loop starts its line,
    the brace ends the header's line and the closing brace (``} while (c);``) is alone on the last line of
    code before ``limit`` (inclusive), else None."""
    body = loop.stmt
    if not _starts_line(loop, code, file) or not _in_file(body, file):
        return None
    line, column = body.coord.line, body.coord.column or 1
    text = code[line - 1]
    if column - 1 >= len(text) or text[column - 1] != "{" or text[column:].strip():
        return None
    close = next((n for n in range(limit, line, -1) if code[n - 1].strip()), None)
    if close is None:
        return None
    last = code[close - 1].strip()
    if not (last == "}" if not isinstance(loop, c_ast.DoWhile) else _DO_CLOSE.match(last)):
        return None
    return (line, close) if _closes(code, line, column, close) else None


def _closes(code: list[str], line: int, column: int, close: int) -> bool:
    """Whether the brace starting line ``close`` closes the one at (``line``, ``column``)."""
    text = code[close - 1]
    return matching_brace(code, line - 1, column - 1) == (close - 1, len(text) - len(text.lstrip()))


class _HostCode:
    """Which code may run on the host between pieces: it touches scalars of arithmetic type only."""

    _NODES = (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.TernaryOp, c_ast.Cast, c_ast.Typename,
              c_ast.TypeDecl, c_ast.IdentifierType, c_ast.ExprList, c_ast.FuncCall, c_ast.UnaryOp,
              c_ast.Assignment, c_ast.Compound, c_ast.EmptyStatement, c_ast.If, c_ast.Decl, c_ast.DeclList)

    def __init__(self, scope: Scope, types: TypeTable, items: list[c_ast.Node]):
        self.scope = scope
        self.types = types
        # the region's own variables, declared at its top level (the scope is the one before the region)
        self.local = {d.name: types.ctype(d.type) for item in items
                      for d in (item.decls if isinstance(item, c_ast.DeclList) else [item])
                      if isinstance(d, c_ast.Decl) and d.name and not isinstance(d.type, c_ast.FuncDecl)}

    def expression(self, node: c_ast.Node | None, declared: frozenset[str] = frozenset()) -> bool:
        if node is None:
            return True
        called = {id(n.name) for n in subtree(node) if isinstance(n, c_ast.FuncCall)}
        for n in subtree(node):
            if not isinstance(n, self._NODES):
                return False
            if isinstance(n, c_ast.UnaryOp) and n.op in ("*", "&", "sizeof"):
                return False
            if isinstance(n, c_ast.FuncCall) and not (isinstance(n.name, c_ast.ID) and n.name.name in PURE_FUNCTIONS):
                return False
            if isinstance(n, c_ast.Decl) and (not isinstance(n.type, c_ast.TypeDecl) or n.storage):
                return False
            if isinstance(n, c_ast.ID) and id(n) not in called and not self._scalar(n.name, declared):
                return False
        return True

    def _scalar(self, name: str, declared: frozenset[str]) -> bool:
        if name in declared or name in self.types.enumerators:
            return True
        if name in self.local:
            ctype = self.local[name]
        else:
            variable = self.scope.lookup(name)
            if variable is None or variable.member is not None:
                return False
            ctype = variable.ctype
        return ctype.is_scalar and (ctype.is_integer or ctype.is_float)

    def header(self, loop: c_ast.Node) -> bool:
        if isinstance(loop, c_ast.For):
            declared = frozenset(d.name for d in loop.init.decls) if isinstance(loop.init, c_ast.DeclList) \
                else frozenset()
            return all(self.expression(part, declared) for part in (loop.init, loop.cond, loop.next))
        return self.expression(loop.cond)

    def statement(self, item: c_ast.Node) -> bool:
        """A statement of scalars, with no loop and no exit: run on the host as written."""
        declared = frozenset(n.name for n in subtree(item) if isinstance(n, c_ast.Decl) and n.name)
        return self.expression(item, declared)
