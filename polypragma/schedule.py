"""Scheduling: isl's scheduler on the dependences, or the original order.

With live-range reordering (on by default, as in PPCG, where a target runs
loops in parallel and some temporary may be privatised; Verdoolaege and Cohen,
IMPACT 2016) validity holds the flow dependences and the forced ones (reads
of values from before the region, last writes), and the anti and output
dependences become isl's conditional validity: the order dependences between
live ranges need to hold only where a live range adjacent to them is carried
by a band member, so temporaries no longer force their loops into sequence.
Coincidence keeps the order dependences of every array except those the
caller may privatise (``privatisable``): a member that carries only those is
parallel once each of its iterations has its own copy
(:mod:`polypragma.privatise`).  Without it, validity, proximity and
coincidence are all the full dependences (flow, anti and output), as PPCG
does without live-range reordering; band members the scheduler marks
coincident carry no dependence and may run in parallel.  With rescheduling off, the original schedule tree
is kept and its band members are marked coincident by a direct test on the
dependences, so later stages see parallel loops either way.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polypragma import forked
from polypragma.dependences import Dependences
from polypragma.model import Scop
from polypragma.isl_helpers import (bounded_operations, coalesced, descendants, maps_of, out_of_operations,
                                    sets_of)

FUSION_CHOICES = ("auto", "max", "min")


@dataclass(frozen=True)
class ScheduleOptions:
    reschedule: bool = True
    fusion: str = "auto"  # "auto": isl's clustering; "max": whole components; "min": serialize SCCs
    max_operations: int = 2_000_000  # isl operations allowed to the scheduler per region; 0: no bound
    timeout: float = 60.0  # seconds of scheduler time per region; 0: no bound
    live_range_reordering: bool = True  # --no-live-range-reordering: anti and output dependences as validity


@dataclass(frozen=True)
class ScheduleResult:
    schedule: isl.Schedule
    rescheduled: bool
    fallback_reason: str | None = None  # why the original schedule was kept, when rescheduling was asked


def configure_context(ctx: isl.Context, options: ScheduleOptions) -> None:
    """The isl options polypragma relies on, set explicitly."""
    ctx.set_schedule_maximize_band_depth(1)
    ctx.set_schedule_maximize_coincidence(1)
    ctx.set_schedule_outer_coincidence(1)
    ctx.set_schedule_serialize_sccs(1 if options.fusion == "min" else 0)
    ctx.set_schedule_whole_component(1 if options.fusion == "max" else 0)
    ctx.set_ast_build_detect_min_max(1)
    ctx.set_ast_build_atomic_upper_bound(1)
    ctx.set_ast_always_print_block(1)


def live_range_constraints(deps: Dependences, privatisable: frozenset[str] = frozenset()):
    """(validity, proximity, coincidence, condition, conditional validity) of live-range reordering
    (PPCG's ``compute_schedule`` in ppcg.c with ``--live-range-reordering``).  The order dependences
    and last-write dependences of the arrays in ``privatisable`` are left out of coincidence."""
    ranges = deps.live_ranges
    assert ranges is not None
    flow = ranges.untagged(ranges.tagged_flow)
    forced = ranges.forced_live_in.union(ranges.forced_may)
    kept_out = ranges.forced_live_out
    validity = flow.union(forced).union(kept_out)
    proximity = flow.union(deps.anti).union(deps.output)
    order_kept = ranges.untagged(ranges.of_arrays(ranges.tagged_order, privatisable, keep=False))
    if privatisable:
        # last writes of an array each iteration keeps a copy of: the copy-back of the live-out
        # value (privatise.py) restores what they protect
        last = ranges.live_out.intersect_range(_elements_of(ranges.live_out, privatisable)).domain()
        kept_out = kept_out.subtract_range(last)
    # the order of an array's may-writes stays (validity), but for an array each iteration keeps a copy of
    may_kept = ranges.untagged(ranges.of_arrays(ranges.tagged_forced_may, privatisable, keep=False))
    coincidence = flow.union(ranges.forced_live_in).union(kept_out).union(order_kept).union(may_kept)
    return (coalesced(validity), coalesced(proximity), coalesced(coincidence), ranges.tagged_flow,
            ranges.tagged_order)


def _elements_of(accesses: isl.UnionMap, names: frozenset[str]) -> isl.UnionSet:
    result = isl.UnionSet.empty(accesses.get_space().params())
    for s in sets_of(accesses.range()):
        if s.get_tuple_name() in names:
            result = result.union(isl.UnionSet.from_set(s))
    return result


def compute_schedule(scop: Scop, deps: Dependences, options: ScheduleOptions,
                     privatisable: frozenset[str] = frozenset()) -> ScheduleResult:
    domain = scop.domain
    if domain.is_empty() or not options.reschedule:
        return ScheduleResult(mark_coincidence(scop.schedule, deps), False)
    ctx = domain.get_ctx()
    configure_context(ctx, options)
    # the same relations, coalesced: isl's scheduler builds its linear problems from every constraint
    # of every piece of the dependences (Farkas multipliers); heat_3d's took it 4-5 s as computed,
    # half that coalesced.  The sets, hence the problems' solutions and the schedules, are the same
    dependences = coalesced(deps.all)
    constraints = isl.ScheduleConstraints.on_domain(domain).set_context(scop.context)
    # live-range reordering only where a temporary may be privatised: it is what makes its loops
    # parallel, and elsewhere it costs scheduling time for nothing a parallel target uses (the order
    # dependences relate each read to every later write: heat_3d's scheduler took 3.5 s instead of 1.4 s)
    if options.live_range_reordering and deps.live_ranges is not None and privatisable:
        validity, proximity, coincidence, condition, conditional = live_range_constraints(deps, privatisable)
        if options.fusion != "max":
            validity, proximity, coincidence = (for_scheduler(r, domain) for r in (validity, proximity, coincidence))
        constraints = (constraints.set_validity(validity).set_proximity(proximity)
                       .set_coincidence(coincidence).set_conditional_validity(condition, conditional))
    else:
        if options.fusion != "max":
            dependences = for_scheduler(dependences, domain)
        constraints = (constraints.set_validity(dependences).set_proximity(dependences)
                       .set_coincidence(dependences))
    try:
        with bounded_operations(ctx, options.max_operations):
            schedule = _bounded(constraints, options.timeout)
    except TimeoutError:
        reason = f"the scheduler did not finish within {options.timeout:g} s (--schedule-timeout)"
    except isl.Error as exc:
        if out_of_operations(exc):
            reason = f"the scheduler exceeded its bound of {options.max_operations} isl operations"
        else:
            reason = f"the scheduler failed ({exc})"
    else:
        reason = beyond_scale(schedule, domain)
    if reason is not None:
        return ScheduleResult(mark_coincidence(scop.schedule, deps), False, reason)
    return ScheduleResult(schedule, True)


def beyond_scale(schedule: isl.Schedule, domain: isl.UnionSet) -> str | None:
    """Why ``schedule`` is not to be used, where a coefficient of a statement's iterator in one of its
    band members is past the square of the widest range the domain's own numbers span (2 s + 2, with
    ``s`` the largest number in its constraints): a dimension that orders the instances of two nested
    loops in one line (``W i + j`` for a width ``W``) needs no more.  isl's step that carries the
    dependences a band could not has given far larger ones: ``1486 + 2058t + 603i1 - 46i2 + 21i3`` for a
    domain whose numbers are at most 4 (differential program 8439).  isl's code generation then works
    with numbers past a machine word, which its operation count does not bound: the c target's AST
    took more than ten minutes, the tiles of an opencl kernel as long.  None where the schedule is
    within that bound (trisolv's ``-58i + j`` for N = 60, whose domain has 59)."""
    scale = max((_largest_number(b) for s in sets_of(domain) for b in s.get_basic_sets()), default=0)
    limit = (2 * scale + 2) ** 2
    for node in descendants(schedule.get_root()):
        if node.get_type() != isl.schedule_node_type.band:
            continue
        partial = node.band_get_partial_schedule()
        for k in range(node.band_n_member()):
            member = partial.get_at(k).get_pw_aff_list()
            for j in range(member.n_pw_aff()):
                for _, aff in member.get_at(j).get_pieces():
                    largest = max((abs(aff.get_coefficient_val(isl.dim_type.in_, d).to_python())
                                   for d in range(aff.dim(isl.dim_type.in_))), default=0)
                    if largest > limit:
                        return (f"isl's schedule has a coefficient of {largest} ({_written(aff)}) where the "
                                f"domain's numbers (at most {scale}) need at most {limit}; isl's code generation "
                                "could take minutes on it")
    return None


def _written(aff: isl.Aff) -> str:
    """``S_2[t, i] -> 1486 + 2058t`` for isl's ``[T] -> { S_2[t, i] -> [(1486 + 2058t)] }``."""
    text = str(aff)
    body = text[text.index("{") + 1:text.rindex("}")].strip()
    head, _, expression = body.partition(" -> ")
    return f"{head} -> {expression.strip().removeprefix('[(').removesuffix(')]')}"


def _largest_number(constraints: isl.BasicSet) -> int:
    """The largest absolute value of a constant or coefficient in ``constraints``."""
    largest = 0
    for c in constraints.get_constraints():
        values = [c.get_constant_val()] + [c.get_coefficient_val(kind, k)
                                           for kind in (isl.dim_type.param, isl.dim_type.set, isl.dim_type.div)
                                           for k in range(constraints.dim(kind))]
        largest = max([largest] + [abs(v.to_python()) for v in values])
    return largest


def for_scheduler(relation: isl.UnionMap, domain: isl.UnionSet) -> isl.UnionMap:
    """``relation`` as the scheduler's input: the bounds of the statements' domains left out where
    the distances of a dependence do not need them.

    isl's scheduler turns every constraint of a dependence into a Farkas multiplier of its linear
    problems, the bounds of both statements' domains included: heat_3d's dependences between its two
    statements have 22 constraints, 16 of them bounds, and took it 1.4 s.  For a piece between statements of as many dimensions whose
    domains are boxes, each bound is left out (isl's gist) along every dimension where the distances
    (sink less source) stay bounded without it, a stencil's neighbours, and kept where they do not
    (a read and every later write of an element: the time loop's bounds).  The result contains the
    dependences, so every schedule valid for it is valid for them (and coincident members carry none
    of them); its distances are theirs, and over the corpus the scheduler chose the same schedules
    (generated code byte-identical), heat_3d's in 0.04 s.  Pieces between other domains
    (triangles, whose bounds shape the dependences) are kept as they are: leaving their bounds out
    changed the schedules of nussinov and trmm.  The parameters' constraints always stay (a
    dependence that exists only for n >= 1 would otherwise bind every size).  With ``--fusion=max``
    (isl's whole components) the caller passes the relations whole: there isl's choices between
    schedules of equal cost came out otherwise on 12 of the 81 corpus programs (fdtd_2d's sweeps fused
    with their loops interchanged, correlation's fused less)."""
    result = isl.UnionMap.empty(relation.get_space())
    for piece in maps_of(relation):
        space = piece.get_space()
        source = domain.extract_set(space.domain())
        sink = domain.extract_set(space.range())
        if space.dim(isl.dim_type.in_) == space.dim(isl.dim_type.out) and source.is_box() and sink.is_box():
            piece = _without_bounds(piece, source, sink)
        result = result.union(isl.UnionMap.from_map(piece))
    return result


def _without_bounds(piece: isl.Map, source: isl.Set, sink: isl.Set) -> isl.Map:
    """``piece`` without the bounds of ``source`` and ``sink`` along the dimensions where its
    distances stay bounded without them (see :func:`for_scheduler`)."""
    gist = piece.gist_domain(source).gist_range(sink).intersect_params(piece.params())
    distances = gist.set_tuple_name(isl.dim_type.out, gist.get_tuple_name(isl.dim_type.in_)).deltas()
    n = distances.dim(isl.dim_type.set)
    for d in range(n):
        along = distances.project_out(isl.dim_type.set, d + 1, n - d - 1).project_out(isl.dim_type.set, 0, d)
        if not along.is_bounded():
            gist = gist.intersect_domain(_dimension_bounds(source, d)).intersect_range(_dimension_bounds(sink, d))
    return coalesced(gist)


def _dimension_bounds(domain: isl.Set, d: int) -> isl.Set:
    """The bounds of dimension ``d`` of ``domain``, the other dimensions free (a superset of it)."""
    n = domain.dim(isl.dim_type.set)
    return domain.eliminate(isl.dim_type.set, d + 1, n - d - 1).eliminate(isl.dim_type.set, 0, d)


def _bounded(constraints: isl.ScheduleConstraints, timeout: float) -> isl.Schedule:
    """``constraints.compute_schedule()``, given up after ``timeout`` seconds.

    isl's operation count does not bound every part of the scheduler (a 3-D
    stencil over fixed-size arrays runs for many minutes within it), so the
    computation runs in a forked process that is killed when time is up; the
    schedule comes back in isl's text form.  The process dies with its parent
    (see :func:`polypragma.forked.die_with_parent`): a build tool that kills polypragma on a
    timeout (``subprocess.run(timeout=...)`` sends SIGKILL) must not leave the
    scheduler running.
    """
    if timeout <= 0 or not forked.can_fork():
        return constraints.compute_schedule()
    try:
        text = forked.run(lambda: constraints.compute_schedule().to_str(), timeout)
    except forked.Crashed:
        raise isl.Error("the scheduler process ended without an answer") from None
    return isl.Schedule.read_from_str(constraints.get_ctx(), text)


def mark_coincidence(schedule: isl.Schedule, deps: Dependences) -> isl.Schedule:
    """Mark each band member of ``schedule`` coincident when it carries no dependence."""
    dependences = deps.all

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() != isl.schedule_node_type.band:
            return node
        # (an exception must not cross isl's callback: members whose test fails are not coincident)
        try:
            flags = _coincident(node, dependences)
        except isl.Error:
            flags = [False] * node.band_n_member()
        for member, parallel in enumerate(flags):
            node = node.band_member_set_coincident(member, parallel)
        return node

    return schedule.map_schedule_node_bottom_up(visit)


def _coincident(node: isl.ScheduleNode, dependences: isl.UnionMap) -> list[bool]:
    """Whether each member of band ``node`` carries none of ``dependences``."""
    domain = node.get_domain()
    relevant = dependences.intersect_domain(domain).intersect_range(domain)
    prefix = node.get_prefix_schedule_union_map()
    partial = node.band_get_partial_schedule()
    flags = []
    for member in range(node.band_n_member()):
        outer = prefix
        for k in range(member):
            outer = outer.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_at(k)))
        same_outer = outer.apply_range(outer.reverse())
        carried_candidates = relevant.intersect(same_outer)
        mk = isl.UnionMap.from_union_pw_aff(partial.get_at(member))
        distances = carried_candidates.apply_domain(mk).apply_range(mk).deltas()
        flags.append(distances.is_empty() or distances.is_subset(_zero_like(distances)))
    return flags


