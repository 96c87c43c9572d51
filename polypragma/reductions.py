"""Reductions: statements that accumulate into one element with an associative, commutative operator.

A statement ``x[f] op= e`` (``x`` a scalar, an array or a struct's member: ``s->sum``; or ``x[f] = x[f] op e``,
``x[f] = e op x[f]``, a chain of additions and subtractions with ``x[f]`` added among its terms, ``x[f] = x[f]
+ a - b``, or of multiplications, ``x[f] = a * x[f] * b``; ``x[f]++``, ``x[f]--``, the
minimum and maximum written ``x = x < e ? x : e``, ``x = fmin(x, e)``, ``if (e < x) x = e`` and their
mirrors), possibly
under a condition on data (``if (c) x[f] += e``, without ``else``), whose only write is ``x[f]``, whose
read of the accumulator is the same element and whose ``e`` (and ``c``) read nothing of ``x``, is a
*reduction statement*: its instances that update one element may run in any order, provided each
update is atomic (Polly's reduction dependences, Doerfert et al., "Polly's polyhedral scheduling in
the presence of reductions", IMPACT 2015).  The read is the same element where isl's two access
relations are equal and single-valued; where ``f`` depends on data (a histogram's ``count[key[i]]++``:
the relations then cover all of ``x``), where C evaluates the accumulator once (``+=``, ``++``) or the
statement writes it as the same expression twice, which reads nothing the statement writes.

The scheduler is left alone: validity keeps every dependence, reduction ones included, so every
schedule stays valid for the sequential order.  What changes is which loops count as parallel for the
GPU mapping: a band member is *parallel as a reduction* when it carries no dependence of
:attr:`ReductionDependences.coincidence`, the dependences without the reduction dependences
(self-dependences of a reduction statement on the same element) but with, for each dependence that
reaches or leaves a run of updates of an element through that element, the same dependence to (from)
every later (earlier) update of the run: a value read, written or initialised next to a reduction must
be complete, or not yet begun, in every thread.

Floating-point sums change their rounding when reordered (the last bits of the result, as FMA does);
integer ones wrap around the same way in any order.  ``floating=False`` (``--no-reductions``) keeps
floating-point reductions in their order; integer ones are always recognised.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast, c_generator

from polypragma.dependences import Dependences
from polypragma.isl_helpers import coalesced, sets_of
from polypragma.model import Scop

# element types whose updates the GPU targets can make atomic (32- and 64-bit words): bytes per element
ATOMIC_TYPES = {"int": 4, "unsigned int": 4, "unsigned": 4, "float": 4, "long": 8, "unsigned long": 8,
                "double": 8}
FLOAT_TYPES = ("float", "double")

_INTEGER_WORDS = {"int", "unsigned", "signed", "long", "short", "char"}
_COMPOUND = {"+=": "+", "-=": "+", "*=": "*", "|=": "|", "&=": "&", "^=": "^"}
_BITWISE = ("|", "&", "^")  # integers only
_ARITHMETIC = ("+", "*") + _BITWISE  # the operators of 'x op= e' (min and max aside)
_GENERATOR = c_generator.CGenerator()
_MIN_MAX_CALLS = {"fmin": "min", "fmax": "max", "fminf": "min", "fmaxf": "max"}


@dataclass(frozen=True, eq=False)
class Reduction:
    """One reduction statement: ``target op= operand`` (``negate``: ``target -= operand``)."""

    statement: str
    array: str
    op: str  # "+", "*", "min" or "max"
    target: c_ast.Node  # the accumulator as written (the node of its write reference)
    operand: c_ast.Node  # e
    negate: bool
    write: isl.Map  # { S[i] -> x[f] }
    element_type: str  # the accumulator's type, typedefs resolved
    line: int
    guard: c_ast.Node | None = None  # the condition on data the update runs under (``if (c) ...``)
    # whether ``write`` is the element (a subscript on data: it covers every element the update may reach)
    exact: bool = True

    @property
    def floating(self) -> bool:
        return self.element_type in FLOAT_TYPES

    def describe(self) -> str:
        where = f"line {self.line}" + (f", under '{_GENERATOR.visit(self.guard)}'" if self.guard is not None else "")
        return f"{self.array} {'-' if self.negate else self.op}= ... ({where})" if self.op in _ARITHMETIC else \
            f"{self.array} = {self.op}({self.array}, ...) ({where})"


@dataclass(frozen=True)
class ReductionDependences:
    """The reductions of a region and the relations the GPU mapping needs."""

    reductions: tuple[Reduction, ...]
    carried: isl.UnionMap      # the reduction dependences: { S[i] -> S[i'] } on the same element
    coincidence: isl.UnionMap  # what a member parallel as a reduction must not carry (see the module)

    def of(self, statement: str) -> Reduction | None:
        for r in self.reductions:
            if r.statement == statement:
                return r
        return None


def _same(a: c_ast.Node, b: c_ast.Node) -> bool:
    """Whether two accumulator expressions are written alike (``x``, ``x[i]``, ``A[i][j]``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, c_ast.ID):
        return a.name == b.name
    if isinstance(a, c_ast.ArrayRef):
        return _same(a.name, b.name) and _same_expression(a.subscript, b.subscript)
    if isinstance(a, c_ast.StructRef):  # a member (s->sum, p[i].count, g.o.total)
        return a.type == b.type and a.field.name == b.field.name and _same(a.name, b.name)
    return False


