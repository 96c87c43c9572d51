"""Dependence analysis with isl's dataflow analysis (``compute_flow``).

All relations are between statement instances, ``{ S[i] -> T[j] }``: the
source instance must run before the sink instance.

For live-range reordering (Verdoolaege and Cohen, IMPACT 2016; PPCG's
``compute_live_range_reordering_dependences`` in ppcg.c) the analysis also
gives, as :class:`LiveRanges`, the flow dependences tagged with the
reference at each end (``{ [S[i] -> ref3[]] -> [T[j] -> ref5[]] }``: the
live ranges), the order dependences between live ranges (a read, or a write
no one reads, to every later write of the element), the writes whose value
may be live after the region, and the "forced" dependences that no
reordering may break: a read of a value from before the region precedes the
later writes of the element, and every write precedes a last write.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polypragma import forked
from polypragma.model import Scop
from polypragma.isl_helpers import bounded_operations, coalesced, maps_of, sets_of, union_of

# isl operations one dataflow analysis may take (about 5 s): the lexicographic-maximum form of one, and
# the live ranges' analyses together
FLOW_OPERATIONS = 5_000_000
# isl operations compute_flow may take for one kind of dependence (about 1 s); past it the
# lexicographic-maximum form answers, the same relation computed another way (a random program's anti
# dependences took compute_flow minutes, the other form 0.05 s: tests/differential/regressions/
# dataflow_blowup.c).  Over the corpus (every RUN line) and the differential regressions, every
# compute_flow within 5 000 000 operations but past 1 000 000 (4 of them) gave the same generated code by
# the other form, and those past 5 000 000 wasted 4-6 s each: conditions.c's guards (conditions, modulos,
# disjunctions of its 3-D nest) at -DNX=24 -DNY=20 -DNZ=22 took 22.9 s to compile, now 19.1 s (best of
# three: bench/results/compile_time_2026_11_28_tenth.md)
COMPUTE_FLOW_OPERATIONS = 1_000_000
# the operations of the lexicographic-maximum form's first attempt, one maximum per writing statement
LATEST_OPERATIONS = 1_000_000


@dataclass(frozen=True)
class Dependences:
    flow: isl.UnionMap     # write -> read of the value it wrote (read after write)
    anti: isl.UnionMap     # read -> later write of the element (write after read)
    output: isl.UnionMap   # write -> later write of the element
    live_in: isl.UnionMap  # reads that may see a value from before the region: { S[i] -> A[a] }

    # the live ranges and their order, for live-range reordering; None where they could not be
    # computed (a reference the model does not list, or past FLOW_OPERATIONS): the scheduler then
    # respects every anti and output dependence
    live_ranges: "LiveRanges | None" = None

    @property
    def all(self) -> isl.UnionMap:
        """Every ordering constraint: flow, anti and output."""
        return self.flow.union(self.anti).union(self.output)

    def live_in_data(self) -> isl.UnionSet:
        """Elements whose value on region entry may be read."""
        return self.live_in.range()

    def summary(self) -> str:
        def count(m: isl.UnionMap) -> int:
            return m.n_map()

        return (f"flow {count(self.flow)}, anti {count(self.anti)}, output {count(self.output)} "
                "relations between statements")


@dataclass(frozen=True)
class LiveRanges:
    """The relations of live-range reordering, tagged with references ``ref<k>[]`` (k: the index in
    ``Scop.references``); ``arrays`` gives the array of each tag."""

    tagged_flow: isl.UnionMap   # { [W -> ref] -> [R -> ref'] }: R reads the value W wrote
    tagged_order: isl.UnionMap  # { [R -> ref] -> [W -> ref'] }: a later write of what R read (or W' wrote, unread)
    live_out: isl.UnionMap      # { W[i] -> A[a] }: writes whose value may be seen after the region
    forced_live_in: isl.UnionMap   # { R -> W }: R reads a value from before the region, W writes it later
    forced_live_out: isl.UnionMap  # { W -> W' }: W' may write the value seen after the region, W earlier
    # { [W -> ref] -> [W' -> ref'] }: anti and output dependences of arrays with may-writes: never reordered
    # (but for the arrays that get a copy per iteration, polypragma.privatise)
    tagged_forced_may: isl.UnionMap
    live_in: isl.UnionMap       # { R[i] -> A[a] }: reads that may see a value from before the region
    tagged_live_in: isl.UnionMap  # { [R[i] -> ref] -> A[a] }: the same, by reference
    arrays: dict[str, str]      # tag -> array

    @staticmethod
    def tag_of(space: isl.Space) -> str:
        """The reference tag of a tagged relation's space (its domain's)."""
        return space.domain().unwrap().range().get_tuple_name(isl.dim_type.set)

    def of_arrays(self, tagged: isl.UnionMap, names: set[str] | frozenset[str], keep: bool = True) -> isl.UnionMap:
        """The part of a tagged relation whose source reference is to one of ``names`` (``keep``), or
        to none of them."""
        result = isl.UnionMap.empty(tagged.get_space())
        for m in maps_of(tagged):
            tag = m.get_space().domain().unwrap().range().get_tuple_name(isl.dim_type.set)
            if (self.arrays.get(tag) in names) == keep:
                result = result.union(isl.UnionMap.from_map(m))
        return result

    @staticmethod
    def untagged(tagged: isl.UnionMap) -> isl.UnionMap:
        return tagged.factor_domain()

    @property
    def forced_may(self) -> isl.UnionMap:
        return self.untagged(self.tagged_forced_may)


@dataclass(frozen=True)
class _Flow:
    """What isl's dataflow analysis answers (``isl.UnionFlow``'s relations)."""
    may_dependence: isl.UnionMap       # { source -> sink }
    full_may_dependence: isl.UnionMap  # { source -> [sink -> element] }
    may_no_source: isl.UnionMap        # the sink accesses that may see no source


def _compute_flow(schedule: isl.Schedule, sink: isl.UnionMap, must: isl.UnionMap | None = None,
                  may: isl.UnionMap | None = None) -> _Flow:
    """isl's dataflow analysis of ``sink`` from the ``must`` and ``may`` sources under ``schedule``.

    isl's compute_flow crashed the process (a segmentation fault in isl_basic_map_swap_div) on a
    may-source that wrote none of a sink's elements, beside a must-source that did, in domains with
    modulo guards (tests/differential/regressions/compute_flow_segfault.c).  Where there are must-sources,
    a sink relation that a may-only source of its array does not reach is analysed alone, with its
    sources cut to the elements it accesses: the same answer (a sink access's sources are writes of its
    element).  The other sink relations are analysed together, as before: one analysis per relation took
    deriche's live ranges past their bound.  It crashed as well where the may-only sources do reach the
    sink (tests/differential/regressions/compute_flow_crash_may_sources.c), so wherever must-sources
    and may-only sources meet, isl analyses in a forked process (:func:`polypragma.forked.run`), whose
    relations come back in isl's text form, and where that process dies, :class:`isl.Error` is raised for
    the caller's fallback."""
    space = sink.get_space()
    must = must if must is not None else isl.UnionMap.empty(space)
    may = may if may is not None else isl.UnionMap.empty(space)
    may_only = maps_of(may.subtract(must)) if not must.is_empty() else []

    def relations(info: isl.UnionAccessInfo) -> tuple[isl.UnionMap, isl.UnionMap, isl.UnionMap]:
        flow = info.compute_flow()
        return flow.get_may_dependence(), flow.get_full_may_dependence(), flow.get_may_no_source()

    def analysed(sinks: isl.UnionMap, musts: isl.UnionMap, mays: isl.UnionMap):
        info = isl.UnionAccessInfo.from_sink(sinks).set_must_source(musts).set_may_source(mays).set_schedule(schedule)
        if not may_only or not forked.can_fork():
            return relations(info)
        try:
            texts = forked.run(lambda: tuple(str(r) for r in relations(info)))
        except forked.Crashed:
            raise isl.Error("isl's dataflow analysis crashed (in a forked process)") from None
        return tuple(isl.UnionMap.read_from_str(space.get_ctx(), text) for text in texts)

    together, apart = [], []
    for piece in maps_of(sink):
        elements = piece.range()
        missed = any(s.get_space().range().is_equal(elements.get_space()) and s.range().intersect(elements).is_empty()
                     for s in may_only)
        (apart if missed else together).append((isl.UnionMap.from_map(piece), isl.UnionSet.from_set(elements)))
    flows = [analysed(union_of(sinks for sinks, _ in together), must, may)] if together else []
    flows += [analysed(sinks, must.intersect_range(cut), may.intersect_range(cut)) for sinks, cut in apart]
    empty = isl.UnionMap.empty(space)
    return _Flow(*(union_of([f[k] for f in flows]) or empty for k in range(3)))


