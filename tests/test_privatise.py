"""Live-range reordering and privatised temporaries (issue 17, item 4), in isl notation: the live
ranges and their order, the forced dependences, which arrays get a copy per parallel iteration and
along which loops, the rewritten accesses and the copy back of the last write; and the shape of the
GPU code they give (doitgen: one kernel, r and q on blocks and threads)."""

from __future__ import annotations

import re

import islpy as isl

from harness import KERNELS, polypragma
from test_model import model, same

from polypragma import dependences, privatise
from polypragma.schedule import ScheduleOptions, compute_schedule, configure_context, describe_bands, mark_coincidence

DOITGEN = """  int r, q, p, s;
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }"""
DOITGEN_PARAMS = "int nr, int nq, int np, double A[nr][nq][np], double C4[np][np], double sum[np]"


def doitgen(tmp_path):
    scop = model(tmp_path, DOITGEN, DOITGEN_PARAMS)
    configure_context(scop.context.get_ctx(), ScheduleOptions())
    return scop, dependences.compute(scop)


def test_live_ranges_of_doitgen_stay_inside_one_r_q_iteration(tmp_path):
    scop, deps = doitgen(tmp_path)
    ranges = deps.live_ranges
    sums = ranges.untagged(ranges.of_arrays(ranges.tagged_flow, {"sum"}))
    assert same(sums, "[nr, nq, np] -> { S_0[r, q, p] -> S_1[r, q, p, 0] : 0 <= r < nr and 0 <= q < nq and 0 <= p < np;"
                      " S_1[r, q, p, s] -> S_1[r, q, p, s + 1] : 0 <= r < nr and 0 <= q < nq and 0 <= p < np and"
                      " 0 <= s <= np - 2; S_1[r, q, p, np - 1] -> S_2[r, q, p] : 0 <= r < nr and 0 <= q < nq and"
                      " 0 <= p < np }")
    # the last value of sum[p] is written by the last (r, q): it is what the caller sees after the region
    assert same(ranges.live_out.intersect_range(isl.UnionSet("[nr, nq, np] -> { sum[p] }", context=scop.context.get_ctx())),
                "[nr, nq, np] -> { S_1[nr - 1, nq - 1, p, np - 1] -> sum[p] : nr > 0 and nq > 0 and 0 <= p < np }")
    # the read of A[r][q][s] sees the value from before the region: S_2's later write must stay after it
    assert same(ranges.forced_live_in, "[nr, nq, np] -> { S_1[r, q, p, s] -> S_2[r, q, s] : 0 <= r < nr and "
                                       "0 <= q < nq and 0 <= p < np and 0 <= s < np }")
    # the order between live ranges of sum crosses r and q: this is what kept them sequential
    order = ranges.untagged(ranges.of_arrays(ranges.tagged_order, {"sum"}))
    assert not order.intersect(isl.UnionMap("[nr, nq, np] -> { S_2[r, q, p] -> S_0[r + 1, q', p] }",
                                            context=scop.context.get_ctx())).is_empty()
    assert privatise.candidates(scop, deps) == frozenset({"sum"})  # A's values from before are read