def _same_expression(a: c_ast.Node, b: c_ast.Node) -> bool:
    return _GENERATOR.visit(a) == _GENERATOR.visit(b)


def _guarded(body: c_ast.Node):
    """(the update, its condition) of a body ``if (c) update`` without ``else`` (the update alone or in a
    block of its own); (body, None) for any other body."""
    if not isinstance(body, c_ast.If) or body.iffalse is not None:
        return body, None
    update = body.iftrue
    if isinstance(update, c_ast.Compound) and update.block_items is not None and len(update.block_items) == 1:
        update = update.block_items[0]
    return update, body.cond


_STEPS = {"p++": False, "++": False, "p--": True, "--": True}  # -> negate
_ACCUMULATORS = (c_ast.ID, c_ast.ArrayRef, c_ast.StructRef)  # a scalar, an element, a member


def _form(body: c_ast.Node):
    """(op, target, the target's reads, operand, negate, the read to replace by the operator's identity in
    the operand or None) of a body of a reduction's form, else None."""
    if isinstance(body, c_ast.UnaryOp) and body.op in _STEPS and isinstance(body.expr, _ACCUMULATORS):
        return "+", body.expr, (body.expr,), c_ast.Constant("int", "1"), _STEPS[body.op], None
    if not isinstance(body, c_ast.Assignment) or not isinstance(body.lvalue, _ACCUMULATORS):
        return None
    target, value = body.lvalue, body.rvalue
    if body.op in _COMPOUND:
        return _COMPOUND[body.op], target, (target,), value, body.op == "-=", None
    if body.op != "=":
        return None
    if isinstance(value, c_ast.BinaryOp) and value.op in ("+", "*", "-") + _BITWISE:
        op = "+" if value.op == "-" else value.op
        if _same(value.left, target):
            return op, target, (value.left,), value.right, value.op == "-", None
        if value.op != "-" and _same(value.right, target):
            return op, target, (value.right,), value.left, False, None
        read = _in_chain(value, target)
        if read is not None:  # x = x + a - b, x = a + x + b, x = x * a * b, x = x | a | b
            return op, target, (read,), value, False, read
    if isinstance(value, c_ast.TernaryOp) and isinstance(value.cond, c_ast.BinaryOp) \
            and value.cond.op in ("<", "<=", ">", ">="):
        left, right = value.cond.left, value.cond.right
        smaller_first = value.cond.op in ("<", "<=")
        # x = x < e ? x : e (min); x = x > e ? x : e (max); e < x ? e : x (min) and the mirrors
        for acc, other, acc_first in ((left, right, True), (right, left, False)):
            if not _same(acc, target):
                continue
            if _same_expression(value.iftrue, acc) and _same_expression(value.iffalse, other):
                picks_acc_when_smaller = smaller_first == acc_first
                return ("min" if picks_acc_when_smaller else "max"), target, (acc, value.iftrue), other, False, None
            if _same_expression(value.iftrue, other) and _same_expression(value.iffalse, acc):
                picks_other_when_smaller = smaller_first != acc_first
                return ("min" if picks_other_when_smaller else "max"), target, (acc, value.iffalse), other, False, None
    if isinstance(value, c_ast.FuncCall) and isinstance(value.name, c_ast.ID) \
            and value.name.name in _MIN_MAX_CALLS and value.args is not None and len(value.args.exprs) == 2:
        a, b = value.args.exprs
        if _same(a, target):
            return _MIN_MAX_CALLS[value.name.name], target, (a,), b, False, None
        if _same(b, target):
            return _MIN_MAX_CALLS[value.name.name], target, (b,), a, False, None
    return None


