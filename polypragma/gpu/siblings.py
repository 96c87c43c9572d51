"""Independent parallel nests side by side in a sequence, merged into one kernel.

fdtd-2d updates ``ex[i][j] -= 0.5 * (hz[i][j] - hz[i][j - 1])`` and then ``ey[i][j] -= 0.5 * (hz[i][j] -
hz[i - 1][j])`` in each time step.  Neither reads what the other writes, and the scheduler leaves them two
nests, each a band of parallel loops: two kernels, each reading all of ``hz``.  In one band over both
(the union of their schedules, each statement's instance at its own point, Wolfe's loop fusion), a block
reads its tile of ``hz`` once for both, and one launch does the work of two.

Children of a sequence (a run of neighbours) or of a set (isl's independent components, in any order)
merge where each is a band of the same members, parallel (coincident) alike and the outer one parallel,
with nothing below it (the whole nest), no dependence joins their statements at the same values of the
schedule outside them, and each reads elements of an array another reads at the same points, all over
them (the bytes saved: not mvt's ``A[i][j]`` and ``A[j][i]`` at ``(i, j)``), or all are one-dimensional
(a launch saved: bicg's ``s[j] = 0`` and ``q[i] = 1``).  Nests parallel along different members stay
apart: the kernel of both would map only the members parallel in both.  The band keeps each one's
schedule: the instances of one statement keep their order, and those of two, independent, may run in any
order, so a member parallel in each is parallel in the band.  Below it, each point runs its
statements in their old order.  One group merges in each sequence or set (the first found).

Not with ``--fusion min``.
"""

from __future__ import annotations

import islpy as isl

from polypragma.gpu.distribute import in_sequence, statement_edges, statement_names
from polypragma.isl_helpers import maps_of, sets_of, union_of

# the loops of the nests merged without an array in common (a launch saved): one, a vector's
LAUNCH_ONLY_DIMENSIONS = 1


def merged_siblings(schedule: isl.Schedule, reads: isl.UnionMap, dependences: isl.UnionMap,
                    done: list | None = None) -> isl.Schedule:
    """``schedule`` with the independent parallel nests of each sequence or set merged (see the module);
    for each merge, (each nest's statements, the arrays they all read) appended to ``done``."""
    root = schedule.get_root()
    if root.n_children() == 0:
        return schedule

    def walk(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
            merged = _merge_one(node, reads, dependences)
            if merged is not None:
                node, group = merged
                if done is not None:
                    done.append(group)
        for k in range(node.n_children()):
            node = walk(node.child(k)).parent()
        return node

    return walk(root.child(0)).get_schedule()


def _nest(child: isl.ScheduleNode) -> isl.ScheduleNode | None:
    """The band below the filter ``child`` where it is a whole nest whose outer loop is parallel; None
    elsewhere."""
    if child.n_children() != 1:
        return None
    band = child.child(0)
    if band.get_type() != isl.schedule_node_type.band or band.n_children() != 1 \
            or band.child(0).get_type() != isl.schedule_node_type.leaf:
        return None
    return band if band.band_member_get_coincident(0) else None


def _dimensions(domain: isl.UnionSet) -> int:
    """The most loops around a statement of ``domain``."""
    return max(d.dim(isl.dim_type.set) for d in sets_of(domain))


def _arrays_read(statements: set[str], reads: isl.UnionMap) -> set[str]:
    """The arrays (not scalars) that ``statements`` read."""
    return {m.get_tuple_name(isl.dim_type.out) for m in maps_of(reads)
            if m.get_tuple_name(isl.dim_type.in_) in statements and m.dim(isl.dim_type.out) > 0}


def _merge_one(node: isl.ScheduleNode, reads: isl.UnionMap, dependences: isl.UnionMap) \
        -> tuple[isl.ScheduleNode, tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]] | None:
    """The sequence or set at ``node`` with its first group of mergeable children merged (the new
    sequence node above it), and (each nest's statements, the arrays they read in common); None where
    none merges."""
    children = [node.child(k) for k in range(node.n_children())]
    nests = [_nest(c) for c in children]
    if sum(n is not None for n in nests) < 2:
        return None
    groups = [set(statement_names(c.child(0).get_domain())) for c in children]  # (below each filter)
    read_by = [_arrays_read(g, reads) for g in groups]
    narrow = [n is not None and _dimensions(c.child(0).get_domain()) <= LAUNCH_ONLY_DIMENSIONS
              for c, n in zip(children, nests)]
    ordered = node.get_type() == isl.schedule_node_type.sequence
    present = [k for k, g in enumerate(groups) if g]  # (a copy of a sequence may keep empty filters)
    edges = statement_edges(node, dependences)

    def shape(k: int) -> tuple[int, ...]:
        band = nests[k]
        return tuple(band.band_member_get_coincident(d) for d in range(band.band_n_member()))

    def joins(k: int, merged: list[int]) -> bool:
        """Whether child k merges with those of ``merged``."""
        if nests[k] is None or shape(k) != shape(merged[0]):
            return False
        if any((a in groups[k] and b in groups[j]) or (a in groups[j] and b in groups[k])
               for a, b in edges for j in merged):
            return False
        return any(_reused(nests[k], nests[j], array, reads) for j in merged
                   for array in read_by[k] & read_by[j]) or all(narrow[j] for j in merged + [k])

    for start, k in enumerate(present):
        if nests[k] is None:
            continue
        merged = [k]
        for m in present[start + 1:]:
            if joins(m, merged):
                merged.append(m)
            elif ordered:
                break  # (in a sequence, a run of neighbours)
        if len(merged) > 1:
            common = set.intersection(*(read_by[j] for j in merged))
            return _merged(node, present, merged, groups, nests), (
                tuple(tuple(sorted(groups[j])) for j in merged), tuple(sorted(common)))
    return None