def test_privatisable_sum_makes_r_and_q_parallel_and_is_expanded_along_them(tmp_path):
    scop, deps = doitgen(tmp_path)
    strict = compute_schedule(scop, deps, ScheduleOptions())
    assert describe_bands(strict.schedule)[:2] == ["band at depth 0, 1 member(s): sequential",
                                                   "band at depth 1, 1 member(s): sequential"]
    relaxed = compute_schedule(scop, deps, ScheduleOptions(), frozenset({"sum"}))
    assert describe_bands(relaxed.schedule)[0] == "band at depth 0, 2 member(s): parallel, parallel (permutable)"
    chosen = privatise.plan(scop, deps, relaxed.schedule, frozenset({"sum"}))
    assert not chosen.rejected and [label for label, _ in chosen.expansions["sum"]] == ["r", "q"]
    rewritten, done, copy_backs = privatise.apply(scop, deps, chosen)
    assert [(p.array, p.copy, p.members, p.live_out) for p in done] == [("sum", "sum_private", ("r", "q"), True)]
    assert privatise.verify(scop, rewritten, relaxed.schedule, copy_backs) is None
    s1 = rewritten.statement("S_1")
    domain = "0 <= r < nr and 0 <= q < nq and 0 <= p < np and 0 <= s < np"
    # the copy: sum[p] as sum_private[p][r][q]; the last write also stores its value in sum[p]
    assert same(s1.reads, f"[nr, nq, np] -> {{ S_1[r, q, p, s] -> A[r, q, s] : {domain}; S_1[r, q, p, s] -> C4[s, p] : "
                          f"{domain}; S_1[r, q, p, s] -> sum_private[p, r, q] : {domain} }}")
    assert same(s1.must_writes, f"[nr, nq, np] -> {{ S_1[r, q, p, s] -> sum_private[p, r, q] : {domain}; "
                                "S_1[nr - 1, nq - 1, p, np - 1] -> sum[p] : nr > 0 and nq > 0 and 0 <= p < np }")
    private = next(a for a in rewritten.arrays if a.name == "sum_private")
    assert private.kind == "local" and private.rank == 3
    # on the rewritten program, r and q carry no dependence at all
    final = mark_coincidence(relaxed.schedule, dependences.compute(rewritten))
    assert describe_bands(final)[0] == "band at depth 0, 2 member(s): parallel, parallel (permutable)"


def test_a_value_that_crosses_iterations_is_not_privatised(tmp_path):
    # even rows write u, odd rows read what the row before wrote: the flow crosses i
    scop = model(tmp_path, "for (i = 0; i < n; i++) {\n  for (j = 0; j < m; j++)\n    if (i % 2 == 0)\n"
                           "      A[j] = C[i][j];\n  for (j = 0; j < m; j++)\n    B[i * m + j] = A[j];\n}")
    configure_context(scop.context.get_ctx(), ScheduleOptions())
    deps = dependences.compute(scop)
    assert "A" in privatise.candidates(scop, deps)  # no value from before the region is read
    result = compute_schedule(scop, deps, ScheduleOptions(), frozenset({"A"}))
    # j (outermost now) is parallel; the flow keeps i in sequence
    assert describe_bands(result.schedule) == ["band at depth 0, 2 member(s): parallel, sequential (permutable)"]
    chosen = privatise.plan(scop, deps, result.schedule, frozenset({"A"}))
    assert chosen.expansions == {} and not chosen.rejected


def test_a_temporary_read_before_it_is_written_is_no_candidate(tmp_path):
    # A[j] of row 0 is read before any write: a copy per i would not hold it
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < m; j++) {\n    B[i * m + j] = A[j];\n"
                           "    A[j] = C[i][j];\n  }")
    deps = dependences.compute(scop)
    assert "A" not in privatise.candidates(scop, deps)


def test_doitgen_runs_its_r_q_p_in_parallel_with_the_temporary_on_the_device_only(tmp_path):
    status, messages = polypragma(KERNELS / "doitgen.c", tmp_path, ["--target", "cuda", "--explain"])
    assert status == 0, messages
    unit = (tmp_path / "doitgen.polypragma.cu").read_text()
    host = unit[unit.index("int polypragma_doitgen_region0("):]
    # the (r, q) band distributed over its two nests (gpu/distribute.py): a kernel each, over r, q and p
    assert len(re.findall(r"<<<grid, block>>>", host)) == 2
    assert "for (int c0" not in host  # no host loop around the launches
    assert messages.count("the outer 3 parallel loop(s) of its band are tiled") == 2
    assert "sum: privatised as sum_private (one copy per iteration of the parallel loop(s) r, q)" in messages
    assert "sum_private: device only" in messages
    # the copy back of the last (r, q)'s values, from the thread's registers
    assert re.search(r"if \(.*== nr && .*== nq && .*== np\)\n\s*sum\[[^]]*\] = private_sum_private\[", unit)
    # without live-range reordering: launches per (r, q) pair, inside two host loops; p alone gives too few
    # threads, so the reset of sum[p] is a kernel of its own and the sum's loop s spreads over threads
    status, messages = polypragma(KERNELS / "doitgen.c", tmp_path / "old",
                                  ["--target", "cuda", "--no-live-range-reordering", "--explain"])
    old = (tmp_path / "old" / "doitgen.polypragma.cu").read_text()
    assert "for (int c0" in old and len(re.findall(r"<<<grid, block>>>", old)) == 3
    assert "the statements of line(s) 18; 20 split into kernels" in messages, messages


