"""What several passes do with pycparser trees: walk every node below one, ask which variable a node
writes, rewrite a node's children."""

from __future__ import annotations

from collections.abc import Callable

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


def rewrite_children(node: c_ast.Node, rewrite: Callable[[c_ast.Node], c_ast.Node],
                     skip: tuple[str, ...] = ()) -> c_ast.Node:
    """``node`` with each child node replaced, in place, by ``rewrite(child)``, but for the attributes named
    in ``skip``."""
    for attribute in node.__slots__:
        if attribute in ("coord", "__weakref__") or attribute in skip:
            continue
        child = getattr(node, attribute, None)
        if isinstance(child, c_ast.Node):
            setattr(node, attribute, rewrite(child))
        elif isinstance(child, list):
            setattr(node, attribute, [rewrite(c) if isinstance(c, c_ast.Node) else c for c in child])
    return node
