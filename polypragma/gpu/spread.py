"""Kernels mapped beyond their parallel loops, for their reductions.

A loop whose only dependences are a reduction's accumulations may run in parallel (:mod:`polypragma.
reductions`).  Where no loop of a subtree is parallel, such loops are its kernel's (:func:`merged` joins
the bands the scheduler separated for them).  Where the parallel loops are too few to fill the device
(a matrix-vector product's rows), the reduction loop right inside them is mapped too (:func:`spread_band`):
each thread accumulates its run of updates of an element in a register and merges it into the element
with one atomic update.  The statements that initialise or use the sums in the same band (bicg's
``q[i] = 0``) would keep that loop sequential; they are split into kernels of their own first
(:func:`polypragma.gpu.distribute.fission`).
"""

from __future__ import annotations

import math

import islpy as isl

from polypragma.gpu.distribute import MAPPED, fission, leading_coincident
from polypragma.isl_helpers import maps_of, range_dims
from polypragma.reductions import Reduction, ReductionDependences


def spread_band(node: isl.ScheduleNode, lead: int, reduction_lead, reductions: ReductionDependences) \
        -> tuple[isl.ScheduleNode, int, tuple[tuple[str, ...], ...]] | None:
    """Band ``node``, whose ``lead`` leading members are parallel (fewer than MAPPED), where its reductions
    spread over threads: (the band, how many members more it maps, ()) where they do as it stands
    (:func:`_spread`); (a sequence of kernels' subtrees, 0, the statements of each) where they do once the
    band is split (:func:`_split`); None where they do not (``reduction_lead`` of a band: how many of its
    leading members are parallel as reductions)."""
    if not _accumulating(node, lead, reductions):
        return None
    node, extra = _spread(node, lead, reduction_lead, _exact_reductions(node, reductions))
    if extra:
        return node, extra, ()
    split = _split(node, lead, reduction_lead, reductions)
    return None if split is None else (split[0], 0, split[1])


def merged(node: isl.ScheduleNode, parallel) -> isl.ScheduleNode:
    """Band ``node`` with the leading members of the band right inside it joined to it, while all its
    members and some of the inner band's are ``parallel`` (how many leading members are) and fewer than
    MAPPED: the same order of execution, in one band, so more loops map to threads.  A reduction over
    ``(i, j)`` gets a band of ``i`` and one of ``j`` from the scheduler (the accumulation orders ``j``
    against the next ``i``); with the reduction's order free, both may map, ``j`` on ``threads.x``
    (neighbouring threads read neighbouring elements: coalesced)."""
    while node.band_n_member() < MAPPED and parallel(node) == node.band_n_member() and node.n_children() == 1 \
            and node.child(0).get_type() == isl.schedule_node_type.band:
        inner = node.child(0)
        count = min(parallel(inner), MAPPED - node.band_n_member())
        if count == 0:
            break
        node = _joined(node, inner, count)
    return node


def _joined(node: isl.ScheduleNode, inner: isl.ScheduleNode, count: int) -> isl.ScheduleNode:
    """Band ``node`` with the ``count`` leading members of ``inner``, the band right inside it, joined to
    it (the same order of execution), every member coincident."""
    if count < inner.band_n_member():
        inner = inner.band_split(count)
    combined = node.band_get_partial_schedule().flat_range_product(inner.band_get_partial_schedule())
    node = inner.delete().parent().delete().insert_partial_schedule(combined)
    for k in range(combined.dim(isl.dim_type.set)):
        node = node.band_member_set_coincident(k, True)
    return node


# threads a device holds at once (an H100 or H200: 132 multiprocessors of 2048 threads): a kernel whose
# parallel loops give fewer leaves multiprocessors idle, and too few loads in flight to reach the memory's
# bandwidth (Little's law)
DEVICE_THREADS = 132 * 2048
# the extent a loop is taken to have where no constant bounds it (the parameters are unknown when the code
# is made): a matrix-vector product's vector, of some thousands, so that one such parallel loop (times
# at most 65 points of constant loops) counts as too few threads, and two as enough
UNKNOWN_EXTENT = 4096
# the fewest points of the reduction loops, as counted alike, worth spreading over threads: a short
# constant reduction (a 3x3 stencil's) stays in each thread
SPREAD_MIN_EXTENT = 64


def member_extent(node: isl.ScheduleNode, member: int) -> int | None:
    """The number of values member ``member`` of band ``node`` takes over its instances, where a constant
    bounds it whatever the parameters and outer loops; None otherwise."""
    partial = node.band_get_partial_schedule().get_at(member)
    values = isl.UnionMap.from_union_pw_aff(partial).intersect_domain(node.get_domain()).range()
    if values.is_empty():
        return 0
    try:
        s = isl.Set.from_union_set(values)
        s = s.project_out(isl.dim_type.param, 0, s.dim(isl.dim_type.param))
        if not s.is_bounded():
            return None
        low, high = s.dim_min_val(0), s.dim_max_val(0)
    except isl.Error:
        return None
    if not (low.is_int() and high.is_int()):
        return None
    return int(high.sub(low).to_python()) + 1


def _points(extents: list[int | None]) -> int:
    return math.prod(UNKNOWN_EXTENT if e is None else e for e in extents)