def test_verify_refuses_a_copy_that_a_value_crosses(tmp_path):
    # u[j] written in even rows, read in the next row: a copy per i would lose the value
    scop = model(tmp_path, "for (i = 0; i < n; i++) {\n  for (j = 0; j < m; j++)\n    if (i % 2 == 0)\n"
                           "      A[j] = C[i][j];\n  for (j = 0; j < m; j++)\n    B[i * m + j] = A[j];\n}")
    configure_context(scop.context.get_ctx(), ScheduleOptions())
    deps = dependences.compute(scop)
    along_i = isl.UnionPwAff("[n, m] -> { S_0[i, j] -> [(i)]; S_1[i, j] -> [(i)] }", context=scop.context.get_ctx())
    forced = privatise.Plan({"A": [("i", along_i)]}, frozenset())
    rewritten, done, copy_backs = privatise.apply(scop, deps, forced)
    assert done[0].copy == "A_private"
    assert privatise.verify(scop, rewritten, scop.schedule, copy_backs) == "a read would read another write"


def test_a_slice_per_iteration_is_not_expanded(tmp_path):
    # a row copied, scaled and half-overwritten in each i (inline_rows' helpers): fused, the column loop
    # would carry only C's anti and output dependences, but a copy per column adds a dimension the
    # loops lack (n^3 elements for an n^2 array): refused, and C's order stays a constraint
    scop = model(tmp_path, "for (i = 0; i < n; i++) {\n  for (j = 0; j < m; j++)\n    C[i][j] = A[i * m + j];\n"
                           "  for (j = 0; j < m; j++)\n    C[i][j] *= 2.0;\n  for (j = 1; j < m; j += 2)\n"
                           "    C[i][j] = 0.5 * C[i][j - 1];\n}")
    configure_context(scop.context.get_ctx(), ScheduleOptions())
    deps = dependences.compute(scop)
    assert privatise.candidates(scop, deps) == frozenset({"C"})
    result = compute_schedule(scop, deps, ScheduleOptions(), frozenset({"C"}))
    chosen = privatise.plan(scop, deps, result.schedule, frozenset({"C"}))
    assert chosen.expansions == {} and set(chosen.rejected) == {"C"}


def test_a_scalar_behind_a_pointer_is_expanded_as_a_scalar_is(tmp_path):
    # *t is the element t[0]: a copy per (i, j) adds the two dimensions of the loops and no more (its one
    # index does not vary), so the nest runs in parallel, not on one thread
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < m; j++) {\n    *t = A[i][j] + 1.0;\n"
                           "    B[i][j] = *t * *t;\n  }", "int n, int m, double A[n][m], double B[n][m], double *t")
    configure_context(scop.context.get_ctx(), ScheduleOptions())
    deps = dependences.compute(scop)
    assert "t" in privatise.candidates(scop, deps)
    result = compute_schedule(scop, deps, ScheduleOptions(), frozenset({"t"}))
    chosen = privatise.plan(scop, deps, result.schedule, frozenset({"t"}))
    assert not chosen.rejected and [label for label, _ in chosen.expansions["t"]] == ["i", "j"]
    rewritten, done, copy_backs = privatise.apply(scop, deps, chosen)
    assert privatise.verify(scop, rewritten, result.schedule, copy_backs) is None
    assert next(a for a in rewritten.arrays if a.name == "t_private").rank == 3