def _flow(sink: isl.UnionMap, must: isl.UnionMap, may: isl.UnionMap, schedule: isl.Schedule):
    """May-dependences ``{ source -> sink }`` and the sink accesses that may see no source."""
    try:
        with bounded_operations(sink.get_ctx(), COMPUTE_FLOW_OPERATIONS):
            flow = _compute_flow(schedule, sink, must, may)
            return flow.may_dependence, flow.may_no_source
    except isl.Error:
        # past COMPUTE_FLOW_OPERATIONS; and where isl's dataflow analysis fails on valid input: when
        # several must sources compete for one sink and the domains carry divisions (modulo
        # guards) next to min/max bounds ("affine expression involves some of the domain
        # dimensions", isl_domain_factor_templ.c; tests/differential/regressions/compute_flow_crash.c),
        # with the schedule tree and with the flattened schedule map alike; one lexicographic
        # maximum over all must sources at once does not hit it.
        return _flow_by_lexmax(sink, must, may, schedule)


def _flow_by_lexmax(sink: isl.UnionMap, must: isl.UnionMap, may: isl.UnionMap, schedule: isl.Schedule):
    """What ``compute_flow`` answers, from relations and one lexicographic maximum.

    On sink accesses ``[r -> a]`` (read instance and element): the last must-write of ``a``
    before ``r`` is the one with the latest schedule time, and a may-write is a source as well
    when it runs after that one, or when no must-write of ``a`` runs before ``r`` (those sink
    accesses may see the value from before the region).  This is exact.  Should isl fail here
    too (or go past FLOW_OPERATIONS), no write kills another: every earlier write is a source and
    every read may see the value from before the region, which is safe (more dependences, more data
    copied in)."""
    time = schedule.get_map()  # { S[i] -> [t] }: injective, into one time space
    reads = sink.domain_map()  # { [r -> a] -> r }
    before = time.lex_lt_union_map(time)  # { earlier -> later instance }

    def earlier(writes: isl.UnionMap) -> isl.UnionMap:  # { [r -> a] -> w }: w writes a before r
        return sink.range_map().apply_range(writes.reverse()).intersect(reads.apply_range(before.reverse()))

    ctx = sink.get_ctx()
    try:
        with bounded_operations(ctx, FLOW_OPERATIONS):
            spaces = sets_of(time.range())
            sooner = isl.UnionMap.empty(sink.get_space())  # { t -> earlier t' } in the time space
            for space in spaces:
                sooner = sooner.union(isl.UnionMap.from_map(isl.Map.lex_gt(space.get_space())))
            read_times = reads.apply_range(time).apply_range(sooner)

            def times(writes: isl.UnionMap) -> isl.UnionMap:  # { [r -> a] -> t }: of writes of a before r
                return sink.range_map().apply_range(writes.reverse()).apply_range(time).intersect(read_times)
            must_times = times(must)
            no_source = sink.wrap().subtract(must_times.domain()).unwrap()
        last = _latest(must, times, must_times).apply_range(time.reverse())  # { [r -> a] -> last must-write }
        sources = last
        with bounded_operations(ctx, FLOW_OPERATIONS):
            may_only = may.subtract(must)
            if not may_only.is_empty():
                candidates = earlier(may_only)
                sources = sources.union(candidates.intersect(last.apply_range(before))).union(
                    candidates.intersect_domain(no_source.wrap()))
    except isl.Error:
        sources, no_source = earlier(must.union(may)), sink
    return coalesced(sources.reverse().apply_range(reads)), coalesced(no_source)


