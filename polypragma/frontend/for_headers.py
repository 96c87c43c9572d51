"""A ``for`` header with comma expressions, as a loop on one iterator.

``for (i = a, j = b; cond; i += s, j += t)`` runs with ``j == b + (t / s) * (i - a)`` at every
iteration when ``j`` is written nowhere else in the loop and ``t`` is a multiple of ``s``: ``j`` is an
affine function of the iterator, as pet takes such a variable to be.  The loop becomes

    for (i = a; cond'; i += s) body'

with ``j`` replaced by that expression in ``cond`` and ``body``.  When ``j`` is declared before the
loop and may be read after it, ``j = b + (t / s) * (i - a);`` follows the loop (``i`` holds its exit
value there, which the extractor knows for a loop at the top of a region).  Other assignments of the
initialisation (``for (i = 0, s = 0; ...)``) come before the loop, in their order, as C runs them.

Declarations work the same way: ``for (int i = 0, j = n; ...)``.  Anything else is left as it is (and
refused by the extractor with its reason): an increment that is not a constant step, a variable of the
header written in the body, steps whose ratio is not an integer, initialisations reading another
variable of the header.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from pycparser import c_ast, c_generator

from polypragma.frontend.c_tree import rewrite_children, subtree, writes
from polypragma.frontend.loops import loop_step


def split_header(loop: c_ast.For, read_elsewhere: Callable[[str], bool],
                 enums: dict[str, int] | None = None) -> list[c_ast.Node] | str | None:
    """The statements ``loop`` means with one iterator (the loop among them), None when its header has
    no comma, or why it cannot be so written.  ``read_elsewhere(name)``: whether ``name`` may be read outside the
    loop (then a variable of the header declared before it gets its final value after it)."""
    inits = _initialisations(loop.init)
    steps = list(loop.next.exprs) if isinstance(loop.next, c_ast.ExprList) else [loop.next] if loop.next else []
    if len(steps) < 2 and not (isinstance(loop.init, c_ast.ExprList) or
                               (isinstance(loop.init, c_ast.DeclList) and len(loop.init.decls) > 1)):
        return None
    if inits is None:
        return "sets something other than variables"
    names = [name for name, _, _ in inits]
    if len(set(names)) != len(names):
        return "sets a variable twice"
    step_of: dict[str, int] = {}
    for step in steps:
        name = _stepped_name(step)
        single = c_ast.For(None, None, step, None)
        value = loop_step(single, name, enums or {}) if name else None
        if not value or name not in names or name in step_of:
            return (f"has the increment '{_G.visit(step)}', which is not a constant step of a variable it "
                    "initialises")
        step_of[name] = value
    if not step_of:
        return "steps none of its variables"
    # the iterator: the stepped variable with the smallest step (the others' steps are multiples of it)
    iterator = min(step_of, key=lambda n: (abs(step_of[n]), names.index(n)))
    values = {name: value for name, value, _ in inits}
    for name, value, _ in inits:
        if value is not None and any(isinstance(n, c_ast.ID) and n.name in names for n in subtree(value)):
            return f"initialises '{name}' from another variable of the header"
    for name in step_of:
        if name != iterator and (writes(loop.stmt, name) or writes(loop.cond, name)
                                 or _declared(loop.stmt, name)):
            return f"steps '{name}', which the loop also writes (it is no function of the iterator)"
    derived: dict[str, c_ast.Node] = {}
    for name, step in step_of.items():
        if name == iterator:
            continue
        if step % step_of[iterator] or values[name] is None:
            return f"steps '{name}' by {step}, not a multiple of the step of '{iterator}'"
        derived[name] = _affine_in(iterator, values[iterator], values[name], step // step_of[iterator],
                                   loop.coord)
    declared = isinstance(loop.init, c_ast.DeclList)
    before: list[c_ast.Node] = []
    iterator_init = None
    for name, value, decl in inits:
        if name == iterator:
            iterator_init = c_ast.DeclList([decl], coord=decl.coord) if declared else \
                c_ast.Assignment("=", c_ast.ID(name, coord=loop.coord), value, coord=value.coord)
        elif name not in derived:
            # set once, before the loop: a declaration of the header keeps its scope in a block
            before.append(decl if declared else
                          c_ast.Assignment("=", c_ast.ID(name, coord=value.coord), value, coord=value.coord))
    live = {name for name in derived if not declared and read_elsewhere(name)}  # before the substitution
    cond = _substitute(loop.cond, derived) if loop.cond is not None else None
    body = _substitute(loop.stmt, derived) if loop.stmt is not None else None
    step = next(s for s in steps if _stepped_name(s) == iterator)
    result = [*before, c_ast.For(iterator_init, cond, step, body, coord=loop.coord)]
    for name, value in derived.items():
        if name in live:
            result.append(c_ast.Assignment("=", c_ast.ID(name, coord=loop.coord), copy.deepcopy(value),
                                           coord=loop.coord))
    return result


_G = c_generator.CGenerator()


def _initialisations(init: c_ast.Node | None) -> list[tuple[str, c_ast.Node | None, c_ast.Node | None]] | None:
    """(name, value, declaration) of each variable the initialisation sets, or None."""
    if isinstance(init, c_ast.DeclList):
        if not all(isinstance(d.type, c_ast.TypeDecl) for d in init.decls):
            return None
        return [(d.name, d.init, d) for d in init.decls]
    exprs = init.exprs if isinstance(init, c_ast.ExprList) else [init] if init is not None else []
    out = []
    for e in exprs:
        if not (isinstance(e, c_ast.Assignment) and e.op == "=" and isinstance(e.lvalue, c_ast.ID)):
            return None
        out.append((e.lvalue.name, e.rvalue, e))
    return out


def _stepped_name(step: c_ast.Node) -> str | None:
    if isinstance(step, c_ast.UnaryOp) and isinstance(step.expr, c_ast.ID):
        return step.expr.name
    if isinstance(step, c_ast.Assignment) and isinstance(step.lvalue, c_ast.ID):
        return step.lvalue.name
    return None


def _affine_in(iterator: str, start: c_ast.Node, value: c_ast.Node, ratio: int, coord) -> c_ast.Node:
    """``value + ratio * (iterator - start)``, without the parts that are zero or one."""
    offset: c_ast.Node = c_ast.ID(iterator, coord=coord)
    if not (isinstance(start, c_ast.Constant) and start.value == "0"):
        offset = c_ast.BinaryOp("-", offset, copy.deepcopy(start), coord=coord)
    if abs(ratio) != 1:
        offset = c_ast.BinaryOp("*", c_ast.Constant("int", str(abs(ratio)), coord=coord), offset, coord=coord)
    if isinstance(value, c_ast.Constant) and value.value == "0":
        return offset if ratio > 0 else c_ast.UnaryOp("-", offset, coord=coord)
    return c_ast.BinaryOp("+" if ratio > 0 else "-", copy.deepcopy(value), offset, coord=coord)


def _substitute(node: c_ast.Node, values: dict[str, c_ast.Node]) -> c_ast.Node:
    """``node`` with every name of ``values`` replaced by a copy of its value (in place where it can)."""
    if isinstance(node, c_ast.ID) and node.name in values:
        return copy.deepcopy(values[node.name])
    return rewrite_children(node, lambda child: _substitute(child, values))


def _declared(node: c_ast.Node | None, name: str) -> bool:
    return node is not None and any(isinstance(n, c_ast.Decl) and n.name == name for n in subtree(node))
