"""The scheduler's input (schedule.for_scheduler), in isl notation: which bounds of the statements'
domains a dependence keeps, and that the schedule of a time-loop stencil comes out as before, fast."""

from __future__ import annotations

import islpy as isl

from polypragma import dependences
from polypragma.schedule import ScheduleOptions, beyond_scale, compute_schedule, for_scheduler

from harness import polypragma
from test_model import model

BOXES = isl.UnionSet("[T, n] -> { S[t, i] : 0 < t <= T and 0 < i < n - 1; R[t, i] : 0 < t <= T and 0 < i < n - 1 }")


def test_a_stencils_neighbours_lose_their_bounds():
    # the distances along i are -1, 0, 1 whatever the bounds: the coupling stays, and the sizes for
    # which the dependence exists
    stencil = isl.UnionMap("[T, n] -> { S[t, i] -> R[t, i'] : i - 1 <= i' <= i + 1 and 0 < t <= T and "
                           "0 < i < n - 1 and 0 < i' < n - 1 }")
    assert for_scheduler(stencil, BOXES).is_equal(
        isl.UnionMap("[T, n] -> { S[t, i] -> R[t, i'] : i - 1 <= i' <= i + 1 and T >= 1 and n >= 3 }"))


def test_a_dependence_on_every_later_step_keeps_the_time_bounds():
    # t' - t is unbounded without t's bounds: they stay; i's go
    later = isl.UnionMap("[T, n] -> { S[t, i] -> R[t', i] : t <= t' and 0 < t <= T and 0 < t' <= T and "
                         "0 < i < n - 1 }")
    assert for_scheduler(later, BOXES).is_equal(
        isl.UnionMap("[T, n] -> { S[t, i] -> R[t', i] : 0 < t <= t' <= T and n >= 3 }"))


def test_the_parameters_constraints_stay():
    # the dependence exists only where n >= 3; without it every size would bind the schedule
    last = isl.UnionMap("[T, n] -> { S[t, i] -> R[t, i' = n - 2] : i < n - 2 and 0 < t <= T and 0 < i }")
    result = for_scheduler(last, BOXES)
    assert result.params().is_subset(isl.Set("[T, n] -> { : n >= 3 and T >= 1 }"))
    assert last.is_subset(result)


def test_dependences_between_triangles_or_depths_are_kept_as_they_are():
    triangle = isl.UnionSet("[n] -> { S[i, j] : 0 <= i < n and i <= j < n; T[i] : 0 <= i < n }")
    within = isl.UnionMap("[n] -> { S[i, j] -> S[i + 1, j] : 0 <= i and i + 1 <= j < n }")
    across = isl.UnionMap("[n] -> { T[i] -> S[i, j] : 0 <= i <= j < n }")
    assert for_scheduler(within, triangle).is_equal(within)
    assert for_scheduler(across, triangle).is_equal(across)


HEAT = """
  for (int t = 1; t <= tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          B[i][j][k] = 0.125 * (A[i+1][j][k] - 2.0 * A[i][j][k] + A[i-1][j][k])
                     + 0.125 * (A[i][j+1][k] - 2.0 * A[i][j][k] + A[i][j-1][k])
                     + 0.125 * (A[i][j][k+1] - 2.0 * A[i][j][k] + A[i][j][k-1]) + A[i][j][k];
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          A[i][j][k] = 0.125 * (B[i+1][j][k] - 2.0 * B[i][j][k] + B[i-1][j][k])
                     + 0.125 * (B[i][j+1][k] - 2.0 * B[i][j][k] + B[i][j-1][k])
                     + 0.125 * (B[i][j][k+1] - 2.0 * B[i][j][k] + B[i][j][k-1]) + B[i][j][k];
  }
"""


def test_a_3d_heat_stencil_keeps_its_schedule(tmp_path):
    # the time loop outermost and sequential, each sweep a parallel band of three members: what isl
    # chose from the whole dependences, which took it 1.4 s (0.04 s now, within a 50,000-operation bound)
    scop = model(tmp_path, HEAT, "int tsteps, int n, double A[n][n][n], double B[n][n][n]")
    deps = dependences.compute(scop)
    result = compute_schedule(scop, deps, ScheduleOptions(max_operations=50_000, timeout=0))
    assert result.rescheduled, result.fallback_reason
    expected = isl.UnionMap("[tsteps, n] -> { S_0[t, i, j, k] -> [t, 0, i, j, k]; S_1[t, i, j, k] -> [t, 1, i, j, k] }",
                            context=scop.domain.get_ctx())
    assert result.schedule.get_map().is_equal(expected)