def _reused(one: isl.ScheduleNode, other: isl.ScheduleNode, array: str, reads: isl.UnionMap) -> bool:
    """Whether the bands ``one`` and ``other`` read the same elements of ``array`` at the same points, all
    over their points (fdtd's ``hz[i][j]`` at ``(i, j)`` in both), not on a slice of them only (mvt's
    ``A[i][j]`` and ``A[j][i]`` at ``(i, j)``, one element on the diagonal)."""
    def elements(band: isl.ScheduleNode) -> isl.UnionMap:
        partial = band.band_get_partial_schedule_union_map()
        read = reads.intersect_domain(partial.domain())
        read = union_of(isl.UnionMap.from_map(m) for m in maps_of(read)
                        if m.get_tuple_name(isl.dim_type.out) == array)
        return partial.reverse().apply_range(read)

    both = elements(one).intersect(elements(other))
    if both.is_empty():
        return False
    points = isl.Set.from_union_set(both.domain())
    hull = isl.Set.from_basic_set(points.affine_hull())
    return not hull.involves_dims(isl.dim_type.set, 0, hull.dim(isl.dim_type.set))


def _merged(node: isl.ScheduleNode, present: list[int], merged: list[int], groups: list[set[str]],
            nests: list) -> isl.ScheduleNode:
    """The sequence or set at ``node`` with the children ``merged`` in one band: a sequence above it, a
    part for each child of ``present`` but the merged ones after the first, which stands for them all."""
    schedule = nests[merged[0]].band_get_partial_schedule()
    for j in merged[1:]:
        schedule = schedule.union_add(nests[j].band_get_partial_schedule())
    together = set().union(*(groups[j] for j in merged))
    parts = [sorted(together if j == merged[0] else groups[j]) for j in present if j not in merged[1:]]
    sequence = in_sequence(node, parts)
    # the merged part: its copy of the old sequence keeps the merged children, whose bands go; one band
    # over them all comes above it
    inner = sequence.child(parts.index(sorted(together))).child(0)
    for j in range(inner.n_children()):
        below = inner.child(j).child(0)
        if below.get_type() == isl.schedule_node_type.band:
            inner = below.delete().parent().parent()
    band = inner.insert_partial_schedule(schedule)
    band = band.band_set_permutable(int(all(nests[j].band_get_permutable() for j in merged)))
    for d in range(band.band_n_member()):
        band = band.band_member_set_coincident(d, nests[merged[0]].band_member_get_coincident(d))
    return band.parent().parent()