def _latest(must: isl.UnionMap, times, must_times: isl.UnionMap) -> isl.UnionMap:
    """The lexicographic maximum of ``must_times``, ``times(must)``: first as the maximum of each writing statement's
    maxima, within LATEST_OPERATIONS, else as one maximum, within FLOW_OPERATIONS.  The first is mostly
    the cheaper: conditions.c's flow and output dependences (-DNX=24 -DNY=20 -DNZ=22) in 0.3-0.6 s each,
    where one maximum went past 5,000,000 operations and left the conservative form; but
    compute_flow_crash.c's third relation took it 4.2 s against 1.8 s, hence its own smaller bound."""
    ctx = must.get_ctx()
    try:
        with bounded_operations(ctx, LATEST_OPERATIONS):
            each = isl.UnionMap.empty(must.get_space())
            for writes in maps_of(must):
                each = each.union(times(isl.UnionMap.from_map(writes)).lexmax())
            return each.lexmax()
    except isl.Error:
        with bounded_operations(ctx, FLOW_OPERATIONS):
            return must_times.lexmax()


def _tagged(relation: isl.Map, tag: str) -> isl.Map:
    """``{ S[i] -> A[a] }`` as ``{ [S[i] -> tag[]] -> A[a] }``."""
    space = relation.get_space().params().add_unnamed_tuple_ui(0).set_tuple_name(isl.dim_type.set, tag)
    tagger = isl.Map.from_domain_and_range(relation.domain(), isl.Set.universe(space))
    return tagger.range_product(relation).uncurry()


