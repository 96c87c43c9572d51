"""The dataflow analysis (polypragma.dependences) on relations isl's compute_flow crashed on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent

# a must-write of B[8] and a may-write (under a condition) of B[6 + 2 i2], i2 > 3: never B[8], in domains
# with a modulo guard whose inner loop's bounds depend on the outer ones
DOMAIN = "(1 + i1) mod 2 = 0 and i0 < n and 2 <= i1 <= i0 and 4 <= i2 <= -2 + n and -1 + i0 <= i3 <= i1"
SCRIPT = f"""
import islpy as isl
from polypragma import dependences
must = isl.UnionMap("[n] -> {{ S_2[i0, i1, i2, i3] -> B[8] : {DOMAIN} }}")
may = must.union(isl.UnionMap("[n] -> {{ S_1[i0, i1, i2, i3] -> B[6 + 2i2] : {DOMAIN} }}"))
schedule = isl.Schedule.from_domain(may.domain()).insert_partial_schedule(isl.MultiUnionPwAff(
    "[n] -> [{{ S_1[i0, i1, i2, i3] -> [(i0)]; S_2[i0, i1, i2, i3] -> [(i0)] }}, "
    "{{ S_1[i0, i1, i2, i3] -> [(i1)]; S_2[i0, i1, i2, i3] -> [(i1)] }}, "
    "{{ S_1[i0, i1, i2, i3] -> [(-i2)]; S_2[i0, i1, i2, i3] -> [(-i2)] }}, "
    "{{ S_1[i0, i1, i2, i3] -> [(-i3)]; S_2[i0, i1, i2, i3] -> [(-i3)] }}, "
    "{{ S_1[i0, i1, i2, i3] -> [(0)]; S_2[i0, i1, i2, i3] -> [(1)] }}]"))
flow = dependences._compute_flow(schedule, may, must, may)
expected, _ = dependences._flow_by_lexmax(may, must, may, schedule)
assert flow.may_dependence.is_equal(expected), (flow.may_dependence, expected)
assert not flow.may_dependence.is_empty()
print("same")
"""


def test_output_dependences_of_a_may_write_that_misses_the_sink():
    """isl's compute_flow alone ended the process with a segmentation fault on these relations; the
    analysis answers, and what it answers is what the lexicographic-maximum form computes."""
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=TOP)
    assert result.returncode == 0 and result.stdout == "same\n", (result.returncode, result.stderr[-2000:])


# a read of A[8 + i3, 13 + i2] whose must-source (under a modulo guard) and may-only sources both write
# its elements (tests/differential/regressions/compute_flow_crash_may_sources.c, reduced)
AROUND = "i0 <= n and i1 <= i0 and i0 - i1 < i2 <= 2 and i2 < i1"
WRITTEN = f"(i0) mod 2 = 0 and {AROUND} and i3 >= i2 and 4 - i2 <= i3 <= 1 + n"
MAY_SOURCES = f"""
import islpy as isl
from polypragma import dependences
sink = isl.UnionMap("[n] -> {{ S_0[i0, i1, i2, i3] -> A[8 + i3, 13 + i2] : {AROUND} and i2 <= i3 <= 1 + n }}")
must = isl.UnionMap("[n] -> {{ S_2[i0, i1, i2, i3] -> A[8 + i3, 13 + n - i1] : {WRITTEN} }}")
may = sink.union(isl.UnionMap("[n] -> {{ S_1[i0, i1, i2, i3] -> A[8 + i3, 13 + i2] : {WRITTEN} }}"))
dims = ["(i0)", "(i1)", "(i2)", "(-i3)"]
members = ["{{ " + "; ".join(f"S_{{k}}[i0, i1, i2, i3] -> [{{d}}]" for k in range(3)) + " }}" for d in dims]
members.append("{{ " + "; ".join(f"S_{{k}}[i0, i1, i2, i3] -> [({{k}})]" for k in range(3)) + " }}")
schedule = isl.Schedule.from_domain(sink.domain().union(may.domain()).union(must.domain())).insert_partial_schedule(
    isl.MultiUnionPwAff("[n] -> [" + ", ".join(members) + "]"))
if RAW:
    info = isl.UnionAccessInfo.from_sink(sink).set_must_source(must).set_may_source(may)
    info.set_schedule(schedule).compute_flow()
try:
    dependences._compute_flow(schedule, sink, must, may)
except isl.Error as error:
    print(error)
flow, _ = dependences._flow(sink, must, may.subtract(must), schedule)
expected, _ = dependences._flow_by_lexmax(sink, must, may.subtract(must), schedule)
assert flow.is_equal(expected) and not flow.is_empty()
print("same")
"""


def test_a_dataflow_analysis_that_crashes_isl_falls_back():
    """isl's compute_flow ends the process with a segmentation fault on these relations (checked first, in
    a process of its own); polypragma's analysis raises isl.Error instead, and the dependences come from
    the lexicographic-maximum form."""
    raw = subprocess.run([sys.executable, "-c", "RAW = True\n" + MAY_SOURCES], capture_output=True, text=True, cwd=TOP)
    assert raw.returncode < 0, (raw.returncode, raw.stdout, raw.stderr[-2000:])
    result = subprocess.run([sys.executable, "-c", "RAW = False\n" + MAY_SOURCES], capture_output=True, text=True,
                            cwd=TOP)
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    assert result.stdout == "isl's dataflow analysis crashed (in a forked process)\nsame\n", result.stdout