def _extreme(update: c_ast.Node, guard: c_ast.Node):
    """_form's answer for ``if (e > x) x = e;`` (a maximum; ``>=``, ``x < e``, and the minimum's mirrors):
    ``x = max(x, e)`` whatever the comparison says, so the condition goes; else None."""
    if not isinstance(update, c_ast.Assignment) or update.op != "=" or not isinstance(update.lvalue, _ACCUMULATORS) \
            or not isinstance(guard, c_ast.BinaryOp) or guard.op not in ("<", "<=", ">", ">="):
        return None
    target, value = update.lvalue, update.rvalue
    for acc, other, acc_first in ((guard.left, guard.right, True), (guard.right, guard.left, False)):
        if _same(acc, target) and _same_expression(other, value):
            # x < e or e > x: e is the larger, which the update keeps
            keeps_larger = (guard.op in ("<", "<=")) == acc_first
            return ("max" if keeps_larger else "min"), target, (acc,), value, False, None
    return None


def _in_chain(value: c_ast.BinaryOp, target: c_ast.Node) -> c_ast.Node | None:
    """The read of ``target`` in ``value`` where ``value`` is a chain of additions and subtractions (or of
    multiplications) with the target once among its terms, added: ``(x + a) - b``, ``a - (b - x)``,
    ``(a * x) * b``; else None.  A term that reads the target elsewhere (``x + x``, ``a - x``, ``x + a[x]``)
    is no chain of this kind, or leaves the accumulator read outside the update (find's ``others``)."""
    ops = ("+", "-") if value.op in ("+", "-") else (value.op,)
    reads = []

    def walk(node: c_ast.Node, added: bool) -> None:
        if isinstance(node, c_ast.BinaryOp) and node.op in ops:
            walk(node.left, added)
            walk(node.right, added != (node.op == "-"))
        elif _same(node, target):
            reads.append((node, added))

    walk(value, True)
    return reads[0][0] if len(reads) == 1 and reads[0][1] else None


# the identity of an operator in each accumulator type, as a constant of that type: (pycparser's type, text)
_IDENTITIES = {
    "+": {"double": ("double", "-0.0"), "float": ("float", "-0.0f"), "int": ("int", "0"),
          "unsigned int": ("unsigned int", "0u"), "unsigned": ("unsigned int", "0u"), "long": ("long int", "0L"),
          "unsigned long": ("unsigned long int", "0UL")},
    "*": {"double": ("double", "1.0"), "float": ("float", "1.0f"), "int": ("int", "1"),
          "unsigned int": ("unsigned int", "1u"), "unsigned": ("unsigned int", "1u"), "long": ("long int", "1L"),
          "unsigned long": ("unsigned long int", "1UL")},
    "&": {"int": ("int", "-1"), "unsigned int": ("unsigned int", "4294967295u"),
          "unsigned": ("unsigned int", "4294967295u"), "long": ("long int", "-1L"),
          "unsigned long": ("unsigned long int", "18446744073709551615UL")},
}


def _with_identity(value: c_ast.Node, read: c_ast.Node, op: str, kind: str) -> c_ast.Node:
    """``value`` with ``read`` replaced by the identity of ``op`` in the accumulator's type ``kind``
    (``(-0.0 + a) - b`` of ``x = (x + a) - b``; -0.0, whose sum with any value is that value, -0.0
    included): one thread's contribution, each operation in the types the original computes it in (a long
    accumulator's ``0L + i - j`` in long, not in int); the nodes outside the path to ``read`` are the
    statement's own, which the printers know."""
    if value is read:
        return c_ast.Constant(*_IDENTITIES[op if op in ("*", "&") else "+"][kind], coord=read.coord)
    if isinstance(value, c_ast.BinaryOp):
        left, right = (_with_identity(side, read, op, kind) for side in (value.left, value.right))
        if left is not value.left or right is not value.right:
            return c_ast.BinaryOp(value.op, left, right, value.coord)
    return value


_TRUTH = ("<", ">", "<=", ">=", "==", "!=", "&&", "||")  # operators whose value is the int 0 or 1


