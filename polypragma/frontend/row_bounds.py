"""Whether the subscripts through a pointer to a row stay in that row.

``double *p = A[0];`` makes ``p[k]`` the element ``A[0][k]``, which is what C means only while ``k`` stays
below the row's extent: a program that walks the whole matrix through it (``for (k = 0; k < n * m; k++)
p[k] = ...``) reaches the next rows, which the model would take for other elements of row 0, and then
misses the dependences with ``A[1][j]``.  :func:`row_condition` finds, with isl, for which values of the
other names every subscript through the pointer lies in ``[0, extent)`` wherever it runs: inside the
counted loops that enclose it in the given statements (``for (j = lb; j < ub; j += c)``, ``j <= ub``), every
other name taking any value.  Where that is not for all of them, the region may still run its model where
they hold, checked at run time (:class:`RowAssumption`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import islpy as isl
from pycparser import c_ast

from polypragma.frontend.affine import linear_form
from polypragma.frontend.c_tree import writes
from polypragma.frontend.loops import falling_loop, rising_loop
from polypragma.isl_helpers import coalesced
from polypragma.model import CType


@dataclass(frozen=True)
class RowAssumption:
    """Subscripts through a pointer to a row that stay in it only where ``condition`` holds (C over the
    names the subscripts and loop bounds read, ``m <= 20``): the model takes them for elements of the row
    there, checked at run time (Scop.assumed), and refuses the region where the condition is not on its
    parameters (the diagnostic then names ``construct`` at ``node`` and says ``refusal``)."""

    condition: c_ast.Node
    reason: str  # what holds where it does: "do the subscripts through 'row', the row 'A[i]', stay in that row"
    construct: str  # the diagnostic's construct and why: "call to 'set_row'", "is not supported by ..."
    refusal: str
    node: c_ast.Node


@dataclass
class Assumptions:
    """Where the frontend collects the row assumptions it makes in a region.  ``fixed(condition)``: whether
    the condition reads only names the region does not change (its parameters to be): only such a
    condition can be checked before the region runs."""

    fixed: Callable[[c_ast.Node], bool]
    made: list[RowAssumption] = field(default_factory=list)


def admitted(condition: c_ast.Node | bool, assumptions: Assumptions | None) -> bool:
    """Whether a row may be substituted given :func:`row_condition`'s answer: always (True), or where the
    condition can be checked before the region (``assumptions`` given and ``fixed`` for it)."""
    return condition is True or (condition is not False and assumptions is not None and assumptions.fixed(condition))


def row_condition(row: c_ast.ArrayRef, items: list[c_ast.Node], name: str,
                  variable_type: Callable[[str], CType | None]) -> c_ast.Node | bool:
    """Whether the subscripts through ``name``, a pointer to ``row`` (``A[i]``), stay in it in ``items``:
    True where they always do (the row has no declared extent: rows through pointers, ``double **R``, are
    objects of their own; or isl proves it), a C condition on the other names where they do for some of
    their values only (``row[j]`` with ``j < m`` in a row of 20: ``m <= 20``), else False (also for an
    array of unknown type, or a subscript that is not linear)."""
    fixed, base = 0, row
    while isinstance(base, c_ast.ArrayRef):
        fixed, base = fixed + 1, base.name
    ctype = variable_type(base.name) if isinstance(base, c_ast.ID) else None
    if ctype is None:
        return False
    extent = ctype.extents[fixed] if fixed < ctype.rank else None
    return True if extent is None else within_condition(items, name, extent)


def span_condition(offset: c_ast.Node | None, count: c_ast.Node, extent: c_ast.Node) -> c_ast.Node | bool:
    """As :func:`row_condition`, for ``count`` elements from ``offset`` (None: 0) in a row of ``extent``
    (memcpy's and memset's)."""
    k = c_ast.ID("polypragma_k")
    at = k if offset is None else c_ast.BinaryOp("+", offset, k)
    loop = c_ast.For(c_ast.Assignment("=", k, c_ast.Constant("int", "0")), c_ast.BinaryOp("<", k, count),
                     c_ast.UnaryOp("p++", k), c_ast.ArrayRef(c_ast.ID("polypragma_row"), at))
    return within_condition([loop], "polypragma_row", extent)


def within_condition(items: list[c_ast.Node], name: str, extent: c_ast.Node) -> c_ast.Node | bool:
    """As :func:`row_condition`, for the subscripts through ``name`` into a row of ``extent``."""
    found: list[tuple[isl.Set, isl.Set]] = []
    if not all(_collect(item, name, extent, [], found) for item in items):
        return False
    escaping = isl.Set("{ : false }")
    for outside, _ in found:
        escaping = escaping.union(outside)
    if escaping.is_empty():
        return True
    holds = coalesced(escaping.complement())
    # each subscript must still run where the condition holds (else the region would run its model only
    # where the loops through the row do nothing: ``p[k]`` with ``k < 3 * m`` in rows of ``m``)
    if any(runs.intersect(holds).is_empty() for _, runs in found):
        return False
    return _c_condition(holds) or False


def _collect(node: c_ast.Node, name: str, extent: c_ast.Node, loops: list[tuple[str, c_ast.Node, c_ast.Node]],
             found: list[tuple[isl.Set, isl.Set]]) -> bool:
    """Whether every ``name[e]`` in ``node`` is linear, in loops whose bounds are: ``found`` then receives,
    for each, the other names' values (isl parameters, named by :func:`_isl_name`) for which ``e < 0`` or
    ``e >= extent`` in some iteration of the loops around it, and those for which it runs at all (every
    other name taking any value; a bare ``name`` is not checked here)."""
    if isinstance(node, c_ast.ArrayRef) and isinstance(node.name, c_ast.ID) and node.name.name == name:
        sets = _outside(node.subscript, extent, loops)
        if sets is None:
            return False
        found.append(sets)
        return _collect(node.subscript, name, extent, loops, found)
    if isinstance(node, c_ast.For):
        header = [part for part in (node.init, node.cond, node.next) if part is not None]
        if not all(_collect(part, name, extent, loops, found) for part in header):
            return False
        bounds = _bounds(node)
        inner = loops + [bounds] if bounds is not None else loops
        return node.stmt is None or _collect(node.stmt, name, extent, inner, found)
    return all(_collect(child, name, extent, loops, found) for _, child in node.children())


def _bounds(loop: c_ast.For) -> tuple[str, c_ast.Node, c_ast.Node] | None:
    """(iterator, lowest value, past the highest) of a loop whose iterations lie in [lb, ub) (any constant
    step: ``for (k = lb; k < ub; k += c)``, or down from ``ub - 1``: ``for (k = top; k >= lb; k--)``), its body
    not changing the iterator; else None."""
    form = rising_loop(loop) or falling_loop(loop)
    if form is None or writes(loop.stmt, form[0]):
        return None
    return form[:3]


def _outside(subscript: c_ast.Node, extent: c_ast.Node,
             loops: list[tuple[str, c_ast.Node, c_ast.Node]]) -> tuple[isl.Set, isl.Set] | None:
    """The other names' values for which ``subscript < 0`` or ``subscript >= extent`` in some iteration of
    ``loops`` (outermost first), and those for which some iteration runs; None where a form is not linear."""
    iterators = [iterator for iterator, _, _ in loops]
    forms = [linear_form(subscript), linear_form(extent)]
    for _, lower, upper in loops:
        forms += [linear_form(lower), linear_form(upper)]
    if any(form is None for form in forms):
        return None
    names = sorted({n for form in forms for n in form if n} | set(iterators))
    text = [_text(form) for form in forms]
    constraints = [f"{lower} <= {_isl_name(it)} < {upper}" for it, lower, upper in zip(iterators, text[2::2], text[3::2])]
    outside = f"({text[0]} < 0 or {text[0]} >= {text[1]})"
    dims = [_isl_name(it) for it in iterators]
    params = [_isl_name(name) for name in names if name not in iterators]
    try:
        iterations = isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(dims)}] : "
                             f"{' and '.join(constraints) or 'true'} }}")
        escaping = isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(dims)}] : {outside} }}")
    except isl.Error:
        return None
    return iterations.intersect(escaping).params(), iterations.params()


def _isl_name(name: str) -> str:
    """isl's name for a C name (a C name may be one of isl's words: min, and, mod...)."""
    return f"v_{name}"


def _c_condition(holds: isl.Set) -> c_ast.Node | None:
    """``holds`` (a set of parameters named by :func:`_isl_name`) as a C condition, each constraint written
    as a user would (``m <= 20``); None where it has existential variables."""
    disjuncts = []
    for piece in holds.get_basic_sets():
        if piece.dim(isl.dim_type.div):
            return None
        conjuncts = []
        for constraint in piece.get_constraints():
            terms = {key[len("v_"):]: value.to_python()
                     for key, value in constraint.get_coefficients_by_name().items() if key != 1 and value.to_python()}
            constant = constraint.get_constant_val().to_python()
            if not terms:
                continue
            op = "==" if constraint.is_equality() else ">="
            if next(iter(terms.values())) < 0:  # a leading name with a positive coefficient: m <= 20
                terms, constant, op = {k: -v for k, v in terms.items()}, -constant, "==" if op == "==" else "<="
            conjuncts.append(c_ast.BinaryOp(op, _sum(terms), c_ast.Constant("int", str(-constant))))
        if not conjuncts:
            return c_ast.Constant("int", "1")
        disjuncts.append(_joined("&&", conjuncts))
    return _joined("||", disjuncts) if disjuncts else None


def _sum(terms: dict[str, int]) -> c_ast.Node:
    out = None
    for name, coefficient in terms.items():
        term = c_ast.ID(name) if abs(coefficient) == 1 else \
            c_ast.BinaryOp("*", c_ast.Constant("int", str(abs(coefficient))), c_ast.ID(name))
        out = (c_ast.UnaryOp("-", term) if coefficient < 0 else term) if out is None else \
            c_ast.BinaryOp("-" if coefficient < 0 else "+", out, term)
    return out


def _joined(op: str, parts: list[c_ast.Node]) -> c_ast.Node:
    out = parts[0]
    for part in parts[1:]:
        out = c_ast.BinaryOp(op, out, part)
    return out


def _text(form: dict[str, int]) -> str:
    out = "0"
    for name, coefficient in form.items():
        term = f"{abs(coefficient)}*{_isl_name(name)}" if name else str(abs(coefficient))
        out += f" {'+' if coefficient > 0 else '-'} {term}"
    return out
