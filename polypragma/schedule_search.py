"""The schedule of a region, and the variants of its program tried after it (the driver's schedule step).

First isl's schedule of the region (:func:`polypragma.schedule.compute_schedule`), with the temporaries
privatised along the parallel loops that carry their anti and output dependences
(:mod:`polypragma.privatise`); then, for the GPU targets, its scalar temporaries split into webs and
expanded along the source's loops; then, for the GPU targets and OpenMP, its statements split into
pieces (:mod:`polypragma.index_sets`).  A variant is kept only where fewer loops run in sequence outside
the parallel ones, and all of them share the region's ``--schedule-timeout``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import NamedTuple

import islpy as isl

from polypragma import dependences as dependence_analysis
from polypragma import index_sets, privatise
from polypragma import reductions as reduction_analysis
from polypragma.dependences import Dependences
from polypragma.model import Scop
from polypragma.scan import Region
from polypragma.schedule import (ScheduleOptions, ScheduleResult, compute_schedule, mark_coincidence,
                                 sequential_outside)


class Scheduled(NamedTuple):
    """What :func:`schedule_region` hands the GPU stage and the c target: the schedule, and the model
    and its dependences it schedules (rewritten where temporaries were privatised or expanded, or
    statements split), the privatised arrays, and the notes for --explain."""

    result: ScheduleResult
    scop: Scop
    deps: Dependences
    privatised: tuple
    notes: tuple


# schedules tried with scalars expanded along the source's loops, each without the copies of the
# statements the one before made less parallel
EXPANSION_TRIES = 3


def schedule_region(scop: Scop, deps: Dependences, options: ScheduleOptions, *, gpu: bool, openmp: bool,
                    floating_reductions: bool, log, region: Region) -> Scheduled:
    """The schedule, with live-range reordering and, for the GPU targets (``gpu``) and OpenMP, the temporaries privatised
    along the parallel loops that carry their anti and output dependences (polypragma.privatise):
    (schedule result, model, dependences, privatised arrays, notes for --explain).  The model and the
    dependences are the rewritten ones when arrays were privatised or statements split; the parallel
    members are then those that carry no dependence of the rewritten program.

    Where that schedule keeps loops sequential outside the parallel ones, the GPU targets also try the
    scalar temporaries expanded along the loops of the source whose iterations each use their own values
    (privatise.along_loops, atax's ``s``); the expanded program is scheduled the same way and kept
    when fewer loops run sequentially outside the parallel ones, and isl finds that it computes what
    the original does.  ``floating_reductions``: a loop whose only dependences are floating-point
    reductions counts as parallel when the variants are compared; ``log(stage, message)``: the lines of
    -v."""
    schedule_options = options
    # --schedule-timeout is the region's: the schedules tried after the first (scalars expanded, statements
    # split) get what the first left, and none starts with less than half of it left, as each first
    # analyses its program again, unbounded (differential program 8843, c --fusion=min --openmp,
    # --schedule-timeout 20: 15 s for the first schedule, then 19.5 s of analyses for a split whose
    # schedule timed out at its own 20 s)
    deadline = time.perf_counter() + schedule_options.timeout if schedule_options.timeout > 0 else None
    privatisable = frozenset()
    # the GPU targets and OpenMP run parallel loops in parallel; sequential C needs no copies
    if (gpu or openmp) and schedule_options.reschedule and schedule_options.live_range_reordering:
        privatisable = privatise.candidates(scop, deps)
    first = _privatised(scop, deps, schedule_options, privatisable, log, region)
    if (gpu or openmp) and first[0].rescheduled and _source_order_better(scop, deps, first, floating_reductions):
        log("schedule", f"{region}: kept the source's order: isl's schedule runs the deepest statements with more "
                        "loops in sequence outside their parallel ones")
        first = (ScheduleResult(mark_coincidence(scop.schedule, deps), False), scop, deps, (), frozenset())
    # the GPU targets only: their copy is a device buffer of the region; the c target's copies are a
    # thread's own, declared in its parallel loop, where a copy every loop shares would be a heap array
    chosen = (*first[:4], ())
    if gpu and schedule_options.reschedule and schedule_options.live_range_reordering \
            and first[0].rescheduled and privatise.written_scalars(scop):
        expanded = _expanded(scop, deps, first, options, floating_reductions, log, region, deadline)
        chosen = (*expanded, ()) if expanded else chosen
    if (gpu or openmp) and chosen[0].rescheduled and not chosen[3]:
        chosen = _split(*chosen[:3], options, floating_reductions, log, region, deadline) or chosen
    return Scheduled(*chosen)


def _rest(options: ScheduleOptions, deadline: float | None, part: float = 0.0) -> ScheduleOptions | None:
    """``options`` with the time left before ``deadline`` (None: no bound) as the scheduler's; None where
    no more than ``part`` of the whole is left."""
    if deadline is None:
        return options
    left = deadline - time.perf_counter()
    return replace(options, timeout=left) if left > part * options.timeout else None


def _split(result, scop, deps, options: ScheduleOptions, floating: bool, log, region: Region,
           deadline: float | None = None):
    """``result`` with its statements split into pieces where their pieces run fewer loops in sequence
    outside their parallel ones (polypragma.index_sets), as :func:`schedule_region` returns it; None where none do,
    or the region's time to schedule (``deadline``) is spent first."""
    if _rest(options, deadline, 0.5) is None:
        return None
    before = _outside(scop, deps, result.schedule, floating)
    if not any(before.values()):
        return None
    cuts = index_sets.hyperplanes(scop, deps.all, before)
    pieces = index_sets.pieces(scop, cuts) if cuts else None
    if pieces is None:
        return None
    split_deps = dependence_analysis.compute(pieces.scop)
    rest = _rest(options, deadline)
    if rest is None:
        return None
    second = compute_schedule(pieces.scop, split_deps, rest)
    if not second.rescheduled:
        return None
    after = pieces.by_statement(sequential_outside(second.schedule))
    if any(after.get(name, 0) > count for name, count in before.items()) \
            or not any(after.get(name, 0) < count for name, count in before.items()):
        return None
    notes = tuple(pieces.describe())
    for line in notes:
        log("schedule", f"{region}: {line}")
    return second, pieces.scop, split_deps, (), notes


def _expanded(scop, deps, first, options: ScheduleOptions, floating: bool, log, region: Region,
              deadline: float | None = None):
    """The schedule of ``scop`` with its scalar temporaries split into webs and expanded along the loops
    of the source (privatise.split_webs, privatise.along_loops), as :func:`schedule_region` returns it, where
    its loops run fewer in sequence than in ``first`` (:func:`_privatised`'s result on ``scop``) and isl
    verifies it; None where not, or where the region's time to schedule (``deadline``) is spent first."""
    if _rest(options, deadline, 0.5) is None:
        return None
    outside = _outside(first[1], first[2], first[0].schedule, floating)
    if not any(outside.values()):
        return None
    split, webs, split_backs = privatise.split_webs(scop, deps)
    split_deps = dependence_analysis.compute(split) if webs else deps
    plan = privatise.along_loops(split, split_deps, privatise.candidates(split, split_deps, split_backs), split_backs)
    if not plan.expansions:
        return None
    expansions = dict(plan.expansions)
    for _ in range(EXPANSION_TRIES):
        chosen = replace(plan, expansions=expansions)
        expanded, done, copy_backs = privatise.apply(split, split_deps, chosen)
        expanded_deps = dependence_analysis.compute(expanded)
        schedule_options = _rest(options, deadline)
        if schedule_options is None:
            return None
        messages: list[tuple[str, str]] = []
        second = _privatised(expanded, expanded_deps, schedule_options,
                             privatise.candidates(expanded, expanded_deps, split_backs | copy_backs),
                             lambda stage, message: messages.append((stage, message)), region)
        if not second[0].rescheduled:
            return None
        after = _outside(second[1], second[2], second[0].schedule, floating)
        worse = {name for name, count in outside.items() if after.get(name, 0) > count}
        if not worse:
            if _deepest_gain(split, expansions, outside, after):
                break
            # where the deepest users of all the copies gain nothing, the copies whose own deepest users
            # gain are tried alone: in 'for (i) { t = a[i] * 2; s += t * t; }' beside a row sum into a local
            # 'acc', t's copy lets the loop over i sum in parallel, while acc's, privatised in the row loop
            # anyway, gains nothing, and the row sum's statement is the deepest of all
            gaining = {a: m for a, m in expansions.items() if _deepest_gain(split, {a}, outside, after)}
            if not gaining or len(gaining) == len(expansions):
                return None
            expansions = gaining
            continue
        # the copies the statements that lost parallel loops use go; the others are tried again
        expansions = {a: m for a, m in expansions.items()
                      if not any(r.array == a and r.statement in worse for r in split.references)}
        if len(expansions) == len(chosen.expansions) or not expansions:
            return None
    else:
        return None
    problem = privatise.verify(scop, second[1], second[0].schedule, split_backs | copy_backs | second[4], deps)
    if problem is not None:
        log("schedule", f"{region}: expansion dropped: {problem}")
        return None
    for name, names in webs.items():
        log("schedule", f"{region}: {name}: split into {', '.join(names)}: each holds values that no write of "
                        f"another reaches")
    origin = {new: name for name, names in webs.items() for new in names}
    done = tuple(replace(p, web_of=origin.get(p.array, "")) for p in done)
    for p in done:
        log("schedule", f"{region}: {p.describe()}")
    for stage, message in messages:
        log(stage, message)
    return second[0], second[1], second[2], done + second[3]


def _outside(scop, deps, schedule, floating: bool, reductions=False) -> dict[str, int]:
    """schedule.sequential_outside, a member whose only dependences are reductions counted parallel
    (the GPU stage may map it: ludcmp's back substitution sums each row in parallel); ``reductions``:
    reduction_analysis.analyse's answer for ``scop`` where the caller has it."""
    if reductions is False:
        reductions = reduction_analysis.analyse(scop, deps, floating=floating)
    if reductions is None:
        return sequential_outside(schedule)
    return sequential_outside(schedule, lambda node, k: reduction_analysis.parallel_member(
        node, k, reductions.coincidence))


def _source_order_better(scop, deps, first, floating: bool) -> bool:
    """Whether the source's order runs the deepest statements of ``scop`` with fewer loops in sequence
    outside their parallel ones, in all, than ``first`` (:func:`_privatised`'s result): isl's scheduler,
    minimising the distances of a Jacobi step, the error computed from it and the copy back, skewed the
    three into a wavefront whose band it could not mark parallel (a launch a wavefront, each on one
    thread), where the source's loops are each parallel inside the time loop."""
    reductions = reduction_analysis.analyse(scop, deps, floating=floating)
    before = _outside(scop, deps, mark_coincidence(scop.schedule, deps), floating, reductions)
    after = _outside(first[1], first[2], first[0].schedule, floating,
                     reductions if first[1] is scop else False)
    return _fewer_in_sequence(scop, [s.name for s in scop.statements], before, after)


def _deepest_gain(scop, arrays, before: dict[str, int], after: dict[str, int]) -> bool:
    """Whether the deepest statements that use the copies of ``arrays`` have fewer loops run in sequence
    outside their parallel ones, in all (the loops that do the work: a copy that only lets each
    iteration's reset run in parallel, the work still in sequence, gains nothing but kernels, as
    deriche's filters and durbin's sum showed before its scalars were split into webs)."""
    return _fewer_in_sequence(scop, {r.statement for r in scop.references if r.array in arrays}, after, before)


def _fewer_in_sequence(scop, names, counts: dict[str, int], than: dict[str, int]) -> bool:
    """Whether the deepest of the statements ``names`` run fewer loops in sequence outside their parallel
    ones, in all, by ``counts`` than by ``than`` (:func:`_outside`'s answers)."""
    depth = {name: scop.statement(name).domain.dim(isl.dim_type.set) for name in names}
    deepest = [name for name in depth if depth[name] == max(depth.values())]
    return sum(counts.get(name, 0) for name in deepest) < sum(than.get(name, 0) for name in deepest)


def _privatised(scop, deps, schedule_options: ScheduleOptions, privatisable: frozenset[str], log, region: Region):
    """The schedule of ``scop`` with the temporaries of ``privatisable`` privatised along the parallel
    members that carry their order dependences: (schedule result, model, dependences, privatised arrays,
    the tags of the copy-backs' reads)."""
    while True:
        result = compute_schedule(scop, deps, schedule_options, privatisable)
        if not privatisable or not result.rescheduled:
            return result, scop, deps, (), frozenset()
        chosen = privatise.plan(scop, deps, result.schedule, privatisable)
        if not chosen.rejected:
            break
        for name in sorted(chosen.rejected):
            log("schedule", f"{region}: not privatisable: {name} ({chosen.rejected[name]})")
        privatisable = privatisable - chosen.rejected.keys()
    rewritten, done, copy_backs = privatise.apply(scop, deps, chosen)
    problem = privatise.verify(scop, rewritten, result.schedule, copy_backs, deps) if done else None
    if problem is not None:
        log("schedule", f"{region}: privatisation dropped: {problem}")
        return compute_schedule(scop, deps, schedule_options), scop, deps, (), frozenset()
    if done:
        deps = dependence_analysis.compute(rewritten)
        for p in done:
            log("schedule", f"{region}: {p.describe()}")
    schedule = mark_coincidence(result.schedule, deps)
    return replace(result, schedule=schedule), rewritten, deps, done, copy_backs