def _zero_like(deltas: isl.UnionSet) -> isl.UnionSet:
    result = isl.UnionSet.empty(deltas.get_space())
    for s in sets_of(deltas):
        zero = isl.Set.universe(s.get_space())
        for d in range(s.dim(isl.dim_type.set)):
            zero = zero.fix_val(isl.dim_type.set, d, isl.Val.zero(s.get_ctx()))
        result = result.union(isl.UnionSet.from_set(zero))
    return result


def sequential_outside(schedule: isl.Schedule, also_parallel=None) -> dict[str, int]:
    """Per statement, the band members above it that run sequentially outside every parallel one (all
    of them where none is parallel): the host loops around a GPU target's kernel, or the loops a
    one-thread kernel runs.  ``also_parallel(node, k)``: whether member ``k`` of band ``node``, not
    coincident, runs in parallel all the same (a loop whose only dependences are reductions)."""
    counts: dict[str, int] = {}

    def walk(node: isl.ScheduleNode, count: int, found: bool) -> None:
        kind = node.get_type()
        if kind == isl.schedule_node_type.band:
            for k in range(node.band_n_member()):
                if found:
                    break
                if node.band_member_get_coincident(k) or (also_parallel is not None and also_parallel(node, k)):
                    found = True
                else:
                    count += 1
        elif kind == isl.schedule_node_type.leaf:
            for s in sets_of(node.get_domain()):
                counts[s.get_tuple_name()] = count
            return
        for i in range(node.n_children()):
            walk(node.child(i), count, found)

    walk(schedule.get_root(), 0, False)
    return counts


def describe_bands(schedule: isl.Schedule) -> list[str]:
    """One line per band: depth, members and which are parallel."""
    lines: list[str] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.band:
            kinds = ["parallel" if node.band_member_get_coincident(k) else "sequential"
                     for k in range(node.band_n_member())]
            depth = node.get_schedule_depth()
            lines.append(f"band at depth {depth}, {node.band_n_member()} member(s): {', '.join(kinds)}"
                         f"{' (permutable)' if node.band_get_permutable() else ''}")
        return True

    schedule.get_root().foreach_descendant_top_down(visit)
    return lines