def test_openmp_declares_a_copy_per_thread(tmp_path):
    status, messages = polypragma(KERNELS / "doitgen.c", tmp_path, ["--target", "c", "--openmp"])
    assert status == 0, messages
    text = (tmp_path / "doitgen.polypragma.c").read_text()
    # r is the parallel loop; each thread declares its own sum_private, with sum's shape
    assert re.search(r"#pragma omp parallel for[^\n]*\n  for \(int c0 = 0; c0 < nr; \+\+c0\) \{\n"
                     r"    double sum_private\[np\];\n", text)
    assert "sum_private[c2] += A[c0][c1][c3] * C4[c3][c2];" in text
    assert re.search(r"if \(c0 \+ 1 == nr && c1 \+ 1 == nq && c3 \+ 1 == np\)\n\s*sum\[c2\] = sum_private\[c2\];", text)
    # sequential C needs no copy, and keeps the schedule it had
    status, _ = polypragma(KERNELS / "doitgen.c", tmp_path / "seq", ["--target", "c"])
    assert "sum_private" not in (tmp_path / "seq" / "doitgen.polypragma.c").read_text()


ROW_SUMS = """  for (j = 0; j < m; j++)
    y[j] = 0.0;
  for (i = 0; i < n; i++) {
    double s = 0.0;
    for (j = 0; j < m; j++)
      s = s + A[i][j] * x[j];
    t[i] = s;
    for (j = 0; j < m; j++)
      y[j] = y[j] + A[i][j] * s;
  }"""
ROW_SUMS_PARAMS = "int n, int m, double A[n][m], double x[m], double y[m], double t[n]"


def test_a_scalar_read_by_a_later_loop_of_its_row_is_expanded_along_the_row_loop(tmp_path):
    # atax: s is summed over row i and read by the next loop of the same row, which sums into y over
    # the rows: the next row overwrites s, so i stays sequential; each row with its own s, the sums of
    # all rows run first, a row per thread, then y, a column per thread
    scop = model(tmp_path, ROW_SUMS, ROW_SUMS_PARAMS)
    configure_context(scop.context.get_ctx(), ScheduleOptions())
    deps = dependences.compute(scop)
    assert "s" in privatise.candidates(scop, deps)
    chosen = privatise.along_loops(scop, deps, frozenset({"s"}))
    assert chosen.source_loops and [label for label, _ in chosen.expansions["s"]] == ["i"]
    expanded, done, _ = privatise.apply(scop, deps, chosen)
    assert [(p.array, p.copy, p.members, p.source_loops) for p in done] == [("s", "s_private", ("i",), True)]
    # every access of s is now one of s_private[i], and s itself is gone (no value of it is seen after)
    accesses = None
    for r in expanded.references:
        if r.array == "s_private":
            one = isl.UnionMap.from_map(r.relation)
            accesses = one if accesses is None else accesses.union(one)
    assert same(accesses, "[n, m] -> { S_1[i] -> s_private[i] : 0 <= i < n; S_3[i] -> s_private[i] : 0 <= i < n; "
                          "S_2[i, j] -> s_private[i] : 0 <= i < n and 0 <= j < m; "
                          "S_4[i, j] -> s_private[i] : 0 <= i < n and 0 <= j < m }")
    assert "s" not in {a.name for a in expanded.arrays}
    # a value of s never crosses an iteration of a loop that does not enclose all its accesses: j
    # encloses only some, so the copy is along i alone


