"""What several passes do with pycparser trees: walk every node below one, ask which variable a node
writes or what it holds, rewrite a node's children, print a node as C."""

from __future__ import annotations

import copy
from collections.abc import Callable

from pycparser import c_ast, c_generator

STEPS = ("++", "--", "p++", "p--")  # the unary operators that change their operand
_WRITING_UNARY = STEPS + ("&",)  # ... or let it be changed through its address


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


def has_side_effects(node: c_ast.Node, pure: frozenset[str] = frozenset()) -> bool:
    """Whether evaluating ``node`` may change something: an assignment, a step, or a call (but to a function
    named in ``pure``)."""
    return any(isinstance(n, c_ast.Assignment) or (isinstance(n, c_ast.UnaryOp) and n.op in STEPS)
               or (isinstance(n, c_ast.FuncCall) and not (isinstance(n.name, c_ast.ID) and n.name.name in pure))
               for n in subtree(node))


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


def assigned_outside_loop_headers(items: list[c_ast.Node]) -> set[str]:
    """Names assigned (or incremented) anywhere but in the initialisation and increment of a loop."""
    names: set[str] = set()

    def visit(node: c_ast.Node) -> None:
        if isinstance(node, c_ast.For):
            for part in (node.cond, node.stmt):
                if part is not None:
                    visit(part)
            return
        name = assigned_name(node)
        if name is not None:
            names.add(name)
        for _, child in node.children():
            visit(child)

    for item in items:
        visit(item)
    return names


def leaves_early(node: c_ast.Node | None, breaks: bool = True) -> bool:
    """Whether a loop body holds a ``goto`` (which may leave it) or, with ``breaks``, a ``break`` of its
    loop."""
    if node is None:
        return False
    if isinstance(node, c_ast.Goto) or (breaks and isinstance(node, c_ast.Break)):
        return True
    if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
        return any(isinstance(n, c_ast.Goto) for n in subtree(node))
    return any(leaves_early(child, breaks) for _, child in node.children())


def contains_for(node: c_ast.Node) -> bool:
    """Whether ``node`` is or holds a ``for`` loop."""
    return any(isinstance(n, c_ast.For) for n in subtree(node))


def identifier_types(node: c_ast.Node) -> list[str]:
    """The names of the types ``node`` spells (``unsigned``, ``int``, a typedef's name)."""
    return [name for n in subtree(node) if isinstance(n, c_ast.IdentifierType) for name in n.names]


_GENERATOR = c_generator.CGenerator(reduce_parentheses=True)


def text(node: c_ast.Node | None) -> str:
    """``node`` as C, as diagnostics quote it ("" for None)."""
    return _GENERATOR.visit(node) if node is not None else ""


def declaration_text(decl: c_ast.Decl, new_name: str) -> str:
    """``decl`` as C text without its initialiser, under ``new_name``."""
    clone = copy.deepcopy(decl)
    clone.init = None
    clone.name = new_name
    # the initialiser becomes an assignment: a const local would then be assigned after its declaration
    clone.quals = [q for q in clone.quals if q != "const"]
    node = clone.type
    while not isinstance(node, c_ast.TypeDecl):
        node = node.type
    node.declname = new_name
    node.quals = [q for q in node.quals if q != "const"]
    return _GENERATOR.visit(clone) + ";"
