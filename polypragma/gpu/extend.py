"""A parallel band extended with the loops of the one nest below it, so that a kernel tiles them too.

Users write a matrix product with a local accumulator::

    for (i ...) for (j ...) { double sum = 0; for (k ...) sum += A[i][k] * B[k][j]; C[i][j] = sum; }

isl schedules it as a band of the parallel ``i, j`` over a sequence: the reset, the band of ``k``, the
store.  The kernel maps ``i`` and ``j``, but ``k`` is no member of its band, so no tile of ``k``
bounds what a block reads: ``A`` and ``B`` stay in global memory, a thread walks a row of ``A`` of its
own, and the register tiles of a matrix product never form (PolyBench's ``gemm``, whose ``C`` is
updated in place, gets a band ``i, j, k``).

Extended, the band is ``i, j, k'``, with ``k' = k`` for the loop's statement, the smallest ``k`` for
the statements before it in the sequence and the largest for those after
(:func:`polypragma.gpu.mapping.build_kernel` then tiles ``k'`` for shared memory as it tiles a matrix
product's ``k``, its tiles starting where ``k``'s do).  Every instance keeps its order relative to the
others of its ``i, j``: before, the reset, every ``k`` in order and the store; now ``k'`` orders them
the same way, and the sequence below the band, which stays, orders the statements that share a value
of ``k'`` (the reset before the first ``k``, the store after the last).  The outer members are parallel
and carry no dependence, so nothing else changes.  With several members in the nest's band, it must
be permutable, and the statements before and after take the smallest and the largest value of each
member, so that they stay first and last in any order of its tiles.
"""

from __future__ import annotations

import islpy as isl

from polypragma.gpu.distribute import leading_coincident, statement_names
from polypragma.isl_helpers import any_band, rewrite_bands, sets_of


def extended(schedule: isl.Schedule, done: list | None = None) -> isl.Schedule:
    """``schedule`` with each band that :func:`_nest` accepts extended with its nest's members; for
    each, (the nest's statements, those before it, those after it) appended to ``done``."""
    def rewrite(band: isl.ScheduleNode) -> isl.ScheduleNode | None:
        nest = _nest(band)
        if nest is None:
            return None
        sequence = band.child(0)
        names = [statement_names(sequence.child(k).filter_get_filter()) for k in range(sequence.n_children())]
        joined = _extend(band, nest)
        if joined is not None and done is not None:
            done.append((names[nest], sum(names[:nest], ()), sum(names[nest + 1:], ())))
        return joined

    return rewrite_bands(schedule, rewrite)


def _nest(band: isl.ScheduleNode) -> int | None:
    """The position in the sequence below band ``band`` of the one filter whose child is a band (the
    nest), where ``band``'s members are all parallel, the others hold no loop, and the nest's band is
    permutable or has one member; None elsewhere."""
    if leading_coincident(band) < band.band_n_member() or band.n_children() != 1:
        return None
    sequence = band.child(0)
    if sequence.get_type() != isl.schedule_node_type.sequence:
        return None
    nests = [k for k in range(sequence.n_children()) if any_band(sequence.child(k))]
    if len(nests) != 1:
        return None
    inner = sequence.child(nests[0]).child(0)
    if inner.get_type() != isl.schedule_node_type.band:
        return None
    if inner.band_n_member() > 1 and not inner.band_get_permutable():
        return None
    return nests[0]


def _constant_on(domain: isl.UnionSet, value: isl.PwAff) -> isl.UnionPwAff:
    """``value`` (an expression of the parameters) on every statement of ``domain``."""
    out = None
    for s in sets_of(domain):
        s = s.align_params(value.get_space())
        aligned = value.align_params(s.get_space())
        space = isl.Space.map_from_domain_and_range(s.get_space(), aligned.get_domain_space())
        piece = isl.UnionPwAff.from_pw_aff(aligned.pullback_multi_aff(isl.MultiAff.zero(space)).intersect_domain(s))
        out = piece if out is None else out.union_add(piece)
    return out


def _total(bound: isl.PwAff) -> isl.PwAff | None:
    """``bound`` (an expression of the parameters) defined for every value of the parameters: 0 where
    it was not (the nest has no instance there, so any value keeps the order); None where it is
    unbounded."""
    if bound.involves_nan():
        return None
    rest = bound.domain().complement()
    if rest.is_empty():
        return bound
    zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(rest.get_space())).intersect_domain(rest)
    return bound.union_add(zero).coalesce()


def _extend(band: isl.ScheduleNode, position: int) -> isl.ScheduleNode | None:
    """Band ``band`` joined with the band of the nest at ``position`` of its sequence (see the module's
    text); None where a member of the nest has no bound over its instances."""
    sequence = band.child(0)
    inner = sequence.child(position).child(0)
    partial = inner.band_get_partial_schedule()
    n = inner.band_n_member()
    values = isl.UnionMap.from_multi_union_pw_aff(partial).intersect_domain(inner.get_domain()).range()
    hull = isl.Set.from_basic_set(isl.Set.from_union_set(values).simple_hull())
    before_domain = after_domain = None
    for k in range(sequence.n_children()):
        if k == position:
            continue
        statements = sequence.child(k).filter_get_filter()
        if k < position:
            before_domain = statements if before_domain is None else before_domain.union(statements)
        else:
            after_domain = statements if after_domain is None else after_domain.union(statements)
    members = []
    for m in range(n):
        try:
            low, high = _total(hull.dim_min(m)), _total(hull.dim_max(m))
        except isl.Error:
            return None
        if low is None or high is None:
            return None
        member = partial.get_at(m)
        if before_domain is not None:
            member = member.union_add(_constant_on(before_domain, low))
        if after_domain is not None:
            member = member.union_add(_constant_on(after_domain, high))
        members.append(member)
    joined = None
    for member in members:
        piece = isl.MultiUnionPwAff.from_union_pw_aff(member)
        joined = piece if joined is None else joined.flat_range_product(piece)
    outer_members = band.band_n_member()
    whole = band.band_get_partial_schedule().flat_range_product(joined)
    # the nest's band leaves the tree, and the joined band replaces the outer one
    node = inner.delete().parent().parent().parent()
    node = node.delete().insert_partial_schedule(whole).band_set_permutable(1)
    for m in range(outer_members):
        node = node.band_member_set_coincident(m, 1)
    return node
