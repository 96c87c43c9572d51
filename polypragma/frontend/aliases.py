"""Names a region declares for a part of an array or for an integer expression, replaced by what they name.

``double *row = A[i];`` followed by ``row[j] = B[j] + i;`` is ``A[i][j] = B[j] + i;``, and ``const double *a
= &x[i * m];`` (or ``x + i * m``) makes ``a[k]`` the element ``x[i * m + k]``; ``int j = n - 1 - i;`` makes
``y[j]`` ``y[n - 1 - i]``, ``int len = n - i;`` a loop bound ``j < len`` the bound ``j < n - i``, and ``int r =
perm[i];`` makes ``A[r][j]`` ``A[perm[i]][j]``.  The model
has no pointers, and takes a scalar the region writes for data: the substitution keeps the accesses and
bounds exact.  It is what C means where nothing changes the name or what its value was computed from:

* a pointer to numbers, set to an array or pointer variable, a row of one (``A[i]``) or the address of an
  element of a one-dimensional one (``&x[e]``, ``x + e``), whose subscripts read no memory, and after it
  only subscripted (``*p`` and ``*(p + e)`` are ``p[0]`` and ``p[e]`` by then) or given whole to ``memcpy``
  or ``memset``;
* a signed integer (``int``, ``long``) set to an expression of constants, signed integer variables and at
  most one element of a one-dimensional array of signed integers, none wider than it, which calls nothing
  (``int r = perm[i];``, ``int start = rowptr[i];``: a subscript, a loop's bound on data), where nothing
  after it in its block writes that array's elements;
* after it, in its block, the name is never assigned nor declared again; nothing assigns or declares again
  a variable its value reads; and the function does not use it after the region.

As for a function's pointer parameter given a row (:func:`polypragma.frontend.functions.inline_call`), the
subscripts through a row stay in that row, and a pointer to an element of a row (``&A[i][j]``, from which
the bytes reach the next rows) is not replaced.  A pointer that steps by the same amount each iteration of
a loop is :mod:`polypragma.frontend.induction`'s.  Otherwise the declaration stays: a pointer's region is
refused as before with a warning naming it, an integer is a scalar of the region.
"""

from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from polypragma.frontend.c_tree import STEPS, subtree, text, writes
from polypragma.frontend.functions import array_part, substitute
from polypragma.frontend.row_bounds import Assumptions, RowAssumption, admitted, row_condition
from polypragma.model import CType

_COPIES = frozenset({"memcpy", "memset"})  # calls the frontend lowers to loops (memory_calls.py)
_SIGNED_WORDS = frozenset({"int", "long", "short", "signed"})
_NOT_VALUES = ("*", "&", *STEPS)  # a dereference, an address, a step


def substitute_aliases(items: list[c_ast.Node], used_after: set[str],
                       variable_type: Callable[[str], CType | None], notes: dict[int, str],
                       assumptions: Assumptions | None = None) -> list[c_ast.Node]:
    """``items`` (a block's) with each declaration that names a part of an array or an integer expression
    dropped and the name replaced by what it names in the items after it (copies, the given ones rewritten
    in place).  ``variable_type(name)``: a variable's type (None: unknown).  ``notes`` receives, by ``id`` of
    a pointer declaration left as it is, why, where the diagnostic has more to say than that.  A pointer to
    a row whose subscripts stay in it only where a condition on names the region does not change holds is
    replaced where ``assumptions`` is given, which receives the condition (row_bounds.RowAssumption)."""
    out = list(items)
    k = 0
    while k < len(out):
        alias = _alias(out[k], out[k + 1:], used_after, variable_type, notes, assumptions) \
            or _integer(out[k], out[k + 1:], used_after, variable_type)
        if alias is None:
            k += 1
            continue
        name, value, part = alias
        parts = {name: part} if part is not None else {}
        out[k + 1:] = [substitute(item, {name: value}, parts) for item in out[k + 1:]]
        del out[k]
    return out


