"""A ``switch`` as the chain of conditions on its scrutinee that it means.

``switch (e) { case 0: A; break; case 1: case 2: B; break; default: C; }`` runs the statements from the
label matching ``e`` up to the first ``break`` at the top of the switch body (or its end).  When ``e`` has
no side effects, that is

    if (e == 0) { A } else if (e == 1 || e == 2) { B } else { C }

whatever the order of the labels: the values of distinct cases are distinct, so at most one condition
holds, and the default's run is taken when none does.  A case that falls through into the next has the
next one's statements copied into its run.  The conditions are then affine or on data as any ``if``
(pet models a switch the same way: a condition per case on the scrutinee).

Refused, with the reason: a scrutinee with side effects (it is evaluated once per condition), a ``break``
of the switch under a condition inside a case (the run would end on data), a label inside a nested
statement (as in Duff's device), a declaration at the top of the switch body (its scope is the body).
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from polypragma.frontend.c_tree import has_side_effects


def switch_conditions(node: c_ast.Switch) -> c_ast.Node | str:
    """The chain of ``if`` statements that ``node`` means, or why it cannot be written so."""
    if has_side_effects(node.cond):
        return "has a scrutinee with side effects (it would be evaluated once per case)"
    body = node.stmt
    items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    if not items:
        return c_ast.EmptyStatement(coord=node.coord)
    # the flat flow of the body: statements, each label marking where its run starts
    flow: list[c_ast.Node] = []
    starts: list[tuple[c_ast.Node | None, int]] = []  # (case value, None for default; index in flow)
    for item in items:
        if not isinstance(item, (c_ast.Case, c_ast.Default)):
            if isinstance(item, (c_ast.EmptyStatement, c_ast.Pragma)):
                continue
            return "has statements before its first label"
        label = item
        while True:
            starts.append((label.expr if isinstance(label, c_ast.Case) else None, len(flow)))
            stmts = list(label.stmts or [])
            if len(stmts) >= 1 and isinstance(stmts[0], (c_ast.Case, c_ast.Default)) and len(stmts) == 1:
                label = stmts[0]  # case 1: case 2: ... nested by the parser
                continue
            break
        for stmt in stmts:
            flow.extend(_unbraced_break(stmt))
    for stmt in flow:
        if isinstance(stmt, c_ast.Decl):
            return f"declares '{stmt.name}' at the top of its body (its scope is the whole switch)"
        if not isinstance(stmt, c_ast.Break):
            if any(isinstance(n, (c_ast.Case, c_ast.Default)) for n in _walk_switch(stmt)):
                return "has a label inside a nested statement"
            nested = next((n for n in _walk_switch(stmt) if isinstance(n, c_ast.Break)), None)
            if nested is not None:
                return (f"leaves the switch with a 'break' under a condition (line {nested.coord.line}), "
                        "which is not supported")
    # the run of each start: from it to the first break or the end
    runs: dict[int, list[c_ast.Node]] = {}
    for _, start in starts:
        if start not in runs:
            run = []
            for stmt in flow[start:]:
                if isinstance(stmt, c_ast.Break):
                    break
                run.append(stmt)
            runs[start] = run
    groups: list[tuple[list[c_ast.Node], int]] = []  # (case values, start) in label order
    default_start = None
    for value, start in starts:
        if value is None:
            default_start = start
            continue
        for values, s in groups:
            if s == start:
                values.append(value)
                break
        else:
            groups.append(([value], start))
    chain: c_ast.Node | None = None
    if default_start is not None:
        chain = _block(runs[default_start], node.coord)
    for values, start in reversed(groups):
        if start == default_start:
            continue  # 'case 3: default:' is the default's run
        condition = None
        for value in values:
            test = c_ast.BinaryOp("==", copy.deepcopy(node.cond), value, coord=value.coord)
            condition = test if condition is None else c_ast.BinaryOp("||", condition, test, coord=value.coord)
        chain = c_ast.If(condition, _block(runs[start], node.coord), chain, coord=node.coord)
    return chain if chain is not None else c_ast.EmptyStatement(coord=node.coord)


def _unbraced_break(stmt: c_ast.Node) -> list[c_ast.Node]:
    """``{ A; break; }`` as ``{ A; }`` then ``break;``: a break at the end of a block ends the case."""
    if isinstance(stmt, c_ast.Compound) and stmt.block_items and isinstance(stmt.block_items[-1], c_ast.Break):
        return [c_ast.Compound(stmt.block_items[:-1], coord=stmt.coord), stmt.block_items[-1]]
    return [stmt]


def _block(run: list[c_ast.Node], coord) -> c_ast.Compound:
    """A copy of ``run`` (a statement reached from two labels is in two runs: the copies must differ)."""
    return c_ast.Compound([copy.deepcopy(stmt) for stmt in run], coord=coord)


def _walk_switch(node: c_ast.Node):
    """The nodes of ``node`` that belong to the enclosing switch: not inside a loop or a nested switch
    (a ``break`` there leaves them, not the switch)."""
    yield node
    if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
        return
    for _, child in node.children():
        yield from _walk_switch(child)
