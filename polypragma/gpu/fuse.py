"""Reductions that read one matrix alike, fused into one kernel that goes through it once.

bicg computes ``s = A^T r`` and ``q = A p``: ``s[j] += r[i] * A[i][j]`` and ``q[i] += A[i][j] * p[j]``.
The scheduler gives each statement a band of its own (``s``'s parallel along ``j``, ``q``'s along ``i``),
and each becomes a kernel that reads all of ``A``: twice the bytes the pair needs, half the memory's
bandwidth at best.  As reductions, both statements may run their instances in any order
(:mod:`polypragma.reductions`), so they move into one band over ``A``'s index space, each instance at
the element of ``A`` it reads (Wolfe's loop fusion, with the reductions' order left free as in Doerfert et
al., IMPACT 2015).  Its kernel maps both members and spreads both reductions over threads
(:mod:`polypragma.gpu.spread`): a thread runs one column of ``A``'s tile along ``x`` and a run of rows
along ``y``, so ``s[j]``'s updates accumulate in its register and ``q[i]``'s are combined by the warp,
whose threads share ``i``.  mvt's ``x1[i] += A[i][j] * y1[j]`` and ``x2[i] += A[j][i] * y2[j]`` are the
same with ``A`` read transposed.  gemver updates ``A[i][j] += u1[i] * v1[j] + u2[i] * v2[j]`` and then
sums ``x[i] += beta * A[j][i] * y[j]``: a statement of no reduction that uses ``A`` alike (each of its
accesses to a matrix the same map to its own element) joins the band, and at each of its points runs
before the sum that reads the element it wrote (the statements' old order where they depend on each
other at a point), so that ``A`` is read and written once instead of read twice and written once.

The statements fused (``R``) are statements of a subtree (a sequence's or a band's), at least two and one
a reduction, that each use the same two-dimensional array ``X`` once per instance, each instance its own
element (an injective access): reductions that read it (and write no other element than their sum), and
statements of no reduction whose accesses to arrays of two or more dimensions are all that one map.  A
statement that needs a value of another of ``R`` through a statement outside it leaves ``R`` (gemver's
``w[i] += alpha * A[i][j] * x[j]``, which reads ``x`` after ``x[i] += z[i]``).  Where the scheduler put
them in one band already, that band may read ``X`` along a row for one and down a column for the other
(mvt's sums, fused by isl as ``(i, j)`` for both): the band over ``X``'s elements reads it alike for both.

The subtree becomes a sequence of three: the statements ``R`` depends on, through any chain of
dependences (``P``, in their old order), then ``R`` in the band, then the others (``Q``, in their old
order), each part under a copy of the subtree.  It is legal when no dependence goes from ``R`` to ``P``
and the band's members carry no dependence but the reductions' own
(:attr:`~polypragma.reductions.ReductionDependences.coincidence`): ``P`` is closed under predecessors, so
nothing of ``Q`` reaches ``P`` or ``R``, and the statements of a point, which share only its element of
``X``, run in an order that keeps their dependences.

Fusion is for sizes where each statement's own kernel would spread its reduction
(:func:`polypragma.gpu.spread.spread_reduction` along either member), and not where the user set tile or
block sizes for all kernels (:attr:`polypragma.gpu.sizes.SizeOptions.may_fuse`) or ``--fusion min``.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polypragma.gpu.distribute import in_sequence, reachable, source_order, statement_edges, statement_names
from polypragma.gpu.spread import member_extent, spread_reduction
from polypragma.isl_helpers import maps_of, set_named, single_map, union_of
from polypragma.reductions import ReductionDependences, parallel_members

# the rank of the array the fused statements read: the band maps each of its dimensions
RANK = 2


@dataclass(frozen=True)
class Fusion:
    """One band of statements fused over the elements of ``array``."""

    statements: tuple[str, ...]
    array: str
    sums: tuple[str, ...]  # the reductions among them


def fused(schedule: isl.Schedule, reads: isl.UnionMap, writes: isl.UnionMap, dependences: isl.UnionMap,
          reductions: ReductionDependences, done: list[Fusion] | None = None) -> isl.Schedule:
    """``schedule`` with the reductions of each subtree that read one array alike in a band of their own,
    with the statements that use the array alike beside them (see the module); each :class:`Fusion`
    appended to ``done``."""
    root = schedule.get_root()
    if root.n_children() == 0:
        return schedule

    def walk(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() in (isl.schedule_node_type.sequence, isl.schedule_node_type.set,
                               isl.schedule_node_type.band):
            found = _fuse(node, reads, writes, dependences, reductions)
            if found is not None:
                node, group = found
                if done is not None:
                    done.append(group)
                return node
        for k in range(node.n_children()):
            node = walk(node.child(k)).parent()
        return node

    return walk(root.child(0)).get_schedule()


def _fuse(node: isl.ScheduleNode, reads: isl.UnionMap, writes: isl.UnionMap, dependences: isl.UnionMap,
          reductions: ReductionDependences) -> tuple[isl.ScheduleNode, Fusion] | None:
    """The subtree at ``node`` (a sequence, or a band above the statements) rewritten with its fused
    statements, and their fusion; None where it has none."""
    domain = node.get_domain()
    names = set(statement_names(domain))
    # the reductions (a statement that updates each element once, A[i][j] = A[i][j] + ..., sums nothing)
    summing = [r for r in reductions.reductions if r.statement in names and not r.write.is_injective()]
    sums: dict[str, set[str]] = {}
    for r in summing:
        if r.exact:
            sums.setdefault(r.statement, set()).add(r.array)
    candidates = _alike(domain, names, reads, writes, sums, {r.statement for r in summing})
    if not candidates:
        return None
    edges = statement_edges(node, dependences)
    reach = reachable(names, edges)
    best = None
    for array in sorted(candidates):
        group = _independent(set(candidates[array]), names, edges, reach)
        if len(group) >= 2 and group & set(sums) and (best is None or len(group) > len(best[1])):
            best = (array, group)
    if best is None:
        return None
    array, group = best
    accesses = candidates[array]
    if _alike_already(node, group, accesses):
        return None  # (their kernel reads the array once as it is)
    order = _in_order(group, edges)
    if order is None:
        return None  # the statements depend on each other both ways
    before = {name for name in names - group if reach[name] & group}
    after = names - group - before
    parts = [part for part in (before, group, after) if part]
    sequence = in_sequence(node, [sorted(part) for part in parts])
    place = parts.index(group)
    band = sequence.child(place).child(0).cut()
    band = band.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(union_of(
        isl.UnionMap.from_map(accesses[n].reset_tuple_id(isl.dim_type.out)) for n in sorted(group))))
    band = band.band_set_permutable(1)
    if any(a in group and b in group and a != b for a, b in edges):
        # a statement uses the value another wrote at the same element: at each point, the old order
        band = in_sequence(band.child(0), [(name,) for name in order]).parent()
    extents = [member_extent(band, d) for d in range(RANK)]
    worth = all(spread_reduction([e for k, e in enumerate(extents) if k != d], [extents[d]]) for d in range(RANK))
    if not worth or parallel_members(band, reductions.coincidence) < RANK:
        return None
    return band.parent().parent(), Fusion(tuple(sorted(group)), array, tuple(sorted(group & set(sums))))


def _alike(domain: isl.UnionSet, names: set[str], reads: isl.UnionMap, writes: isl.UnionMap,
           sums: dict[str, set[str]], reducing: set[str]) -> dict[str, dict[str, isl.Map]]:
    """For each array of RANK dimensions, the statements of ``names`` that use it alike, with their access
    to it: the reductions of ``sums`` (a statement's name -> the arrays it sums into) that read it, and the
    statements of no reduction (not in ``reducing``) whose accesses to arrays of RANK or more dimensions
    are all one map (to this array, or to others alike).  Each access maps an instance to its own element
    (single-valued and injective), from a domain of RANK dimensions."""
    def own(access: isl.Map) -> bool:
        return access.dim(isl.dim_type.out) == RANK and access.dim(isl.dim_type.in_) == RANK \
            and access.is_single_valued() and access.is_injective()

    found: dict[str, dict[str, isl.Map]] = {}
    accesses = reads.union(writes)
    for name in sorted(names):
        instances = isl.UnionSet.from_set(set_named(domain, name))
        if name in sums:
            used = [a for a in maps_of(reads.intersect_domain(instances))
                    if a.get_tuple_name(isl.dim_type.out) not in sums[name] and own(a)]
        elif name not in reducing:
            used = [a for a in maps_of(accesses.intersect_domain(instances))
                    if a.dim(isl.dim_type.out) >= RANK]
            shapes = [a.reset_tuple_id(isl.dim_type.out) for a in used]
            if not all(own(a) for a in used) or any(not shape.is_equal(shapes[0]) for shape in shapes):
                continue
        else:
            continue
        for access in used:
            found.setdefault(access.get_tuple_name(isl.dim_type.out), {})[name] = access
    return found


def _alike_already(node: isl.ScheduleNode, group: set[str], accesses: dict[str, isl.Map]) -> bool:
    """Whether a band below ``node`` over all the statements of ``group`` already places them at the
    elements they use alike: its first RANK members give each element of the array the same point for
    each of them (statements isl fused in their loop nest, ``W[i][j] = G[i][j] * c; live += G[i][j]``)."""
    domain = node.get_domain()
    instances = union_of(isl.UnionSet.from_set(set_named(domain, name)) for name in sorted(group))
    found = []

    def visit(below: isl.ScheduleNode) -> bool:
        if below.get_type() != isl.schedule_node_type.band or below.band_n_member() < RANK \
                or not instances.is_subset(below.get_domain()):
            return True
        partial = below.band_get_partial_schedule_union_map()
        points = []
        for name in sorted(group):
            member = single_map(partial.intersect_domain(isl.UnionSet.from_set(set_named(domain, name))))
            member = member.project_out(isl.dim_type.out, RANK, member.dim(isl.dim_type.out) - RANK)
            points.append(accesses[name].reverse().apply_range(member))
        found.append(all(p.is_equal(points[0]) for p in points))
        return True

    node.foreach_descendant_top_down(visit)
    return any(found)


def _independent(group: set[str], names: set[str], edges: set[tuple[str, str]],
                 reach: dict[str, set[str]]) -> set[str]:
    """``group`` less the statements that need a value of another of it through a statement outside it
    (that statement would have to run between them)."""
    while True:
        needed = {name for name in names - group if reach[name] & group}
        late = set().union(*(reach[b] & group for a, b in edges if a in group and b in needed))
        if not late:
            return group
        group = group - late


def _in_order(group: set[str], edges: set[tuple[str, str]]) -> list[str] | None:
    """The statements of ``group`` in an order that keeps their dependences (the source's where they
    have none); None where they depend on each other both ways."""
    left = sorted(group, key=source_order)
    order = []
    while left:
        ready = [n for n in left if not any(a in left and a != n and b == n for a, b in edges)]
        if not ready:
            return None
        order.append(ready[0])
        left.remove(ready[0])
    return order


def fused_statements(done: list[Fusion]) -> set[frozenset[str]]:
    """The statements of each fused band of ``done``."""
    return {frozenset(f.statements) for f in done}
