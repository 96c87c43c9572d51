"""A parallel band extended with the loops of the nest below it, so that a kernel tiles them too.

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

from dataclasses import dataclass

import islpy as isl

from polypragma.gpu.distribute import leading_coincident, statement_names
from polypragma.isl_helpers import any_band, coalesced, rewrite_bands, sets_of, union_of


def extended(schedule: isl.Schedule, done: list | None = None,
             dependences: isl.UnionMap | None = None) -> isl.Schedule:
    """``schedule`` with each band that :func:`_nests` accepts extended with its nests' members; for
    each, (the nests' statements, those before them, those after them) appended to ``done``.  Several
    nests join only where ``dependences`` are given and the joined band keeps every dependence that the
    schedule kept (:func:`_keeps`)."""
    def rewrite(band: isl.ScheduleNode) -> isl.ScheduleNode | None:
        shape = _nests(band, several=dependences is not None)
        if shape is None:
            return None
        joined = _extend(band, shape)
        if joined is None or (len(shape.nests) > 1 and not _keeps(band, joined, dependences)):
            return None
        if done is not None:
            nests = sum((statement_names(n.get_domain()) for n in shape.nests), ())
            done.append((tuple(sorted(nests)), tuple(sorted(shape.before)), tuple(sorted(shape.after))))
        return joined

    return rewrite_bands(schedule, rewrite)


@dataclass
class _Shape:
    """The subtree below a parallel band as statements without loops run ``before`` the nests (band
    nodes, with the path to each from the band's child), the ``nests`` and those run ``after`` them."""

    before: tuple[str, ...] = ()
    nests: tuple[isl.ScheduleNode, ...] = ()
    paths: tuple[tuple[int, ...], ...] = ()
    after: tuple[str, ...] = ()

    def then(self, other: _Shape) -> _Shape | None:
        """This part of a sequence followed by ``other``; None where statements without loops would
        run between two nests."""
        if not self.nests:
            return _Shape(self.before + other.before, other.nests, other.paths, other.after)
        if not other.nests:
            return _Shape(self.before, self.nests, self.paths, self.after + other.before)
        if self.after or other.before:
            return None
        return _Shape(self.before, self.nests + other.nests, self.paths + other.paths, other.after)

    def beside(self, other: _Shape) -> _Shape:
        """This part of a set beside ``other``: the parts share no dependence, so each one's statements
        run before or after all the nests as they run before or after its own."""
        return _Shape(self.before + other.before, self.nests + other.nests, self.paths + other.paths,
                      self.after + other.after)


def _shape(node: isl.ScheduleNode, path: tuple[int, ...]) -> _Shape | None:
    """The shape of the subtree at ``node`` (at ``path`` from the band's child): each nest a band with no
    band below it; None for other nodes (marks, extensions...)."""
    kind = node.get_type()
    if kind == isl.schedule_node_type.band:
        if node.n_children() and any_band(node.child(0)):
            return None
        return _Shape(nests=(node,), paths=(path,))
    if kind == isl.schedule_node_type.leaf:
        return _Shape(before=statement_names(node.get_domain()))
    if kind == isl.schedule_node_type.filter:
        return _shape(node.child(0), path + (0,))
    if kind in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
        out = _Shape()
        for k in range(node.n_children()):
            part = _shape(node.child(k), path + (k,))
            if part is None:
                return None
            out = out.then(part) if kind == isl.schedule_node_type.sequence else out.beside(part)
            if out is None:
                return None
        return out
    return None


def _nests(band: isl.ScheduleNode, several: bool) -> _Shape | None:
    """The shape of the sequence (or set) below band ``band``, where ``band``'s members are all
    parallel and the subtree has one nest (or with ``several``, nests whose bands have as many members,
    with no statement without loops between two of them), each nest's band permutable or of one
    member; None elsewhere."""
    if leading_coincident(band) < band.band_n_member() or band.n_children() != 1:
        return None
    below = band.child(0)
    if below.get_type() not in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
        return None
    shape = _shape(below, ())
    if shape is None or not shape.nests or (len(shape.nests) > 1 and not several):
        return None
    if len({n.band_n_member() for n in shape.nests}) != 1:
        return None
    if any(n.band_n_member() > 1 and not n.band_get_permutable() for n in shape.nests):
        return None
    return shape


def _keeps(before: isl.ScheduleNode, after: isl.ScheduleNode, dependences: isl.UnionMap) -> bool:
    """Whether the schedule of ``after`` runs the source of every dependence between the statements
    below ``before`` ahead of its sink wherever the schedule of ``before`` did (nests that joined
    interleave their steps: a step of the second now runs before the later steps of the first)."""
    statements = before.get_domain()
    inside = dependences.intersect_domain(statements).intersect_range(statements)
    old = before.get_schedule().get_map().intersect_domain(statements)
    new = after.get_schedule().get_map().intersect_domain(statements)
    kept = inside.intersect(old.lex_lt_union_map(old))
    return kept.is_subset(new.lex_lt_union_map(new))


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
    return coalesced(bound.union_add(zero))


def _extend(band: isl.ScheduleNode, shape: _Shape) -> isl.ScheduleNode | None:
    """Band ``band`` joined with the bands of the nests of ``shape`` (see the module's text); None where
    a member of the nests has no bound over their instances."""
    partials = [n.band_get_partial_schedule() for n in shape.nests]
    values = None
    for nest, partial in zip(shape.nests, partials):
        image = isl.UnionMap.from_multi_union_pw_aff(partial).intersect_domain(nest.get_domain()).range()
        values = image if values is None else values.union(image)
    hull = isl.Set.from_basic_set(isl.Set.from_union_set(values).simple_hull())
    domain = band.get_domain()
    before = union_of(isl.UnionSet.from_set(s) for s in sets_of(domain) if s.get_tuple_name() in shape.before)
    after = union_of(isl.UnionSet.from_set(s) for s in sets_of(domain) if s.get_tuple_name() in shape.after)
    members = []
    for m in range(shape.nests[0].band_n_member()):
        try:
            low, high = _total(hull.dim_min(m)), _total(hull.dim_max(m))
        except isl.Error:
            return None
        if low is None or high is None:
            return None
        member = partials[0].get_at(m)
        for partial in partials[1:]:
            member = member.union_add(partial.get_at(m))
        if before is not None:
            member = member.union_add(_constant_on(before, low))
        if after is not None:
            member = member.union_add(_constant_on(after, high))
        members.append(member)
    joined = None
    for member in members:
        piece = isl.MultiUnionPwAff.from_union_pw_aff(member)
        joined = piece if joined is None else joined.flat_range_product(piece)
    outer_members = band.band_n_member()
    whole = band.band_get_partial_schedule().flat_range_product(joined)
    # the nests' bands leave the tree (a deleted band's child takes its place, so the paths to the
    # others stay), and the joined band replaces the outer one
    node = band.child(0)
    for path in shape.paths:
        for k in path:
            node = node.child(k)
        node = node.delete()
        for _ in path:
            node = node.parent()
    node = node.parent().delete().insert_partial_schedule(whole).band_set_permutable(1)
    for m in range(outer_members):
        node = node.band_member_set_coincident(m, 1)
    return node
