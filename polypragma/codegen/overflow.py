"""Where generated integer arithmetic may leave the range of the iterators' type.

isl writes the bounds of loops whose iterators are tied by several congruences (blocks wrapping around a
grid of 65,535, threads around a block of 2, a loop of step 3) with the inverses of the moduli, e.g.
``2147385345 * b2`` (32767 x 65535) or a division by 4294836225 (65535 squared).  Evaluated in ``int``,
such a product wraps around and the loop runs the wrong instances (differential program 2625: some
instances ran twice).  The original program never computes these values, so they are polypragma's to
get right.

:class:`Ranges` bounds the value of each expression of an AST by an interval, from intervals of its
identifiers: the block and thread indices from the grid and the block, each loop's iterator from its
initial value and its upper bound, and every other value (parameters, the program's values) within
:data:`PROGRAM_VALUE` of 0, a size no loop nest run on a GPU reaches.  The printer computes an operation
that may leave the type's range, and whose operands cannot, in ``long long``: ordinary code (which
amplifies a program value by less than ``2**31 / PROGRAM_VALUE``) is printed unchanged, and the rare
expression built from congruences gets the one cast that makes it exact.
"""

from __future__ import annotations

import islpy as isl

_OP = isl.ast_expr_op_type

# the magnitude assumed of parameters and other values of the program (loop extents, array sizes):
# 2**24, about 16.8 million
PROGRAM_VALUE = 2**24
# the largest value of each iterator type
LARGEST = {"int": 2**31 - 1, "long": 2**63 - 1, "long long": 2**63 - 1}
# the type in which an operation that may leave an iterator's range is computed
WIDE_TYPE = "long long"

Interval = tuple[int, int]
UNKNOWN: Interval = (-PROGRAM_VALUE, PROGRAM_VALUE)

_TRUTH = (_OP.lt, _OP.le, _OP.gt, _OP.ge, _OP.eq, _OP.and_, _OP.and_then, _OP.or_, _OP.or_else)
_QUOTIENT = (_OP.div, _OP.pdiv_q, _OP.fdiv_q)
ARITHMETIC = (_OP.add, _OP.sub, _OP.mul, _OP.pdiv_r, _OP.zdiv_r) + _QUOTIENT


class Ranges:
    """Intervals of the values of AST expressions, for iterators of type ``iterator_type``."""

    def __init__(self, iterator_type: str = "int"):
        self.largest = LARGEST.get(iterator_type, LARGEST["int"])
        self.bounds: dict[str, Interval] = {}  # identifier -> interval of its values

    def bound(self, name: str, interval: Interval) -> None:
        self.bounds[name] = interval

    def exceeds(self, interval: Interval) -> bool:
        """Whether a value in ``interval`` may leave the iterators' type."""
        return interval[0] < -self.largest - 1 or interval[1] > self.largest

    def leaf(self, e: isl.AstExpr) -> Interval:
        """The interval of a literal or an identifier."""
        if e.get_type() == isl.ast_expr_type.int:
            value = int(e.get_val().to_python())
            return value, value
        return self.bounds.get(e.get_id().get_name(), UNKNOWN)

    def of(self, e: isl.AstExpr) -> Interval:
        """The interval of ``e``'s values."""
        if e.get_type() != isl.ast_expr_type.op:
            return self.leaf(e)
        return combine(e, [self.of(e.get_op_arg(k)) for k in range(e.get_op_n_arg())])

    def loop(self, n: isl.AstNode, start: Interval) -> Interval:
        """The interval of a for node's iterator: from its initial value (in ``start``) to its upper
        bound, where its condition gives one."""
        if n.for_is_degenerate():
            return start
        upper = self._upper(n.for_get_cond(), n.for_get_iterator().get_id().get_name())
        return start[0], max(start[1], UNKNOWN[1] if upper is None else upper)

    def _upper(self, cond: isl.AstExpr, iterator: str) -> int | None:
        if cond.get_type() != isl.ast_expr_type.op:
            return None
        op = cond.get_op_type()
        left, right = cond.get_op_arg(0), cond.get_op_arg(1)
        if op in (_OP.and_, _OP.and_then):
            found = [b for b in (self._upper(left, iterator), self._upper(right, iterator)) if b is not None]
            return min(found) if found else None
        if op in (_OP.le, _OP.lt) and _names(left, iterator):
            return self.of(right)[1]
        if op in (_OP.ge, _OP.gt) and _names(right, iterator):
            return self.of(left)[1]
        return None


def combine(e: isl.AstExpr, operands: list[Interval]) -> Interval:
    """The interval of operation ``e``'s values from its operands'."""
    op = e.get_op_type()
    if op in _TRUTH:
        return 0, 1
    if op == _OP.minus:
        return -operands[0][1], -operands[0][0]
    if op == _OP.add:
        return operands[0][0] + operands[1][0], operands[0][1] + operands[1][1]
    if op == _OP.sub:
        return operands[0][0] - operands[1][1], operands[0][1] - operands[1][0]
    if op == _OP.mul:
        products = [a * b for a in operands[0] for b in operands[1]]
        return min(products), max(products)
    if op in _QUOTIENT or op in (_OP.pdiv_r, _OP.zdiv_r):
        divisor = _constant(e.get_op_arg(1))
        low, high = operands[0]
        if not divisor or divisor < 0:
            return -max(abs(low), abs(high)), max(abs(low), abs(high))
        if op in _QUOTIENT:  # (floor or truncation: within one of the floor)
            return low // divisor, -(-high // divisor)
        return max(low, -(divisor - 1)), min(high, divisor - 1)
    if op == _OP.min:
        return min(o[0] for o in operands), min(o[1] for o in operands)
    if op == _OP.max:
        return max(o[0] for o in operands), max(o[1] for o in operands)
    if op in (_OP.cond, _OP.select):
        return min(operands[1][0], operands[2][0]), max(operands[1][1], operands[2][1])
    return UNKNOWN  # a call, an access: a value of the program


def _constant(e: isl.AstExpr) -> int | None:
    return int(e.get_val().to_python()) if e.get_type() == isl.ast_expr_type.int else None


def _names(e: isl.AstExpr, name: str) -> bool:
    return e.get_type() == isl.ast_expr_type.id and e.get_id().get_name() == name
