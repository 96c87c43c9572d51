"""Integer and pointer members of structs the region only reads, as names of their own: ``m->rows`` is
``m__rows``, ``m->data`` is ``m__data``.

``for (i = 0; i < m->rows; i++) m->data[i * m->cols + j] ...`` bounds its loops and subscripts by members
of a struct (a matrix, an image, a grid).  A member is data to the model, so such loops were not affine
and the region stayed as written.  Read as it is at the region's start, the member is a read-only integer
like any other, and becomes a parameter: the region starts with ``int m__rows = m->rows;`` (every target
prints it before the region's code, and the CPU fallback reads the members as written).  A pointer to
numbers, ``double *m__data = m->data;``, is then a flat array like a pointer parameter: ``m__data[i *
m__cols + j]`` is delinearised, and the GPU targets copy what it points to.

A member ``X->f`` or ``X.f`` (``X`` a variable declared before the region, ``f`` an integer or a pointer to
numbers) is read so when the region changes neither of them: no assignment, step or address of ``X`` or of
a member ``f`` of any struct (another pointer may name the same struct; a write through a pointer member,
``m->data[k] = v``, leaves it as it is), and ``X`` given to no call (a function could change its members).  As for read-only scalars, a write through a pointer of the member's type that
the program makes point at the member is not seen.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from pycparser import c_ast

from polypragma.frontend.c_tree import rewrite_children, subtree, text
from polypragma.frontend.library import PURE_FUNCTIONS
from polypragma.frontend.symbols import TypeTable
from polypragma.model import Variable

_WRITING = frozenset({"++", "--", "p++", "p--", "&"})


def member_parameters(items: list[c_ast.Node], lookup: Callable[[str], Variable | None], types: TypeTable,
                      taken: set[str]) -> tuple[list[c_ast.Node], list[tuple[Variable, str]]]:
    """``items`` with each integer member the region only reads replaced by a name of its own (rewritten in
    place), and for each name its variable and its declaration, which the region starts with.  ``lookup``:
    the variables declared before the region; ``taken``: names the new ones must not take (those chosen are
    added)."""
    candidates: dict[tuple[str, str, str], c_ast.Decl] = {}
    written_fields: set[str] = set()
    changed: set[str] = set()  # struct variables the region assigns, steps, takes the address of or passes
    for item in items:
        for node in subtree(item):
            target = None
            if isinstance(node, c_ast.Assignment):
                target = node.lvalue
            elif isinstance(node, c_ast.UnaryOp) and node.op in _WRITING:
                target = node.expr
            elif isinstance(node, c_ast.FuncCall) and node.args is not None and not (
                    isinstance(node.name, c_ast.ID) and node.name.name in PURE_FUNCTIONS):
                changed |= {n.name for arg in node.args.exprs for n in subtree(arg) if isinstance(n, c_ast.ID)}
            if target is not None:
                # the members on the way (m->v[k], &m->rows) may change; the variable itself, or all its
                # members, where none is on the way (m = q, *m = s, s[k] = t, &m); m->data[k] changes what
                # the pointer member 'data' points to, not the member
                through_member = dereferenced = False
                while isinstance(target, (c_ast.ArrayRef, c_ast.StructRef, c_ast.UnaryOp)):
                    if isinstance(target, c_ast.StructRef):
                        if not (dereferenced and _pointer_member(target, lookup, types)):
                            written_fields.add(target.field.name)
                        through_member = True
                        dereferenced = False
                        target = target.name
                    elif isinstance(target, c_ast.ArrayRef):
                        dereferenced = True
                        target = target.name
                    elif target.op == "*":
                        dereferenced = True
                        target = target.expr
                    else:
                        break
                if isinstance(target, c_ast.ID) and not through_member:
                    changed.add(target.name)
            key = _key(node)
            if key is not None and key not in candidates:
                decl = _member(node, lookup, types)
                if decl is not None:
                    candidates[key] = decl
    chosen = {key: decl for key, decl in candidates.items() if key[0] not in changed and key[2] not in written_fields}
    if not chosen:
        return items, []
    names: dict[tuple[str, str, str], str] = {}
    declared: list[tuple[Variable, str]] = []
    for key, member in sorted(chosen.items()):
        name, k = f"{key[0]}__{key[2]}", 1
        while name in taken or lookup(name) is not None:
            name, k = f"{key[0]}__{key[2]}{k}", k + 1
        taken.add(name)
        names[key] = name
        decl = copy.deepcopy(member)
        decl.name, decl.bitsize = name, None
        inner = decl.type
        while not isinstance(inner, c_ast.TypeDecl):
            inner = inner.type
        inner.declname = name
        decl.init = c_ast.StructRef(c_ast.ID(key[0]), key[1], c_ast.ID(key[2]))
        declared.append((Variable(name, types.ctype(decl.type), False, decl), text(decl) + ";"))

    def rewrite(node: c_ast.Node) -> c_ast.Node:
        key = _key(node)
        if key in names:
            return c_ast.ID(names[key], coord=node.coord)
        return rewrite_children(node, rewrite, ("field",) if isinstance(node, c_ast.StructRef) else ())

    return [rewrite(item) for item in items], declared


def _key(node: c_ast.Node) -> tuple[str, str, str] | None:
    """(variable, '->' or '.', member) of ``X->f`` or ``X.f``."""
    if isinstance(node, c_ast.StructRef) and isinstance(node.name, c_ast.ID):
        return node.name.name, node.type, node.field.name
    return None


def _member(node: c_ast.StructRef, lookup: Callable[[str], Variable | None],
            types: TypeTable) -> c_ast.Decl | None:
    """The declaration of the member ``node`` reads where it is an integer, or a pointer to numbers, of a
    struct variable declared before the region (``X->f`` through a pointer to a struct, ``X.f`` of a
    struct); else None."""
    member = _declaration(node, lookup, types)
    if member is None or member.bitsize is not None:
        return None
    ctype = types.ctype(member.type)
    if isinstance(member.type, c_ast.TypeDecl):
        return member if ctype.is_scalar and ctype.is_integer else None
    if isinstance(member.type, c_ast.PtrDecl) and isinstance(member.type.type, c_ast.TypeDecl):
        return member if ctype.pointer_depth == 1 and (ctype.is_integer or ctype.is_float) else None
    return None


def _pointer_member(node: c_ast.StructRef, lookup: Callable[[str], Variable | None], types: TypeTable) -> bool:
    """Whether ``node`` is a member of pointer type (a write through it leaves the member as it is)."""
    member = _declaration(node, lookup, types)
    return member is not None and isinstance(member.type, c_ast.PtrDecl)


def _declaration(node: c_ast.StructRef, lookup: Callable[[str], Variable | None],
                 types: TypeTable) -> c_ast.Decl | None:
    """The declaration of member ``X->f`` or ``X.f``, ``X`` a variable of the struct type (through one
    pointer for ``->``) declared before the region; else None."""
    if not isinstance(node.name, c_ast.ID):
        return None
    variable = lookup(node.name.name)
    if variable is None or variable.declared_in_region or not isinstance(variable.decl, c_ast.Decl):
        return None
    declarator = variable.decl.type
    depth = 0
    while isinstance(declarator, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        declarator = declarator.type
        depth += 1
    if depth != (1 if node.type == "->" else 0) or isinstance(types.aggregate(variable.decl.type), c_ast.Union):
        return None
    return types.member(variable.decl.type, node.field.name)