def test_a_copy_that_gains_is_kept_where_another_gains_nothing(tmp_path):
    # t, written then summed in each i, is expanded along i so that the sum runs in parallel; beside it, a
    # row sum's local (privatised in its row loop anyway) gains nothing from a copy along its loop, and its
    # statement, the deepest of all, is what the copies together were judged by (reduction_forms.c runs it)
    source = tmp_path / "k.c"
    source.write_text("void k(int n, int m, double a[n], double A[m][n], double r[m], double *q)\n{\n  double t = 0.0;\n"
                      "#pragma scop\n  for (int i = 0; i < n; i++) {\n    t = a[i] * 2.0;\n    *q += t * t;\n  }\n"
                      "  for (int i = 0; i < m; i++) {\n    double acc = 0.0;\n    for (int j = 0; j < n; j++)\n"
                      "      acc = acc + A[i][j] * a[j];\n    r[i] = acc;\n  }\n#pragma endscop\n  a[0] = t;\n}\n")
    status, messages = polypragma(source, tmp_path / "out", ["--target", "cuda", "--explain"])
    assert status == 0, messages
    assert "t: expanded as t_private (one copy per iteration of the loop(s) i of the source)" in messages
    assert "runs on one thread" not in messages, messages


def test_atax_runs_its_rows_and_columns_in_two_kernels_without_host_loops(tmp_path):
    status, messages = polypragma(KERNELS / "atax.c", tmp_path, ["--target", "cuda", "--explain"],
                                  ["-DM=52", "-DN=60"])
    assert status == 0, messages
    assert "s: expanded as s_private (one copy per iteration of the loop(s) i of the source)" in messages
    unit = (tmp_path / "atax.polypragma.cu").read_text()
    host = unit[unit.index("int polypragma_atax_region0("):]
    assert len(re.findall(r"<<<grid, block>>>", host)) == 2
    assert "for (int c0" not in host  # no host loop around the launches
    assert "inside 1 host loop(s)" not in messages and "runs on one thread" not in messages
    # the first kernel keeps a row's sum in a register and stores it for the second, which reads it
    kernel0 = unit[unit.index("void polypragma_atax_region0_kernel0("):unit.index("void polypragma_atax_region0_kernel1(")]
    assert re.search(r"\bs_private\[[^]]+\] = private_s_private\[0\];", kernel0), kernel0
    assert "s_private: device only" in messages
    # where nothing is gained (the c target without OpenMP runs every loop in order) s stays as it is
    status, messages = polypragma(KERNELS / "atax.c", tmp_path / "c", ["--target", "c", "--explain"],
                                  ["-DM=52", "-DN=60"])
    assert status == 0 and "expanded" not in messages


def test_an_expansion_that_gains_no_parallel_loop_is_not_kept(tmp_path):
    # t is summed per row and read in the same row only: privatised along the parallel i, as before
    status, messages = polypragma(KERNELS / "temporaries.c", tmp_path, ["--target", "cuda", "--explain"])
    assert status == 0, messages
    assert "t: privatised as t_private (one copy per iteration of the parallel loop(s) i)" in messages
    assert "t: expanded" not in messages
    # durbin's sum, expanded along k, would let only its reset (sum = 0.0) run for every k at once: the
    # sum itself stays in sequence inside the host loop over k, so the copy is not worth its buffer
    status, messages = polypragma(KERNELS / "durbin.c", tmp_path / "durbin", ["--target", "cuda", "--explain"])
    assert status == 0, messages
    assert "expanded" not in messages and "inside 1 host loop(s)" in messages


TWO_FILTERS = """  for (i = 0; i < n; i++) {
    t = 0.0;
    for (j = 0; j < m; j++) {
      B[i][j] = A[i][j] + 0.5 * t;
      t = B[i][j];
    }
  }
  for (j = 0; j < m; j++) {
    t = 0.0;
    for (i = 0; i < n; i++) {
      C[i][j] = B[i][j] + 0.25 * t;
      t = C[i][j];
    }
  }"""
TWO_FILTERS_PARAMS = "int n, int m, double A[n][m], double B[n][m], double C[n][m], double t"