def _integer_only(node: c_ast.Node, scop: Scop, arrays: dict, iterators=()) -> bool:
    """Whether ``node`` (the operand of an integer reduction) computes on integers only: C converts an
    integer accumulator's update back at every step, which reordering would not do where the operand
    is a floating-point value."""
    if isinstance(node, c_ast.Constant):
        return node.type in ("int", "long int", "unsigned int", "long long int", "unsigned long int", "char",
                             "long", "unsigned long", "unsigned long long int")
    if isinstance(node, c_ast.Cast):
        names = getattr(getattr(node.to_type.type, "type", None), "names", None)
        return bool(names) and set(names) <= _INTEGER_WORDS and _integer_only(node.expr, scop, arrays, iterators)
    if isinstance(node, c_ast.BinaryOp) and node.op in _TRUTH or isinstance(node, c_ast.UnaryOp) and node.op == "!":
        return True  # 0 or 1, an int, whatever it compares (a count of elements: 'moved += fabs(d) > tol')
    if isinstance(node, (c_ast.FuncCall, c_ast.StructRef, c_ast.UnaryOp)) and not (
            isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "~")):
        return False
    if isinstance(node, c_ast.ID):
        if node.name in iterators:
            return True
        array = arrays.get(node.name)
        if array is not None:
            return (array.resolved_type or array.element_type) in ATOMIC_TYPES \
                and (array.resolved_type or array.element_type) not in FLOAT_TYPES
        kind = scop.scalar_types.get(node.name)
        return kind is not None and "float" not in kind and "double" not in kind  # unknown: not known integer
    if isinstance(node, c_ast.ArrayRef):
        base = node
        while isinstance(base, c_ast.ArrayRef):
            if not _integer_only(base.subscript, scop, arrays, iterators):
                return False
            base = base.name
        return _integer_only(base, scop, arrays, iterators)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"):
        return all(_integer_only(side, scop, arrays, iterators) for side in (node.left, node.right))
    if isinstance(node, c_ast.UnaryOp):
        return _integer_only(node.expr, scop, arrays, iterators)
    return False


def find(scop: Scop, floating: bool = True) -> tuple[Reduction, ...]:
    """The reduction statements of ``scop`` (floating-point ones only when ``floating``)."""
    arrays = {a.name: a for a in scop.arrays}
    arrays.update({a.c_name: a for a in scop.arrays if a.c_name})
    found = []
    for statement in scop.statements:
        update, guard = _guarded(statement.body)
        conditional = guard is not None
        form = _form(update)
        if form is None and conditional:
            form, guard = _extreme(update, guard), None  # if (e > x) x = e: x = max(x, e), always
        if form is None:
            continue
        op, target, reads, operand, negate, identity_at = form
        refs = [r for r in scop.references if r.statement == statement.name]
        writes = [r for r in refs if r.is_write]
        if len(writes) != 1 or writes[0].node is not target or not (writes[0].must or conditional
                                                                      or not writes[0].exact):
            continue
        write = writes[0]
        accumulator = [r for r in refs if not r.is_write and any(r.node is n for n in reads)]
        others = [r for r in refs if not r.is_write and not any(r.node is n for n in reads)]
        array = arrays.get(write.array)
        # (a subscript on data: the same expression, which reads nothing of x, so nothing this statement writes)
        if len(accumulator) != len(reads) or array is None \
                or (write.exact and not write.relation.is_single_valued()) \
                or not all(r.exact == write.exact and r.relation.is_equal(write.relation) for r in accumulator):
            continue
        if any(r.array == write.array for r in others):
            continue  # e (or the condition, or a subscript) reads the accumulator's array: not a reduction
        written = isl.UnionMap.from_map(write.relation)
        if not statement.may_writes.union(statement.must_writes).is_equal(written) \
                or not (statement.must_writes.is_empty() or statement.must_writes.is_equal(written)):
            continue
        kind = array.resolved_type or array.element_type
        if kind not in ATOMIC_TYPES or (kind in FLOAT_TYPES and (not floating or op in _BITWISE)):
            continue
        if identity_at is not None:
            operand = _with_identity(operand, identity_at, op, kind)
        if kind not in FLOAT_TYPES and (isinstance(getattr(update, "rvalue", None), c_ast.FuncCall)
                                        or not _integer_only(operand, scop, arrays,
                                                             set(statement.iterators))):
            continue
        found.append(Reduction(statement.name, write.array, op, target, operand, negate, write.relation, kind,
                               statement.line, guard, write.exact))
    return tuple(found)


