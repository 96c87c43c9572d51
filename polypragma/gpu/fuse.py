"""Reductions that read one matrix alike, fused into one kernel that reads it once.

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
same with ``A`` read transposed.

The statements fused (``R``) are reduction statements of a subtree (a sequence's or a band's), at least two,
that each read the same two-dimensional array ``X`` once per instance, each instance its own element (an
injective access), and write no other element than their sum.  Where the scheduler put them in one band
already, that band may read ``X`` along a row for one and down a column for the other (mvt's sums, fused
by isl as ``(i, j)`` for both): the band over ``X``'s elements reads it alike for both.  The subtree becomes a sequence of three:
the statements ``R`` depends on, through any chain of dependences (``P``, in their old order), then ``R``
in the band, then the others (``Q``, in their old order), each part under a copy of the subtree.  It is legal when no dependence goes from ``R``
to ``P`` and the band's members carry no dependence but the reductions' own
(:attr:`~polypragma.reductions.ReductionDependences.coincidence`): ``P`` is closed under predecessors, so
nothing of ``Q`` reaches ``P`` or ``R``.

Fusion is for sizes where each statement's own kernel would spread its reduction
(:func:`polypragma.gpu.spread.spread_reduction` along either member), and not where the user set tile or
block sizes for all kernels (:attr:`polypragma.gpu.sizes.SizeOptions.may_fuse`) or ``--fusion min``.
"""

from __future__ import annotations

import islpy as isl

from polypragma.gpu.distribute import in_sequence, reachable, statement_edges, statement_names
from polypragma.gpu.spread import member_extent, spread_reduction
from polypragma.isl_helpers import maps_of, set_named, union_of
from polypragma.reductions import ReductionDependences, parallel_members

# the rank of the array the fused statements read: the band maps each of its dimensions
RANK = 2


def fused(schedule: isl.Schedule, reads: isl.UnionMap, dependences: isl.UnionMap,
          reductions: ReductionDependences, done: list | None = None) -> isl.Schedule:
    """``schedule`` with the reductions of each subtree that read one array alike in a band of their own
    (see the module); for each fusion, (the statements fused, the array) appended to ``done``."""
    root = schedule.get_root()
    if root.n_children() == 0:
        return schedule

    def walk(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() in (isl.schedule_node_type.sequence, isl.schedule_node_type.set,
                               isl.schedule_node_type.band):
            found = _fuse(node, reads, dependences, reductions)
            if found is not None:
                node, group = found
                if done is not None:
                    done.append(group)
                return node
        for k in range(node.n_children()):
            node = walk(node.child(k)).parent()
        return node

    return walk(root.child(0)).get_schedule()


def _fuse(node: isl.ScheduleNode, reads: isl.UnionMap, dependences: isl.UnionMap,
          reductions: ReductionDependences) -> tuple[isl.ScheduleNode, tuple[tuple[str, ...], str]] | None:
    """The subtree at ``node`` (a sequence, or a band above the statements) rewritten with its fused
    reductions, and (their statements, the array); None where it has none."""
    domain = node.get_domain()
    names = set(statement_names(domain))
    chosen = _shared_reads(domain, names, reads, reductions)
    if chosen is None:
        return None
    array, accesses = chosen
    fused_names = set(accesses)
    edges = statement_edges(node, dependences)
    reach = reachable(names, edges)
    before = {name for name in names - fused_names if reach[name] & fused_names}
    if any(a in fused_names and b in before for a, b in edges):
        return None  # a value of the reductions feeds a statement they need: they cannot run together
    after = names - fused_names - before
    parts = [part for part in (before, fused_names, after) if part]
    sequence = in_sequence(node, [sorted(part) for part in parts])
    place = parts.index(fused_names)
    band = sequence.child(place).child(0).cut()
    band = band.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(union_of(
        isl.UnionMap.from_map(accesses[n].reset_tuple_id(isl.dim_type.out)) for n in sorted(fused_names))))
    band = band.band_set_permutable(1)
    extents = [member_extent(band, d) for d in range(RANK)]
    worth = all(spread_reduction([e for k, e in enumerate(extents) if k != d], [extents[d]]) for d in range(RANK))
    if not worth or parallel_members(band, reductions.coincidence) < RANK:
        return None
    return band.parent().parent(), (tuple(sorted(fused_names)), array)


def _shared_reads(domain: isl.UnionSet, names: set[str], reads: isl.UnionMap,
                  reductions: ReductionDependences) -> tuple[str, dict[str, isl.Map]] | None:
    """The array of RANK dimensions read alike by the most reduction statements of ``names`` (at least two),
    with each statement's access to it; None where none is."""
    readers: dict[str, dict[str, isl.Map]] = {}
    for r in reductions.reductions:
        if r.statement not in names or not r.exact:
            continue
        instances = isl.UnionSet.from_set(set_named(domain, r.statement))
        for access in maps_of(reads.intersect_domain(instances)):
            array = access.get_tuple_name(isl.dim_type.out)
            if array == r.array or access.dim(isl.dim_type.out) != RANK \
                    or access.dim(isl.dim_type.in_) != RANK \
                    or not access.is_single_valued() or not access.is_injective():
                continue
            readers.setdefault(array, {})[r.statement] = access
    best = None
    for array in sorted(readers):
        accesses = readers[array]
        if len(accesses) >= 2 and (best is None or len(accesses) > len(best[1])):
            best = (array, accesses)
    return best


def fused_statements(done: list) -> set[frozenset[str]]:
    """The statements of each fused band of ``done`` (as :func:`fused` fills it)."""
    return {frozenset(names) for names, _ in done}