def test_a_scalar_of_two_nests_is_split_into_its_webs(tmp_path):
    # deriche's shape: t carries a row filter's value along j in one nest and a column filter's along i
    # in the other; no loop encloses both, so it could not be expanded; split, each web can
    scop = model(tmp_path, TWO_FILTERS, TWO_FILTERS_PARAMS)
    configure_context(scop.context.get_ctx(), ScheduleOptions())
    deps = dependences.compute(scop)
    split, webs, copy_backs = privatise.split_webs(scop, deps)
    assert webs == {"t": ("t_2", "t_3")}
    by_array = {}
    for r in split.references:
        by_array.setdefault(r.array, set()).add(r.statement)
    assert by_array["t_2"] == {"S_0", "S_1", "S_2"} and by_array["t_3"] == {"S_3", "S_4", "S_5"}
    # t's value after the region (a parameter: the caller's variable) comes from the last write of a web,
    # which also stores it in t under the condition that it is the last one: the second nest's last
    # t = C[i][j], its t = 0.0 where n <= 0, or the first nest's t = 0.0 where m <= 0
    assert by_array["t"] == {"S_0", "S_3", "S_5"} and len(copy_backs) == 3
    split_deps = dependences.compute(split)
    chosen = privatise.along_loops(split, split_deps, privatise.candidates(split, split_deps, copy_backs), copy_backs)
    assert {a: [label for label, _ in m] for a, m in chosen.expansions.items()} == {"t_2": ["i"], "t_3": ["j"]}


def test_deriche_runs_its_filters_a_row_or_a_column_a_thread(tmp_path):
    status, messages = polypragma(KERNELS / "deriche.c", tmp_path, ["--target", "cuda", "--explain"])
    assert status == 0, messages
    assert "ym1_2: expanded as ym1_2_private (one copy per iteration of the loop(s) i of the source)" in messages
    assert "ym1_3: expanded as ym1_3_private (one copy per iteration of the loop(s) j of the source)" in messages
    assert "(a web of ym1: values that no write of its other webs reaches" in messages
    # the four filters (lines 45, 58, 75, 88 of the source) each in a kernel with a parallel loop
    for line in (45, 58, 75, 88):
        kernel = next(k for k in messages.splitlines() if k.startswith("  kernel ") and f" {line}," in k)
        assert "inside 0 host loop(s); the outer 1 parallel loop(s)" in kernel, kernel


ROW_THEN_SCALE = """  for (i = 0; i < n; i++) {
    t = A[i][0];
    for (j = 1; j < m; j++)
      t -= A[i][j];
    B[i] = t;
  }
  for (i = 0; i < n; i++) {
    t = 2.0 * B[i];
    C[i] = t;
  }"""


def test_the_web_seen_after_the_region_keeps_the_name_where_none_reads_the_value_from_before(tmp_path):
    # t is written first in both nests, and what the code after the region sees of it is the second
    # nest's last t (where n > 0; t's value from before where n <= 0, which no web reads): that web
    # keeps t, with no copy back, the first is renamed
    scop = model(tmp_path, ROW_THEN_SCALE, "int n, int m, double A[n][m], double B[n], double C[n], double t")
    configure_context(scop.context.get_ctx(), ScheduleOptions())
    deps = dependences.compute(scop)
    split, webs, copy_backs = privatise.split_webs(scop, deps)
    assert webs == {"t": ("t_2",)} and not copy_backs
    by_array = {}
    for r in split.references:
        by_array.setdefault(r.array, set()).add(r.statement)
    assert by_array["t_2"] == {"S_0", "S_1", "S_2"} and by_array["t"] == {"S_3", "S_4"}


def test_ludcmp_factorises_inside_one_host_loop(tmp_path):
    # w is the temporary of four nests; split into its webs, the last (the back substitution's, which
    # the function returns) keeps w, and stays a reduction over j; the factorisation's two webs are
    # expanded along (i, j), so that its loops run inside one host loop (k, right-looking) where two
    # (i, j) launched a kernel per pair
    status, messages = polypragma(KERNELS / "ludcmp.c", tmp_path, ["--target", "cuda", "--explain"])
    assert status == 0, messages
    assert "(a web of w: values that no write of its other webs reaches" in messages
    assert "w_5" not in messages
    assert "w_2: expanded as w_2_private (one copy per iteration of the loop(s) i, j of the source)" in messages
    assert "w_3: expanded as w_3_private (one copy per iteration of the loop(s) i, j of the source)" in messages
    kernels = [k for k in messages.splitlines() if k.startswith("  kernel ")]
    assert kernels and all("inside 0 host loop(s)" in k or "inside 1 host loop(s)" in k for k in kernels), kernels
    back = next(k for k in kernels if " 42)" in k)
    assert "the outer 1 parallel loop(s)" in back, back