def analyse(scop: Scop, deps: Dependences, floating: bool = True, accepted=None) -> ReductionDependences | None:
    """The reductions of ``scop`` and their dependences; None when it has none.  ``accepted``: which
    reductions a target can run in parallel (the others' dependences stay as they are)."""
    reductions = tuple(r for r in find(scop, floating) if accepted is None or accepted(r))
    if not reductions:
        return None
    space = scop.context.get_space()
    everything = deps.all
    accesses = scop.reads.union(scop.may_writes)
    carried = isl.UnionMap.empty(space)
    extra = isl.UnionMap.empty(space)
    for r in reductions:
        write = isl.UnionMap.from_map(r.write)
        domain = isl.UnionSet.from_set(r.write.domain())
        same = write.apply_range(write.reverse())  # { S[i] -> S[i'] }: the same element
        mine = everything.intersect_domain(domain).intersect_range(domain).intersect(same)
        carried = carried.union(mine)
        # every later update of the element, in the original order (an over-approximation of the
        # transitive closure of the run's dependences: it can only make fewer loops parallel)
        space_s = r.write.get_space().domain()
        later = same.intersect(isl.UnionMap.from_map(isl.Map.lex_lt(space_s)))
        # dependences through the element: another instance touches the element S writes
        touching = accesses.intersect_range(_elements(r.write)).apply_range(write.reverse())  # { T -> S }
        into = everything.intersect_range(domain).subtract(mine).intersect(touching)
        out_of = everything.intersect_domain(domain).subtract(mine).intersect(touching.reverse())
        extra = extra.union(into.apply_range(later)).union(later.apply_range(out_of))
    coincidence = coalesced(everything.subtract(carried).union(extra))
    return ReductionDependences(reductions, coalesced(carried), coincidence)


def _elements(write: isl.Map) -> isl.UnionSet:
    return isl.UnionSet.from_set(write.range())


def carried_by(node: isl.ScheduleNode, members: int, relation: isl.UnionMap) -> bool:
    """Whether one of the first ``members`` members of band ``node`` carries a dependence of
    ``relation`` between instances of the band at the same outer schedule values."""
    return any(not parallel_member(node, k, relation) for k in range(members))


def parallel_members(node: isl.ScheduleNode, relation: isl.UnionMap) -> int:
    """How many leading members of band ``node`` carry no dependence of ``relation`` (at the same
    values of the outer schedule)."""
    count = 0
    while count < node.band_n_member() and parallel_member(node, count, relation):
        count += 1
    return count


def parallel_member(node: isl.ScheduleNode, member: int, relation: isl.UnionMap) -> bool:
    """Whether member ``member`` of band ``node`` carries no dependence of ``relation`` (at the same values
    of the outer schedule and the members before it), as :func:`polypragma.schedule.mark_coincidence`
    decides a member's coincidence."""
    domain = node.get_domain()
    relevant = relation.intersect_domain(domain).intersect_range(domain)
    if relevant.is_empty():
        return True
    prefix = node.get_prefix_schedule_union_map()
    partial = node.band_get_partial_schedule()
    outer = prefix
    for k in range(member):
        outer = outer.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_at(k)))
    inside = relevant.intersect(outer.apply_range(outer.reverse()))
    mk = isl.UnionMap.from_union_pw_aff(partial.get_at(member))
    distances = inside.apply_domain(mk).apply_range(mk).deltas()
    for s in sets_of(distances):
        zero = isl.Set.universe(s.get_space())
        for d in range(s.dim(isl.dim_type.set)):
            zero = zero.fix_val(isl.dim_type.set, d, isl.Val.zero(s.get_ctx()))
        if not s.is_subset(zero):
            return False
    return True


def statements_carried(node: isl.ScheduleNode, mapped: int, reductions: ReductionDependences,
                       domain: isl.UnionSet) -> tuple[Reduction, ...]:
    """The reductions of the kernel at band ``node`` (instances ``domain``) whose dependences its
    ``mapped`` members carry: their updates come from several threads."""
    out = []
    for r in reductions.reductions:
        mine = isl.UnionSet.from_set(r.write.domain())
        if mine.intersect(domain).is_empty():
            continue
        relation = reductions.carried.intersect_domain(mine).intersect_range(mine)
        if relation.is_empty():
            continue
        if carried_by(node, mapped, relation):
            out.append(r)
    return tuple(out)


