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
"""

from __future__ import annotations

import islpy as isl

from polypragma.isl_helpers import rewrite_bands, sets_of

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
