"""What a C ``for`` loop iterates over.

``for (i = lower; condition; i += step)`` runs from ``lower`` in steps of
``step`` until the first value where ``condition`` fails.  Its iterations
are therefore the values of the progression that come before any failing
one; this holds for any affine condition, monotone or not.
"""

from __future__ import annotations

import islpy as isl
from pycparser import c_ast

from polypragma.frontend.affine import AffineBuilder, constant_value
from polypragma.isl_helpers import coalesced


def loop_step(node: c_ast.For, name: str, enums: dict[str, int]) -> int | None:
    """The constant added to iterator ``name`` by the loop's increment, or None."""
    nxt = node.next
    if isinstance(nxt, c_ast.UnaryOp) and isinstance(nxt.expr, c_ast.ID) and nxt.expr.name == name:
        return {"++": 1, "p++": 1, "--": -1, "p--": -1}.get(nxt.op)
    if not (isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID) and nxt.lvalue.name == name):
        return None
    if nxt.op in ("+=", "-="):
        value = constant_value(nxt.rvalue, enums)
        return None if value is None else (value if nxt.op == "+=" else -value)
    if nxt.op == "=" and isinstance(nxt.rvalue, c_ast.BinaryOp) and nxt.rvalue.op in ("+", "-"):
        left, right = nxt.rvalue.left, nxt.rvalue.right
        if isinstance(left, c_ast.ID) and left.name == name:
            value = constant_value(right, enums)
            return None if value is None else (value if nxt.rvalue.op == "+" else -value)
        if nxt.rvalue.op == "+" and isinstance(right, c_ast.ID) and right.name == name:
            return constant_value(left, enums)
    return None


def loop_start(loop: c_ast.For) -> tuple[str, c_ast.Node] | None:
    """(iterator, first value) of a loop initialised by ``i = e`` or ``int i = e``, else None."""
    init = loop.init
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        return init.decls[0].name, init.decls[0].init
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name, init.rvalue
    return None


def rising_loop(loop: c_ast.For) -> tuple[str, c_ast.Node, c_ast.Node, int] | None:
    """(iterator, first value, bound past the last, step) of ``for (i = lb; i < ub; i += c)`` (``i <= ub``,
    ``ub > i``, ``ub >= i``; ``int i = lb``; ``c`` a positive constant), else None.  Its iterations lie in
    ``[lb, ub)`` unless its body changes the iterator, which the caller checks where it matters."""
    start = loop_start(loop)
    if start is None:
        return None
    iterator, lower = start
    step = loop_step(loop, iterator, {})
    bound = _compared(loop.cond, iterator, below=True) if step is not None and step > 0 else None
    if bound is None:
        return None
    upper, inclusive = bound
    if inclusive:
        upper = c_ast.BinaryOp("+", upper, c_ast.Constant("int", "1"))
    return iterator, lower, upper, step


def falling_loop(loop: c_ast.For) -> tuple[str, c_ast.Node, c_ast.Node] | None:
    """(iterator, lowest value, past the first) of ``for (k = top; k >= lb; k -= c)`` (``k > lb``, ``lb <= k``,
    ``lb < k``; ``int k = top``; ``c`` a positive constant), else None: its iterations lie in ``[lb, top]``
    unless its body changes the iterator."""
    start = loop_start(loop)
    if start is None:
        return None
    iterator, top = start
    step = loop_step(loop, iterator, {})
    bound = _compared(loop.cond, iterator, below=False) if step is not None and step < 0 else None
    if bound is None:
        return None
    lower, inclusive = bound
    one = c_ast.Constant("int", "1")
    return iterator, lower if inclusive else c_ast.BinaryOp("+", lower, one), c_ast.BinaryOp("+", top, one)


def _compared(cond: c_ast.Node | None, iterator: str, below: bool) -> tuple[c_ast.Node, bool] | None:
    """(the bound, whether it is included) of a condition keeping ``iterator`` below it (``i < e``, ``i <= e``,
    ``e > i``, ``e >= i``), or above it where not ``below`` (``i > e``, ``i >= e``, ``e < i``, ``e <= i``)."""
    if not isinstance(cond, c_ast.BinaryOp):
        return None
    left, right = ("<", "<="), (">", ">=")
    if not below:
        left, right = right, left
    if isinstance(cond.left, c_ast.ID) and cond.left.name == iterator and cond.op in left:
        return cond.right, cond.op == left[1]
    if isinstance(cond.right, c_ast.ID) and cond.right.name == iterator and cond.op in right:
        return cond.left, cond.op == right[1]
    return None


def loop_domain(builder: AffineBuilder, outer: isl.Set, position: int, lower: isl.PwAff,
                condition: isl.Set, step: int) -> tuple[isl.Set, isl.Set]:
    """The iterations of the loop at dimension ``position`` inside ``outer`` (the points of the
    enclosing loops), and the points where its condition is evaluated."""
    ctx = outer.get_ctx()
    outer = outer.add_dims(isl.dim_type.set, 1).set_dim_name(
        isl.dim_type.set, position, builder.space.get_dim_name(isl.dim_type.set, position))
    it = builder.dim(position)
    progression = (it.ge_set(lower) if step > 0 else it.le_set(lower)).intersect(outer)
    if abs(step) != 1:
        offset = it.sub(lower).mod_val(isl.Val(str(abs(step)), context=ctx))
        progression = progression.intersect(offset.zero_set())
    failing = progression.subtract(condition)
    if failing.is_empty():
        domain = coalesced(progression)
    else:
        # before[i' -> i]: i' comes no later than i in the progression (same outer iteration)
        before = isl.Map.universe(isl.Space.map_from_set(progression.get_space()))
        for k in range(position):
            before = before.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
        if step > 0:
            before = before.order_le(isl.dim_type.in_, position, isl.dim_type.out, position)
        else:
            before = before.order_ge(isl.dim_type.in_, position, isl.dim_type.out, position)
        stopped = before.intersect_domain(failing).range()
        domain = coalesced(progression.intersect(condition).subtract(stopped))
    # the condition runs at the start and after each iteration's step
    start = it.eq_set(lower).intersect(outer)
    space = domain.get_space()
    next_value = isl.Aff.var_on_domain(isl.LocalSpace.from_space(space), isl.dim_type.set, position)
    shift = isl.MultiAff.identity(isl.Space.map_from_set(space)).set_aff(
        position, next_value.add_constant_val(isl.Val(str(step), context=ctx)))
    evaluated = coalesced(start.union(domain.apply(isl.Map.from_multi_aff(shift))))
    return domain, evaluated