def test_a_member_whose_coincidence_test_fails_is_sequential(tmp_path, monkeypatch):
    # an exception must not cross isl's callback (islpy ignores it, and isl goes on from a broken state):
    # where isl fails in the test of a band's members, none of them is coincident
    import polypragma.schedule as schedule

    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 1; j < n; j++)\n    A[i][j] = A[i][j - 1] + 1;",
                 "int n, double A[n][n]")
    deps = dependences.compute(scop)
    options = ScheduleOptions(reschedule=False)

    def band(result) -> list[bool]:
        node = result.schedule.get_root()
        while node.get_type() != isl.schedule_node_type.band:
            node = node.child(0)
        return [node.band_member_get_coincident(k) for k in range(node.band_n_member())]

    assert all(band(compute_schedule(scop, deps, options)))

    def failing(deltas):
        raise isl.Error("as an isl operation past its bound")

    monkeypatch.setattr(schedule, "_zero_like", failing)
    assert not any(band(compute_schedule(scop, deps, options)))


def _one_band(domain: str, member: str) -> tuple[isl.Schedule, isl.UnionSet]:
    domain_set = isl.UnionSet(domain)
    band = isl.MultiUnionPwAff.from_union_pw_aff(isl.UnionPwAff(member))
    return isl.Schedule.from_domain(domain_set).insert_partial_schedule(band), domain_set


def test_coefficients_within_the_square_of_the_domains_range_are_kept():
    # trisolv's back substitution for N = 60 (-DN=60 in its RUN lines): a dimension that orders the
    # instances of both loops in one line, W i + j with W the width of j's range
    schedule, domain = _one_band("{ S[i, j] : 0 <= i < 60 and i < j < 60 }", "{ S[i, j] -> [(-58i + j)] }")
    assert beyond_scale(schedule, domain) is None
    # (2 * 59 + 2) ** 2, the most two nested loops of that range need
    schedule, domain = _one_band("{ S[i, j] : 0 <= i < 60 and i < j < 60 }", "{ S[i, j] -> [(14400i + j)] }")
    assert beyond_scale(schedule, domain) is None


def test_coefficients_past_it_are_not():
    # differential program 8439's first band, on a part of its statement's domain (numbers up to 2)
    domain = ("[T] -> { S_2[t, i1, i2, i3] : (i1) mod 2 = 0 and (1 + i3) mod 2 = 0 and 0 <= t < T and "
              "-2 + t <= i1 <= 2 and -2 + i1 <= i2 <= 2 + t - i1 and 0 < i3 <= 2 + t - i1 }")
    schedule, uset = _one_band(domain, "[T] -> { S_2[t, i1, i2, i3] -> [(1486 + 2058t + 603i1 - 46i2 + 21i3)] }")
    assert beyond_scale(schedule, uset) == (
        "isl's schedule has a coefficient of 2058 (S_2[t, i1, i2, i3] -> 1486 + 2058t + 603i1 - 46i2 + 21i3) where "
        "the domain's numbers (at most 2) need at most 36; isl's code generation could take minutes on it")
    schedule, uset = _one_band("{ S[i, j] : 0 <= i < 60 and i < j < 60 }", "{ S[i, j] -> [(14401i + j)] }")
    assert "coefficient of 14401" in beyond_scale(schedule, uset)


def test_the_source_order_is_kept_where_it_runs_the_deepest_statements_more_in_parallel(tmp_path):
    # a Jacobi step, the error it made and the copy back: isl's scheduler skewed the three into a wavefront
    # whose band it could not mark parallel (a launch a wavefront, each on one thread); the source's loops
    # are each parallel inside the time loop, and the GPU stage keeps them (schedule_search)
    source = tmp_path / "k.c"
    source.write_text(
        "#include <math.h>\nvoid k(int ts, int n, double A[n], double B[n], double err[ts])\n{\n#pragma scop\n"
        "  for (int t = 0; t < ts; t++) {\n    for (int i = 1; i < n - 1; i++)\n"
        "      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);\n    err[t] = 0.0;\n"
        "    for (int i = 1; i < n - 1; i++)\n      err[t] = err[t] + fabs(B[i] - A[i]) * 0.5;\n"
        "    for (int i = 1; i < n - 1; i++)\n      A[i] = B[i];\n  }\n#pragma endscop\n}\n")
    status, messages = polypragma(source, tmp_path / "out", ["--target", "cuda", "--explain", "-v"])
    assert status == 0, messages
    assert "kept the source's order" in messages, messages
    for line in (7, 10, 12):
        kernel = next(m for m in messages.splitlines() if f"(statements at line(s) {line})" in m)
        assert "inside 1 host loop(s); the outer 1 parallel loop(s)" in kernel, kernel
