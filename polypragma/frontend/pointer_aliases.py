"""Pointers a region declares to name a row or an element of an array, replaced by what they name.

``double *row = A[i];`` followed by ``row[j] = B[j] + i;`` is ``A[i][j] = B[j] + i;``, and ``const double *a
= &x[i * m];`` (or ``x + i * m``) makes ``a[k]`` the element ``x[i * m + k]``: the model has no pointers, and
the substitution keeps the accesses exact.  It is what C means where nothing changes the pointer or what
its value was computed from:

* the declaration is of a pointer to numbers, set to an array or pointer variable, a row of one (``A[i]``)
  or the address of an element of a one-dimensional one (``&x[e]``, ``x + e``), whose subscripts read no
  memory;
* after it, in its block, the pointer is only subscripted (``*p`` and ``*(p + e)`` are ``p[0]`` and ``p[e]``
  by then) or given whole to ``memcpy`` or ``memset``, never assigned, nor declared again; nothing assigns
  or declares again a variable its value reads; and the function does not use it after the region.

As for a function's pointer parameter given a row (:func:`polypragma.frontend.functions.inline_call`), the
subscripts through a row stay in that row, and a pointer to an element of a row (``&A[i][j]``, from which
the bytes reach the next rows) is not replaced.  A pointer that steps by the same amount each iteration of
a loop is :mod:`polypragma.frontend.induction`'s.  Otherwise the declaration stays, and the region is
refused as before with a warning naming the pointer.
"""

from __future__ import annotations

from pycparser import c_ast

from polypragma.frontend.c_tree import subtree, writes
from polypragma.frontend.functions import array_part, substitute

_COPIES = frozenset({"memcpy", "memset"})  # calls the frontend lowers to loops (memory_calls.py)


def substitute_aliases(items: list[c_ast.Node], used_after: set[str]) -> list[c_ast.Node]:
    """``items`` (a block's) with each pointer declaration that names a part of an array dropped and the
    pointer replaced by what it names in the items after it (copies, the given ones rewritten in place)."""
    out = list(items)
    k = 0
    while k < len(out):
        alias = _alias(out[k], out[k + 1:], used_after)
        if alias is None:
            k += 1
            continue
        name, value, part = alias
        parts = {name: part} if part is not None else {}
        out[k + 1:] = [substitute(item, {name: value}, parts) for item in out[k + 1:]]
        del out[k]
    return out


def _alias(decl: c_ast.Node, rest: list[c_ast.Node], used_after: set[str]):
    """(name, value, part) for a declaration that can be replaced, else None."""
    if not (isinstance(decl, c_ast.Decl) and decl.name and decl.init is not None
            and isinstance(decl.type, c_ast.PtrDecl) and isinstance(decl.type.type, c_ast.TypeDecl)
            and isinstance(decl.type.type.type, c_ast.IdentifierType)) or decl.name in used_after:
        return None
    value = decl.init
    if isinstance(value, c_ast.ID):
        part = None
    else:
        part = array_part(value)
        if isinstance(part, str):
            return None
    name = decl.name
    read = {n.name for n in subtree(value) if isinstance(n, c_ast.ID)}
    for item in rest:
        if not _only_subscripted(item, name):
            return None
        for node in subtree(item):
            if isinstance(node, c_ast.Decl) and (node.name == name or node.name in read):
                return None
        if any(writes(item, other) for other in read):
            return None
    return name, value, part


def _only_subscripted(node: c_ast.Node, name: str) -> bool:
    """Whether every use of ``name`` in ``node`` is subscripted, or a whole argument of a copy the
    frontend lowers."""
    if isinstance(node, c_ast.ID):
        return node.name != name
    if isinstance(node, c_ast.ArrayRef) and isinstance(node.name, c_ast.ID) and node.name.name == name:
        return _only_subscripted(node.subscript, name)
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name in _COPIES:
        return all(_only_subscripted(arg, name) for arg in (node.args.exprs if node.args else [])
                   if not (isinstance(arg, c_ast.ID) and arg.name == name))
    if isinstance(node, c_ast.StructRef):
        return _only_subscripted(node.name, name)  # (a member's name is no variable)
    if isinstance(node, c_ast.FuncCall):
        return node.args is None or _only_subscripted(node.args, name)
    return all(_only_subscripted(child, name) for _, child in node.children())