def _alias(decl: c_ast.Node, rest: list[c_ast.Node], used_after: set[str],
           variable_type: Callable[[str], CType | None], notes: dict[int, str], assumptions: Assumptions | None):
    """(name, value, part) for a pointer declaration that can be replaced, else None."""
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
    if not all(_only_subscripted(item, decl.name) for item in rest) or not _unchanged(decl, rest):
        return None
    if part is not None and part[0] == "row":
        refusal = (f"in the region is not supported: it points to the row '{text(value)}', and its subscripts "
                   "may reach past the row's end (the next rows, which the model would take for elements of this row)")
        condition = row_condition(part[1], rest, decl.name, variable_type)
        if not admitted(condition, assumptions):
            notes[id(decl)] = refusal
            return None
        if condition is not True:
            assumptions.made.append(RowAssumption(condition, f"do the subscripts through '{decl.name}', the row "
                                                  f"'{text(value)}', stay in that row", f"pointer '{decl.name}'", refusal, decl))
    return decl.name, value, part


def _integer(decl: c_ast.Node, rest: list[c_ast.Node], used_after: set[str],
             variable_type: Callable[[str], CType | None]):
    """(name, value, None) for a declaration of a signed integer that names an expression, else None."""
    if not (isinstance(decl, c_ast.Decl) and decl.name and decl.init is not None
            and isinstance(decl.type, c_ast.TypeDecl) and isinstance(decl.type.type, c_ast.IdentifierType)
            and set(decl.type.type.names) <= _SIGNED_WORDS) or decl.name in used_after:
        return None
    wide = "long" in decl.type.type.names

    def narrow(ctype: CType | None, rank: int) -> bool:  # a signed integer no wider than the declaration
        return ctype is not None and ctype.rank == rank and ctype.is_integer and not ctype.is_unsigned \
            and set(ctype.resolved.split()) <= _SIGNED_WORDS and ("long" not in ctype.resolved or wide)

    array = None  # the array of the one element it may read (each use reads it again)
    for node in subtree(decl.init):
        if isinstance(node, c_ast.ArrayRef):
            if array is not None or not isinstance(node.name, c_ast.ID) or not narrow(variable_type(node.name.name), 1):
                return None  # (int cnt = G[i - 1] + G[i + 1] + ...: every use would read them all again)
            array = node.name.name
        elif isinstance(node, (c_ast.StructRef, c_ast.FuncCall, c_ast.Assignment, c_ast.InitList, c_ast.ExprList)) \
                or (isinstance(node, c_ast.UnaryOp) and node.op in _NOT_VALUES):
            return None
        elif isinstance(node, c_ast.ID) and node.name != array and not narrow(variable_type(node.name), 0):
            return None
    if any(writes(item, decl.name) for item in rest) or not _unchanged(decl, rest) \
            or (array is not None and any(_writes_elements(item, array) for item in rest)):
        return None
    return decl.name, decl.init, None


def _writes_elements(node: c_ast.Node, array: str) -> bool:
    """Whether ``node`` may write an element of ``array``: through a subscript, a step, its address, or a
    call given the array."""
    for n in subtree(node):
        targets = []
        if isinstance(n, c_ast.Assignment):
            targets.append(n.lvalue)
        elif isinstance(n, c_ast.UnaryOp) and n.op in _NOT_VALUES:
            targets.append(n.expr)
        elif isinstance(n, c_ast.FuncCall) and n.args is not None:
            targets += n.args.exprs
        for target in targets:
            if any(isinstance(i, c_ast.ID) and i.name == array for i in subtree(target)):
                return True
    return False


def _unchanged(decl: c_ast.Decl, rest: list[c_ast.Node]) -> bool:
    """Whether nothing in ``rest`` declares the name again, or assigns or declares again a variable its
    value reads."""
    read = {n.name for n in subtree(decl.init) if isinstance(n, c_ast.ID)}
    for item in rest:
        for node in subtree(item):
            if isinstance(node, c_ast.Decl) and (node.name == decl.name or node.name in read):
                return False
        if any(writes(item, other) for other in read):
            return False
    return True


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
