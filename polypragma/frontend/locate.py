"""Find each scanned region in the parsed translation unit.

A region's two pragmas must be items of the same compound statement of a
function body.  The statements between them are the region; the blocks from
the function body down to that compound statement give its scope.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from pycparser import c_ast

from polypragma.diagnostics import FatalError, Location
from polypragma.frontend.c_tree import subtree
from polypragma.scan import Region


@dataclass
class LocatedRegion:
    region: Region
    function: c_ast.FuncDef
    path: list[c_ast.Compound]  # from the function body to the block holding the region
    items: list[c_ast.Node]
    # names whose value after the region may be read, with the node that reads them
    used_outside: dict[str, c_ast.Node] = None  # type: ignore[assignment]
    # per name, the values the function assigns to it outside the region (initialisers and assignments),
    # to find pointers set from another array: they may alias it
    origins: dict[str, list[c_ast.Node]] = None  # type: ignore[assignment]
    goto_targets: frozenset[str] = frozenset()  # the labels a 'goto' of the function names


def same_file(a: str, b: str) -> bool:
    return os.path.normpath(a) == os.path.normpath(b)


def _pragmas(node: c_ast.Node, path: list[c_ast.Compound], out: list) -> None:
    if isinstance(node, c_ast.Compound):
        path = path + [node]
        for index, item in enumerate(node.block_items or []):
            if isinstance(item, c_ast.Pragma):
                out.append((item, path, index))
            else:
                _pragmas(item, path, out)
        return
    for _, child in node.children():
        _pragmas(child, path, out)


def locate(ast: c_ast.FileAST, regions: list[Region], file: str) -> list[LocatedRegion | None]:
    """Return, per region, where it sits; None for a region the preprocessor removed."""
    found: dict[int, tuple] = {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            pragmas: list = []
            _pragmas(ext.body, [], pragmas)
            for pragma, path, index in pragmas:
                if pragma.coord is not None and same_file(str(pragma.coord.file), file):
                    found[pragma.coord.line] = (ext, pragma, path, index)
        elif isinstance(ext, c_ast.Pragma) and ext.coord is not None and same_file(str(ext.coord.file), file):
            word = ext.string.split()[0] if ext.string.split() else ""
            if word in ("scop", "endscop"):
                raise FatalError(f"'#pragma {word}' outside a function body; regions must sit inside one",
                                 Location(file, ext.coord.line, 1))
    located: list[LocatedRegion | None] = []
    for region in regions:
        begin = found.get(region.begin_line)
        end = found.get(region.end_line)
        if begin is None and end is None:
            located.append(None)
            continue
        if begin is None or end is None or begin[2][-1] is not end[2][-1] or begin[0] is not end[0]:
            raise FatalError(
                f"the region of lines {region.begin_line}-{region.end_line} does not sit inside one "
                "compound statement: '#pragma scop' and '#pragma endscop' must be in the same block",
                region.location,
            )
        block = begin[2][-1]
        items = [i for i in block.block_items[begin[3] + 1 : end[3]]]
        located.append(LocatedRegion(region, begin[0], begin[2], items,
                                     read_after(begin[0], block, end[3]), origins(begin[0], items),
                                     frozenset(n.name for n in subtree(begin[0].body) if isinstance(n, c_ast.Goto))))
    return located


def _continuation(function: c_ast.FuncDef, block: c_ast.Compound, index: int) -> list[list[c_ast.Node]]:
    """What may run after item ``index`` of ``block``, roughly in execution order, in pieces: the rest of
    the block, then for each enclosing statement outwards the rest of its block; an enclosing loop
    adds its condition, its increment and its whole body (the next iterations).  A piece that is the
    rest of a block ends that block's scope: the names it declares mean other variables there."""
    parents: dict[int, c_ast.Node] = {}
    for node in subtree(function.body):
        for _, child in node.children():
            parents[id(child)] = node
    pieces: list[list[c_ast.Node]] = [list((block.block_items or [])[index + 1:])]
    node: c_ast.Node = block
    while id(node) in parents:
        parent = parents[id(node)]
        if isinstance(parent, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            pieces.append([n for n in (getattr(parent, "next", None), parent.cond, parent.stmt) if n is not None])
        elif isinstance(parent, c_ast.Compound):
            items = parent.block_items or []
            position = next(k for k, item in enumerate(items) if item is node)
            pieces.append(items[position + 1:])
        node = parent
    return pieces


def read_after(function: c_ast.FuncDef, block: c_ast.Compound, index: int) -> dict[str, c_ast.Node]:
    """Names whose value on leaving the region may be read later: on some path, a use of
    them comes before any assignment to them."""
    read: dict[str, c_ast.Node] = {}

    def scan(node: c_ast.Node | None, killed: frozenset[str]) -> frozenset[str]:
        """Record reads in ``node``; return the names certainly assigned once it has run."""
        if node is None:
            return killed
        if isinstance(node, c_ast.ID):
            if node.name not in killed:
                read.setdefault(node.name, node)
            return killed
        if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
            killed = scan(node.rvalue, killed)
            if node.op != "=":
                scan(node.lvalue, killed)
            return killed | {node.lvalue.name}
        if isinstance(node, c_ast.Decl):
            # a declaration hides the variable of that name until its block ends
            killed = scan(node.init, killed) if node.init is not None else killed
            return killed | {node.name} if node.name else killed
        if isinstance(node, c_ast.Compound):
            inner = killed
            for item in node.block_items or []:
                inner = scan(item, inner)
            return _leave_scope(inner, killed, _declared(node.block_items or []))
        if isinstance(node, c_ast.For):
            after_init = scan(node.init, killed)
            scan(node.cond, after_init)
            inner = scan(node.stmt, after_init)
            scan(node.next, inner)
            scan(node.cond, inner)
            declared = _declared(node.init.decls) if isinstance(node.init, c_ast.DeclList) else set()
            return _leave_scope(after_init, killed, declared)
        if isinstance(node, c_ast.While):
            scan(node.cond, killed)
            scan(node.cond, scan(node.stmt, killed))
            return killed
        if isinstance(node, c_ast.DoWhile):
            killed = scan(node.stmt, killed)
            scan(node.cond, killed)
            return killed
        if isinstance(node, c_ast.If):
            scan(node.cond, killed)
            then = scan(node.iftrue, killed)
            otherwise = scan(node.iffalse, killed) if node.iffalse is not None else killed
            return then & otherwise
        if isinstance(node, c_ast.TernaryOp):
            scan(node.cond, killed)
            scan(node.iftrue, killed)
            scan(node.iffalse, killed)
            return killed
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            killed = scan(node.left, killed)
            scan(node.right, killed)
            return killed
        for _, child in node.children():
            killed = scan(child, killed)
        return killed

    killed: frozenset[str] = frozenset()
    for piece in _continuation(function, block, index):
        before = killed
        for item in piece:
            killed = scan(item, killed)
        killed = _leave_scope(killed, before, _declared(piece))
    return read


def _declared(items: list[c_ast.Node]) -> set[str]:
    return {item.name for item in items if isinstance(item, c_ast.Decl) and item.name}


def _leave_scope(inside: frozenset[str], before: frozenset[str], declared: set[str]) -> frozenset[str]:
    """The names certainly assigned after a scope that declares ``declared``: its own variables are gone,
    the ones they hid are as they were before it."""
    return frozenset(n for n in inside if n not in declared) | (before & declared)


def origins(function: c_ast.FuncDef, region_items: list[c_ast.Node]) -> dict[str, list[c_ast.Node]]:
    """The values assigned to each name in ``function`` outside the region."""
    inside = {id(n) for item in region_items for n in subtree(item)}
    origins: dict[str, list[c_ast.Node]] = {}
    for node in subtree(function.body):
        if id(node) in inside:
            continue
        if isinstance(node, c_ast.Decl) and node.name and node.init is not None:
            origins.setdefault(node.name, []).append(node.init)
        elif isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
            origins.setdefault(node.lvalue.name, []).append(node.rvalue)
    return origins


def identifiers(ast: c_ast.FileAST) -> set[str]:
    """Every identifier the translation unit declares or uses."""
    names: set[str] = set()

    def visit(node: c_ast.Node) -> None:
        if isinstance(node, c_ast.ID):
            names.add(node.name)
        elif isinstance(node, c_ast.Decl) and node.name:
            names.add(node.name)
        elif isinstance(node, c_ast.Typedef):
            names.add(node.name)
        for _, child in node.children():
            visit(child)

    visit(ast)
    return names
