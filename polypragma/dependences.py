"""Dependence analysis with isl's dataflow analysis (``compute_flow``).

All relations are between statement instances, ``{ S[i] -> T[j] }``: the
source instance must run before the sink instance.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polypragma.model import Scop
from polypragma.isl_helpers import bounded_operations, sets_of

# isl operations one dataflow analysis may take (about 5 s); past it the lexicographic-maximum form
# answers, the same relation computed another way (a random program's anti dependences took isl's
# compute_flow minutes, the other form 0.05 s: tests/differential/regressions/dataflow_blowup.c)
FLOW_OPERATIONS = 5_000_000


@dataclass(frozen=True)
class Dependences:
    flow: isl.UnionMap     # write -> read of the value it wrote (read after write)
    anti: isl.UnionMap     # read -> later write of the element (write after read)
    output: isl.UnionMap   # write -> later write of the element
    live_in: isl.UnionMap  # reads that may see a value from before the region: { S[i] -> A[a] }

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


def _flow(sink: isl.UnionMap, must: isl.UnionMap, may: isl.UnionMap, schedule: isl.Schedule):
    """May-dependences ``{ source -> sink }`` and the sink accesses that may see no source."""
    try:
        with bounded_operations(sink.get_ctx(), FLOW_OPERATIONS):
            info = isl.UnionAccessInfo.from_sink(sink).set_must_source(must).set_may_source(may)
            flow = info.set_schedule(schedule).compute_flow()
            return flow.get_may_dependence(), flow.get_may_no_source()
    except isl.Error:
        # past FLOW_OPERATIONS; and where isl's dataflow analysis fails on valid input: when
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

    try:
        with bounded_operations(sink.get_ctx(), FLOW_OPERATIONS):
            spaces = sets_of(time.range())
            sooner = isl.UnionMap.empty(sink.get_space())  # { t -> earlier t' } in the time space
            for space in spaces:
                sooner = sooner.union(isl.UnionMap.from_map(isl.Map.lex_gt(space.get_space())))
            # { [r -> a] -> t }: times of the must-writes of a before r, compared as times
            must_times = sink.range_map().apply_range(must.reverse()).apply_range(time)
            must_times = must_times.intersect(reads.apply_range(time).apply_range(sooner))
            no_source = sink.wrap().subtract(must_times.domain()).unwrap()
            last = must_times.lexmax().apply_range(time.reverse())  # { [r -> a] -> last must-write }
            sources = last
            may_only = may.subtract(must)
            if not may_only.is_empty():
                candidates = earlier(may_only)
                sources = sources.union(candidates.intersect(last.apply_range(before))).union(
                    candidates.intersect_domain(no_source.wrap()))
    except isl.Error:
        sources, no_source = earlier(must.union(may)), sink
    return sources.reverse().apply_range(reads).coalesce(), no_source.coalesce()


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
    return Dependences(flow_deps.coalesce(), anti.coalesce(), output.coalesce(), live_in.coalesce())