def live_ranges(scop: Scop, schedule: isl.Schedule | None = None) -> LiveRanges | None:
    """The relations of live-range reordering under ``schedule`` (the original one by default), as
    PPCG computes them (ppcg.c: ``compute_tagged_flow_dep_only``, ``compute_order_dependences``,
    ``compute_live_out``, ``compute_forced_dependences``); None when the references do not account
    for every access of the statements or isl goes past FLOW_OPERATIONS."""
    schedule = schedule if schedule is not None else scop.schedule
    space = scop.context.get_space()
    reads = writes = must = isl.UnionMap.empty(space)
    arrays: dict[str, str] = {}
    with_may: set[str] = set()
    for k, ref in enumerate(scop.references):
        tag = f"ref{k}"
        arrays[tag] = ref.array
        piece = isl.UnionMap.from_map(_tagged(ref.relation, tag))
        if ref.is_write:
            writes = writes.union(piece)
            if ref.must:
                must = must.union(piece)
            else:
                with_may.add(ref.array)
        else:
            reads = reads.union(piece)
    # the references must be the statements' accesses, or reordering would miss some
    if not (reads.domain_factor_domain().is_equal(scop.reads)
            and writes.domain_factor_domain().is_equal(scop.may_writes)
            and must.domain_factor_domain().is_equal(scop.must_writes)):
        return None
    ctx = space.get_ctx()
    try:
        with bounded_operations(ctx, FLOW_OPERATIONS):
            tagger = reads.union(writes).domain().unwrap().domain_map_union_pw_multi_aff()
            tagged_schedule = schedule.pullback_union_pw_multi_aff(tagger)
            flow = _compute_flow(tagged_schedule, reads, must, writes.subtract(must))
            tagged_flow = flow.may_dependence
            tagged_live_in = flow.may_no_source
            live_in = tagged_live_in.domain_factor_domain()
            unmatched = writes.subtract_domain(tagged_flow.domain())
            tagged_order = _compute_flow(tagged_schedule, writes, may=reads.union(unmatched)).may_dependence
            plain_writes, plain_must = scop.may_writes, scop.must_writes
            covering = _compute_flow(schedule, plain_must, may=plain_writes).full_may_dependence.range_factor_range()
            live_out = plain_writes.subtract(covering)
            forced_out = _compute_flow(schedule, live_out, may=plain_writes).may_dependence
            forced_in = _compute_flow(schedule, plain_writes, may=live_in).may_dependence
            # may-writes: which of several sources of one read writes is unknown, so their order stays;
            # such arrays are not reordered at all (PPCG orders only the sources sharing a sink)
            tagged_forced_may = isl.UnionMap.empty(space)
            if with_may:
                tags = {t for t, a in arrays.items() if a in with_may}
                def of(m: isl.UnionMap) -> isl.UnionMap:
                    out = isl.UnionMap.empty(space)
                    for piece in maps_of(m):
                        if piece.get_space().domain().unwrap().range().get_tuple_name(isl.dim_type.set) in tags:
                            out = out.union(isl.UnionMap.from_map(piece))
                    return out
                tagged_forced_may = _compute_flow(tagged_schedule, of(writes),
                                                  may=of(reads).union(of(writes))).may_dependence
    except isl.Error:
        return None
    return LiveRanges(coalesced(tagged_flow), coalesced(tagged_order), coalesced(live_out), coalesced(forced_in),
                      coalesced(forced_out), coalesced(tagged_forced_may), coalesced(live_in),
                      coalesced(tagged_live_in), arrays)


def compute(scop: Scop) -> Dependences:
    """Flow, anti and output dependences of ``scop`` under its original schedule."""
    schedule = scop.schedule
    reads = scop.reads
    must = scop.must_writes
    may_only = scop.may_writes  # must and may together
    empty = isl.UnionMap.empty(reads.get_space())
    flow_deps, live_in = _flow(reads, must, may_only, schedule)
    anti, _ = _flow(may_only, empty, reads, schedule)
    output, _ = _flow(may_only, must, may_only, schedule)
    return Dependences(coalesced(flow_deps), coalesced(anti), coalesced(output), coalesced(live_in),
                       live_ranges(scop, schedule))

