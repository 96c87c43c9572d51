"""Distribution of a parallel band over the parallel bands below it, so that a kernel maps them too.

The host/kernel split (:mod:`polypragma.gpu.mapping`) maps the leading parallel members of the first
band with one, at most three.  Where that band's members are all parallel but fewer than three, and
it encloses a sequence of nests that each begin with a parallel loop, the kernel maps the outer loops
only and each thread runs the nests in sequence.  doitgen is the example: after its temporary is
privatised, ``r`` and ``q`` are parallel, and each ``(r, q)`` computes ``sum[p] = A[r][q][:] .
C4[:][p]`` for every ``p`` and then copies ``sum`` into ``A[r][q][:]``.  A thread per ``(r, q)``
walks a row of ``A`` of its own (neighbouring threads ``np`` elements apart) and there are
``nr * nq`` threads only.  Distributed, each nest is a kernel over ``(r, q, p)``: ``p`` on
``threads.x`` reads ``C4[s][p]`` along a row and ``A[r][q][s]`` once a warp.

Distribution is loop fission of the outer members over the sequence (Kennedy and Allen, chapter 5):
legal here because they are parallel.  Every dependence between two instances of the subtree joins
instances with equal values of the outer members, where the sequence orders the nests; the distributed
schedule runs each nest for all values of the outer members before the next nest, which keeps that
order.  Each nest's new band is the outer members followed by its own band's (parallel where they
were: the outer members carry no dependence, so the inner ones carry the same ones as before, and
permutable where the inner band was).

:func:`fission` splits the statements of a subtree into groups run one after another, each group under
a copy of the subtree (loop fission of every loop of it): the mapping (:func:`polypragma.gpu.mapping.
place_kernels`) makes a reduction's statements a kernel of their own, whose reduction loop may then be
spread over threads, when the statements that initialise or read its elements in the same band would
otherwise keep that loop sequential (bicg's ``q[i] = 0`` before ``q[i] += A[i][j] * p[j]``).  Running
each group for every instance of the subtree before the next is legal when no dependence goes from a
later group to an earlier one at the same values of the loops outside the subtree.
"""

from __future__ import annotations

import re

import islpy as isl

from polypragma.isl_helpers import maps_of, rewrite_bands, set_named, sets_of, union_of

# the most members a kernel maps (blocks and threads in x, y and z)
MAPPED = 3


def distributed(schedule: isl.Schedule, done: list | None = None) -> isl.Schedule:
    """``schedule`` with each band that :func:`_distributable` accepts distributed over its nests; for
    each, the statements of every nest (a tuple of names a nest) appended to ``done``."""
    def rewrite(band: isl.ScheduleNode) -> isl.ScheduleNode | None:
        if not _distributable(band):
            return None
        if done is not None:
            sequence = band.child(0)
            done.append(tuple(statement_names(sequence.child(k).filter_get_filter())
                              for k in range(sequence.n_children())))
        return _distribute(band)

    return rewrite_bands(schedule, rewrite)


def statement_names(statements: isl.UnionSet) -> tuple[str, ...]:
    """The names of the statements of ``statements``, sorted."""
    return tuple(sorted(s.get_tuple_name() for s in sets_of(statements)))


def fission(node: isl.ScheduleNode, dependences: isl.UnionMap, core: set[str]) \
        -> tuple[isl.ScheduleNode, tuple[tuple[str, ...], ...]] | None:
    """The subtree at ``node`` as a sequence of copies of it, each for a group of its statements, and the
    statements of each group; None where that is one group.  The groups follow the dependences between the
    statements (``dependences`` at the same values of the outer schedule): the statements of a cycle stay
    together, and the others are ordered so that each dependence goes forward, the fewest times from
    statements of ``core`` to others and back (each group has statements of ``core`` or none)."""
    domain = node.get_domain()
    names = {s.get_tuple_name() for s in sets_of(domain)}
    reach = reachable(names, statement_edges(node, dependences))
    component = {name: frozenset(b for b in reach[name] if name in reach[b]) for name in names}
    left = sorted(set(component.values()), key=lambda c: min(source_order(n) for n in c))
    groups: list[list[str]] = []
    while left:
        # the components whose predecessors have run, one of the current group's kind first
        ready = [c for c in left if not any(c is not d and any(b in c for a in d for b in reach[a]) for d in left)]
        kind = bool(groups) and bool(core & set(groups[-1]))
        chosen = next((c for c in ready if bool(core & c) == kind), ready[0])
        left.remove(chosen)
        if groups and bool(core & chosen) == kind:
            groups[-1].extend(chosen)
        else:
            groups.append(list(chosen))
    if len(groups) < 2:
        return None
    groups = [tuple(sorted(g, key=source_order)) for g in groups]
    return in_sequence(node, groups), tuple(groups)


