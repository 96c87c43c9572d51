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