def test_a_copy_kept_in_registers_all_along_has_no_device_buffer(tmp_path):
    # local_accumulators.c's sums: one kernel each keeps its privatised copy in registers for all its
    # tiles, so cuda allocates no buffer of n x m doubles for it, passes none, and --explain says so;
    # OpenCL (PoCL), which declares the registers around each tile, crosses the tiles through the buffer.
    # (--no-reductions: the row sum s stays in its kernel, in order; spread over threads, its kernels
    # meet in s_private's device buffer)
    status, messages = polypragma(KERNELS / "local_accumulators.c", tmp_path / "cuda",
                                  ["--target", "cuda", "--explain", "--no-reductions"])
    assert status == 0, messages
    for name in ("sum_private", "s_private"):
        assert f"  {name}: in registers only (each thread keeps its copy in registers all along): no device " \
               "buffer" in messages
        # (the register array, private_sum_private, stays)
        assert not re.search(rf"\b{name}\b", (tmp_path / "cuda" / "local_accumulators.polypragma.cu").read_text())
    status, messages = polypragma(KERNELS / "local_accumulators.c", tmp_path / "opencl", ["--target", "opencl"])
    assert status == 0, messages
    assert "bind_sum_private" in (tmp_path / "opencl" / "local_accumulators.polypragma.c").read_text()


def test_the_copys_subscripts_keep_no_condition_of_the_copys_extent(tmp_path):
    # differential program 7476 (seed 6), reduced: s, written in strided loops under a time loop, is
    # expanded along the four skewed members of the new schedule; their lowest values over the
    # instances are piecewise, with existential variables of their own.  Subtracted from the members as
    # they were, those went into every access of the copy (10 existential variables where the domain
    # has 3), and the dataflow analysis of the rewritten program took 26 s of the verification (49 s
    # of the program's schedule); on the statement's own instances the subscripts are the members less
    # a constant, the same accesses
    body = """  int t, i1, i2, i3;
  for (t = 0; t < T; t++)
    if (t % 2 == 0) {
      for (i1 = t; i1 < n; i1++)
        for (i2 = 1; i2 < ((1) > (n - 2) ? (1) : (n - 2)); i2 += 3)
          for (i3 = 0; i3 < n; i3 += 3)
            s = 0.5 * k;
    } else
      A[t] = (A[t] + 1) % 997;"""
    scop = model(tmp_path, body, "int n, int T, int k, int A[5], double s")
    configure_context(scop.context.get_ctx(), ScheduleOptions())
    deps = dependences.compute(scop)
    result = compute_schedule(scop, deps, ScheduleOptions(), frozenset({"s"}))
    chosen = privatise.plan(scop, deps, result.schedule, frozenset({"s"}))
    assert len(chosen.expansions["s"]) == 4 and not chosen.rejected
    rewritten, done, copy_backs = privatise.apply(scop, deps, chosen)
    assert [(p.copy, p.live_out) for p in done] == [("s_private", True)]

    def most_divs(relation) -> int:
        pieces = relation.get_basic_maps() if isinstance(relation, isl.Map) else relation.get_basic_sets()
        return max(piece.dim(isl.dim_type.div) for piece in pieces)

    domain = most_divs(rewritten.statement("S_0").domain)
    copies = [r for r in rewritten.references if r.array == "s_private"]
    assert {r.is_write for r in copies} == {True, False}  # the write, and the copy back's read
    assert all(most_divs(r.relation) <= domain for r in copies)
    assert privatise.verify(scop, rewritten, result.schedule, copy_backs, deps) is None