def in_sequence(node: isl.ScheduleNode, groups) -> isl.ScheduleNode:
    """A sequence inserted above ``node``, a filter for each of ``groups`` (statements' names) in turn, each
    over a copy of the subtree at ``node``: the sequence node."""
    domain = node.get_domain()
    filters = isl.UnionSetList.alloc(node.get_ctx(), len(groups))
    for group in groups:
        filters = filters.add(union_of(isl.UnionSet.from_set(set_named(domain, name)) for name in group))
    return node.insert_sequence(filters)


def statement_edges(node: isl.ScheduleNode, dependences: isl.UnionMap) -> set[tuple[str, str]]:
    """The (source, target) statements of the ``dependences`` between instances of the subtree at ``node``
    at the same values of the schedule outside it."""
    domain = node.get_domain()
    prefix = node.get_prefix_schedule_union_map()
    inside = dependences.intersect_domain(domain).intersect_range(domain) \
        .intersect(prefix.apply_range(prefix.reverse()))
    return {(m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)) for m in maps_of(inside)}


def reachable(names: set[str], edges: set[tuple[str, str]]) -> dict[str, set[str]]:
    """For each of ``names``, the statements a chain of ``edges`` reaches from it, itself included (the
    transitive closure of the statements' graph: a region has few statements)."""
    reach = {name: {name} for name in names}
    changed = True
    while changed:
        changed = False
        for a, b in edges:
            if not reach[b] <= reach[a]:
                reach[a] |= reach[b]
                changed = True
    return reach


def source_order(name: str) -> tuple[tuple[int, ...], str]:
    """Statements in the order of the source (``S_2`` before ``S_10``, ``S_3_part1`` before ``S_3_part2``)."""
    return tuple(int(d) for d in re.findall(r"\d+", name)), name


def leading_coincident(node: isl.ScheduleNode) -> int:
    """How many leading members of band ``node`` are parallel."""
    count = 0
    while count < node.band_n_member() and node.band_member_get_coincident(count):
        count += 1
    return count


def _distributable(node: isl.ScheduleNode) -> bool:
    """Whether band ``node``'s members are all parallel, fewer than a kernel maps, and its child a
    sequence (or set) of at least two nests that each begin with a parallel member: each nest's
    kernel then maps more loops than the band's does, and none is left without one."""
    n = node.band_n_member()
    if n >= MAPPED or leading_coincident(node) < n:
        return False
    child = node.child(0)
    if child.get_type() not in (isl.schedule_node_type.sequence, isl.schedule_node_type.set) \
            or child.n_children() < 2:
        return False
    for k in range(child.n_children()):
        nest = child.child(k).child(0)
        if nest.get_type() != isl.schedule_node_type.band or not leading_coincident(nest):
            return False
    return True


def _distribute(band: isl.ScheduleNode) -> isl.ScheduleNode:
    """Band ``band`` moved below each filter of its sequence and joined with the nest's band there;
    the sequence node in its place."""
    outer = band.band_get_partial_schedule()
    n = band.band_n_member()
    sequence = band.child(0)
    for k in range(sequence.n_children()):
        nest = sequence.child(k).child(0)
        inner = nest.band_get_partial_schedule()
        flags = [True] * n + [nest.band_member_get_coincident(m) for m in range(nest.band_n_member())]
        permutable = nest.band_get_permutable()
        joined = outer.intersect_domain(sequence.child(k).filter_get_filter()).flat_range_product(inner)
        nest = nest.delete().insert_partial_schedule(joined).band_set_permutable(permutable)
        for m, flag in enumerate(flags):
            nest = nest.band_member_set_coincident(m, flag)
        sequence = nest.parent().parent()
    return sequence.parent().delete()