def spread_reduction(parallel: list[int | None], reduction: list[int | None]) -> bool:
    """Whether a kernel whose parallel loops have the extents ``parallel`` (None: no constant bounds it)
    maps the reduction loops right inside them, of extents ``reduction``, to threads too: when the
    parallel loops give fewer threads than the device holds (:data:`DEVICE_THREADS`, a loop without a
    constant bound counted as :data:`UNKNOWN_EXTENT`: one such loop is too few, two are enough) and the
    reduction loops have at least :data:`SPREAD_MIN_EXTENT` points, counted alike."""
    return _points(parallel) < DEVICE_THREADS and _points(reduction) >= SPREAD_MIN_EXTENT


# a data-chosen reduction is spread only under parallel loops of fewer iterations than this, all known: fewer
# threads than a warp per multiprocessor, where its atomic updates are the only parallelism there is (a
# histogram per row of 5 rows of 8,000,000 elements, tests/kernels/reduction_data.c: 407 ms in 5 threads,
# 13 ms spread, on an H200)
FEW_THREADS = 132 * 32


def _few_threads(parallel: list[int | None]) -> bool:
    """Whether parallel loops of extents ``parallel`` are all known and have fewer points together than
    :data:`FEW_THREADS`."""
    return None not in parallel and math.prod(parallel) < FEW_THREADS


def _exact_reductions(node: isl.ScheduleNode, reductions: ReductionDependences) -> bool:
    """Whether every reduction of the subtree at ``node`` knows the element each update writes: spread over
    threads, each thread then accumulates its runs of updates in a register; one whose subscript depends
    on data would make every update atomic, slower than its sum in order in one thread unless that thread
    is one of very few (:func:`_few_threads`)."""
    return all(r.exact for r in _reductions_in(node, reductions))


def _reductions_in(node: isl.ScheduleNode, reductions: ReductionDependences) -> list[Reduction]:
    """The reductions with instances in the subtree at ``node``."""
    domain = node.get_domain()
    return [r for r in reductions.reductions if not isl.UnionSet.from_set(r.write.domain()).intersect(domain).is_empty()]


def _spread(node: isl.ScheduleNode, lead: int, reduction_lead, exact: bool) -> tuple[isl.ScheduleNode, int]:
    """Band ``node``, whose ``lead`` leading members are parallel (and fewer than MAPPED), with the member
    right inside them made coincident where it is parallel as a reduction (``reduction_lead`` of a band:
    how many of its leading members are) and :func:`spread_reduction` says it maps, its reductions
    ``exact`` (:func:`_exact_reductions`) or its parallel loops few (:func:`_few_threads`), in the band (the
    leading member of the band right inside it joined to it where the band has no other), and 1; (node,
    0) otherwise."""
    n = node.band_n_member()
    if n > lead:
        inner = node.band_split(lead).child(0)
    elif node.n_children() == 1 and node.child(0).get_type() == isl.schedule_node_type.band:
        inner = node.child(0)
    else:
        return node, 0
    # (one loop: a thread runs SPREAD_POINTS of it, any further reduction loop in sequence inside them)
    count = min(reduction_lead(inner), MAPPED - lead, 1)
    if count == 0:
        return node, 0
    parallel = [member_extent(node, k) for k in range(lead)]
    reduction = [member_extent(inner, k) for k in range(count)]
    if not spread_reduction(parallel, reduction) or not (exact or _few_threads(parallel)):
        return node, 0
    if n == lead:  # join the inner band's members to the band
        return _joined(node, inner, count), count
    for k in range(lead + count):
        node = node.band_member_set_coincident(k, True)
    return node, count


def _split(node: isl.ScheduleNode, lead: int, reduction_lead, reductions: ReductionDependences) \
        -> tuple[isl.ScheduleNode, tuple[tuple[str, ...], ...]] | None:
    """Band ``node`` (``lead`` leading members parallel, its reductions not spread as it stands) split
    into kernels of its reduction statements and kernels of the others (:func:`polypragma.gpu.distribute.
    fission`), where each kernel of reductions then spreads them (:func:`_spread`); with the statements of
    each kernel.  None otherwise."""
    core = _accumulating(node, lead, reductions)
    split = fission(node, reductions.coincidence.union(reductions.carried), core)
    if split is None:
        return None
    sequence, groups = split
    for k, group in enumerate(groups):
        band = sequence.child(k).child(0)
        if core & set(group) and (band.get_type() != isl.schedule_node_type.band or leading_coincident(band) != lead
                                  or not _spread(band, lead, reduction_lead, _exact_reductions(band, reductions))[1]):
            return None
    return sequence, groups


def _accumulating(node: isl.ScheduleNode, lead: int, reductions: ReductionDependences) -> set[str]:
    """The reduction statements of band ``node``'s subtree that update an element several times in an
    iteration of its ``lead`` leading members (a loop inside them runs the updates): those a spread
    maps.  ``x[i] += z[i]`` after gemver's ``x[i] += beta * A[j][i] * y[j]`` updates it once, and keeps
    to its own kernel."""
    outer = range_dims(isl.UnionMap.from_multi_union_pw_aff(node.band_get_partial_schedule())
                       .intersect_domain(node.get_domain()), 0, lead)
    names = {r.statement for r in _reductions_in(node, reductions)}
    return {m.get_tuple_name(isl.dim_type.in_) for m in maps_of(outer)
            if m.get_tuple_name(isl.dim_type.in_) in names and not m.is_injective()}
