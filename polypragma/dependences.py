"""Dependence analysis with isl's dataflow analysis (``compute_flow``).

All relations are between statement instances, ``{ S[i] -> T[j] }``: the
source instance must run before the sink instance.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polypragma.model import Scop


@dataclass(frozen=True)
class Dependences:
    flow: isl.UnionMap     # write -> read of the value it wrote (read after write)
    anti: isl.UnionMap     # read -> later write of the element (write after read)
    output: isl.UnionMap   # write -> later write of the element
    live_in: isl.UnionMap  # reads that may see a value from before the region: { S[i] -> A[a] }
    live_out: isl.UnionMap  # writes whose value may be seen after the region: { S[i] -> A[a] }

    @property
    def all(self) -> isl.UnionMap:
        """Every ordering constraint: flow, anti and output."""
        return self.flow.union(self.anti).union(self.output)

    def live_in_data(self) -> isl.UnionSet:
        """Elements whose value on region entry may be read."""
        return self.live_in.range()

    def live_out_data(self) -> isl.UnionSet:
        """Elements whose value on region exit may come from the region."""
        return self.live_out.range()

    def summary(self) -> str:
        def count(m: isl.UnionMap) -> int:
            return m.n_map()

        return (f"flow {count(self.flow)}, anti {count(self.anti)}, output {count(self.output)} "
                "relations between statements")


def _flow(sink: isl.UnionMap, must: isl.UnionMap, may: isl.UnionMap, schedule: isl.Schedule):
    info = isl.UnionAccessInfo.from_sink(sink).set_must_source(must).set_may_source(may)
    return info.set_schedule(schedule).compute_flow()


def compute(scop: Scop) -> Dependences:
    """Flow, anti and output dependences of ``scop`` under its original schedule."""
    schedule = scop.schedule
    reads = scop.reads
    must = scop.must_writes
    may_only = scop.may_writes  # must and may together
    empty = isl.UnionMap.empty(reads.get_space())
    flow = _flow(reads, must, may_only, schedule)
    flow_deps = flow.get_may_dependence()
    live_in = flow.get_may_no_source()
    anti = _flow(may_only, empty, reads, schedule).get_may_dependence()
    output = _flow(may_only, must, may_only, schedule).get_may_dependence()
    live_out = _live_out(scop, must, may_only)
    return Dependences(flow_deps.coalesce(), anti.coalesce(), output.coalesce(), live_in.coalesce(), live_out)


def _live_out(scop: Scop, must: isl.UnionMap, writes: isl.UnionMap) -> isl.UnionMap:
    """Writes ``{ S[i] -> A[a] }`` whose element no later must-write overwrites."""
    time = scop.schedule.get_map()
    before = time.lex_lt_union_map(time)  # { earlier -> later instance }
    overwritten = writes.intersect(before.apply_range(must))
    return writes.subtract(overwritten).coalesce()
