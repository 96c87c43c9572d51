"""Questions about pycparser trees that several passes ask: every node below one, and which variable a
node writes."""

from __future__ import annotations

from pycparser import c_ast

# unary operators that change their operand, or let it be changed through its address
_WRITING_UNARY = ("++", "--", "p++", "p--", "&")


def subtree(node: c_ast.Node):
    """``node`` and every node below it, parents first."""
    yield node
    for _, child in node.children():
        yield from subtree(child)


def assigned_name(node: c_ast.Node) -> str | None:
    """The variable ``node`` assigns, increments or decrements, or takes the address of (and so may be
    written through), when it is a plain name; else None."""
    if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
        return node.lvalue.name
    if isinstance(node, c_ast.UnaryOp) and node.op in _WRITING_UNARY and isinstance(node.expr, c_ast.ID):
        return node.expr.name
    return None


def writes(node: c_ast.Node | None, name: str) -> bool:
    """Whether ``node`` may write the variable ``name``."""
    return node is not None and any(assigned_name(n) == name for n in subtree(node))
