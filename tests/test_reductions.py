"""Parallel reductions (issue 17, item 3), in isl notation: which statements are reductions, their
dependences, the relation a loop parallel as a reduction must not carry, which loops the GPU stage
maps because of them; and the shape of the code (--explain, --no-reductions)."""

from __future__ import annotations

import islpy as isl
import pytest
from pycparser import c_generator

from harness import KERNELS, compile_c, generated_path, opencl_device, polypragma, program_output, run
from test_model import model, same

from polypragma import dependences, reductions
from polypragma.codegen.reduction_code import _identity, identity, update
from polypragma.gpu.block_copies import BLOCK_COPY_GRID
from polypragma.gpu.mapping import map_to_gpu
from polypragma.gpu.spread import spread_reduction
from polypragma.gpu.names import IteratorNames
from polypragma.gpu.region import prepare
from polypragma.gpu.sizes import SizeOptions
from polypragma.schedule import ScheduleOptions, compute_schedule, configure_context

GENERATOR = c_generator.CGenerator()
PARAMS = "int n, int m, double *a, double A[n][m], double *y, double s, int k, int *v"


def analysed(tmp_path, body: str, params: str = PARAMS, floating: bool = True):
    scop = model(tmp_path, body, params)
    configure_context(scop.context.get_ctx(), ScheduleOptions())
    deps = dependences.compute(scop)
    return scop, deps, reductions.analyse(scop, deps, floating)


def found(tmp_path, body: str, floating: bool = True) -> list[tuple[str, str, str]]:
    scop = model(tmp_path, body, PARAMS)
    return [(r.statement, r.array, r.op) for r in reductions.find(scop, floating)]


def test_the_forms_of_a_reduction(tmp_path):
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s += a[i];") == [("S_0", "s", "+")]
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s = a[i] * 2 + s;") == [("S_0", "s", "+")]
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s -= a[i];") == [("S_0", "s", "+")]
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s = s * a[i];") == [("S_0", "s", "*")]
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s = s < a[i] ? s : a[i];") == [("S_0", "s", "min")]
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s = a[i] < s ? s : a[i];") == [("S_0", "s", "max")]
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < m; j++)\n    y[i] += A[i][j];") == \
        [("S_0", "y", "+")]
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  k = k > v[i] ? k : v[i];") == [("S_0", "k", "max")]


def test_chains_of_terms_are_reductions(tmp_path):
    # the accumulator added once among the terms of a chain of + and - (or of *), parenthesised or not
    for body in ("s = s + a[i] - a[i + 1] * 2;", "s = a[i] + s + 1.0;", "s = (a[i] - 1.0) + (s - a[i + 1]);",
                 "s = a[i] - (a[i + 1] - s);"):
        assert found(tmp_path, f"for (i = 0; i + 1 < n; i++)\n  {body}") == [("S_0", "s", "+")], body
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s = a[i] * s * 0.5;") == [("S_0", "s", "*")]
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  k = k - v[i] - i;") == [("S_0", "k", "+")]
    # a thread's contribution: the chain with the accumulator replaced by the identity in its type
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  s = s - a[i] + 2.0;", PARAMS)
    (r,) = reductions.find(scop)
    assert (r.op, r.negate, GENERATOR.visit(r.operand)) == ("+", False, "(-0.0 - a[i]) + 2.0")
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  w = w + v[i] + 2147483000;", PARAMS + ", long w")
    (r,) = reductions.find(scop)
    assert GENERATOR.visit(r.operand) == "(0L + v[i]) + 2147483000"  # added in long, as C adds w + v[i]


def test_bitwise_updates_of_integers_are_reductions(tmp_path):
    for body, op in (("k |= v[i];", "|"), ("k = k & (v[i] | 4);", "&"), ("k = v[i] ^ k ^ i;", "^")):
        assert found(tmp_path, f"for (i = 0; i < n; i++)\n  {body}") == [("S_0", "k", op)], body
    # a chain that mixes the operators is none
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  k = k | v[i] & 4;") == [("S_0", "k", "|")]
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  k = (k | v[i]) & 4;") == []
    # the identity of a chain's '&' has every bit set, in the accumulator's type
    (r,) = reductions.find(model(tmp_path, "for (i = 0; i < n; i++)\n  k = v[i] & k & 7;", PARAMS))
    assert GENERATOR.visit(r.operand) == "(v[i] & -1) & 7"
    assert _identity("&", "unsigned long", False) == "18446744073709551615UL" and _identity("^", "int", False) == "0"


def test_an_if_that_keeps_the_larger_value_is_a_maximum(tmp_path):
    # if (e > x) x = e is x = max(x, e): the condition goes, the update runs on every instance
    for body, op, operand in (("if (a[i] > s)\n    s = a[i];", "max", "a[i]"),
                              ("if (s <= a[i] * 2)\n    s = a[i] * 2;", "max", "a[i] * 2"),
                              ("if (s > a[i] - 1.0) {\n    s = a[i] - 1.0;\n  }", "min", "a[i] - 1.0"),
                              ("if (v[i] < k)\n    k = v[i];", "min", "v[i]"),
                              ("if (y[i] < a[i])\n    y[i] = a[i];", "max", "a[i]")):
        (r,) = reductions.find(model(tmp_path, f"for (i = 0; i < n; i++)\n  {body}", PARAMS))
        assert (r.op, r.guard, GENERATOR.visit(r.operand)) == (op, None, operand), body
    # not that form: another value kept than the one compared, a condition besides the comparison, an else
    for body in ("if (a[i] > s)\n    s = a[i] + 1.0;", "if (a[i] > s && a[i] < 2.0)\n    s = a[i];",
                 "if (a[i] > s)\n    s = a[i];\n  else\n    s = 0.0;", "if (a[i] == s)\n    s = a[i];"):
        assert found(tmp_path, f"for (i = 0; i < n; i++)\n  {body}") == [], body


def test_what_is_not_a_reduction(tmp_path):
    # not an associative update of the element
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s = s * 2 + a[i];") == []
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s = a[i] - s;") == []
    # chains that subtract the accumulator, hold it twice, or mix * into a sum
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s = a[i] - (s + 1.0);") == []
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s = s + a[i] + s;") == []
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s = s * 2.0 + a[i] - 1.0;") == []
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s = s * a[i] / 2.0;") == []
    # e reads the accumulator's array: a recurrence
    assert found(tmp_path, "for (i = 1; i < n; i++)\n  y[i] += y[i - 1];") == []
    # the read and the write are not the same element
    assert found(tmp_path, "for (i = 1; i < n; i++)\n  y[i] = y[i - 1] + a[i];") == []
    # an integer accumulator of double values: C converts at every step
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  k += a[i];") == []
    # --no-reductions: floating-point sums keep their order, integer ones do not need to
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  s += a[i];", floating=False) == []
    assert found(tmp_path, "for (i = 0; i < n; i++)\n  k += v[i];", floating=False) == [("S_0", "k", "+")]


DATA = "int n, int b, int key[n], int count[b], double a[n], double w[b], int k"


def found_on_data(tmp_path, body: str) -> list[tuple[str, str, str, bool, bool]]:
    """(statement, array, operator, under a condition, exact) of each reduction of ``body``."""
    scop = model(tmp_path, body, DATA)
    return [(r.statement, r.array, r.op, r.guard is not None, r.exact) for r in reductions.find(scop)]


def test_reductions_on_data(tmp_path):
    # an element chosen by the data: C evaluates the accumulator once, so the read is the element written
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  count[key[i]]++;") == \
        [("S_0", "count", "+", False, False)]
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  --count[key[i] / 2];") == \
        [("S_0", "count", "+", False, False)]
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  w[key[i]] += a[i];") == \
        [("S_0", "w", "+", False, False)]
    # ... or the same expression twice, reading nothing the statement writes
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  count[key[i]] = count[key[i]] + 2;") == \
        [("S_0", "count", "+", False, False)]
    # an update under a condition on data (the update alone, or alone in its block)
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  if (a[i] > 0) k++;") == [("S_0", "k", "+", True, True)]
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  if (key[i] > 0) { count[key[i] - 1] -= 3; }") == \
        [("S_0", "count", "+", True, False)]
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  if (a[i] < 1) w[0] = fmax(w[0], a[i]);") == \
        [("S_0", "w", "max", True, True)]


def test_an_if_else_of_two_updates_is_two_reductions(tmp_path):
    # a count or sum split by a condition: each branch a reduction under the condition (or its negation)
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  if (a[i] > 0) k++; else w[0] += a[i];") == \
        [("S_0", "k", "+", True, True), ("S_1", "w", "+", True, True)]
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  if (a[i] > 0) { count[key[i]]++; } else { k -= 2; }") \
        == [("S_0", "count", "+", True, False), ("S_1", "k", "+", True, True)]
    # not split: one variable in both branches, a condition reading what the first branch writes (it is
    # evaluated again for the second)
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  if (k > 3) k++; else w[0] += a[i];") == []
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  if (a[i] > 0) w[0] += a[i]++; else k++;") == []
    source = tmp_path / "split.c"
    source.write_text(SPLIT_SOURCE)
    expected = program_output(source, tmp_path / "original", ("1000", "1", "0"))
    for name, options in (("omp", ["--target", "c", "--openmp"]), ("opencl", ["--target", "opencl"])):
        status, messages = polypragma(source, tmp_path / name, options)
        assert status == 0 and messages == "", messages
        text = generated_path(source, tmp_path / name).read_text()
        if name == "omp":
            assert "reduction(+:p)" in text and "reduction(+:q)" in text, text
            got = program_output(generated_path(source, tmp_path / name), tmp_path / "omp.exe", ("1000", "1", "0"))
            assert got == expected
        elif not opencl_device():
            # (the floating-point sums change their last bits in another order: the counts are exact)
            got = program_output(generated_path(source, tmp_path / name), tmp_path / "ocl.exe", ("1000", "1", "0"),
                                 ("-lOpenCL",))
            assert [line.split()[:2] for line in got.splitlines()] == \
                [line.split()[:2] for line in expected.splitlines()], (got, expected)


SPLIT_SOURCE = """\
#include <stdio.h>
#include <stdlib.h>

static void kernel(int n, double *a, int *pos, int *neg, double *sp, double *sn)
{
    int p = 0, q = 0;
    double s = 0.0, t = 0.0;
#pragma scop
    for (int i = 0; i < n; i++)
        if (a[i] > 0.5)
            p++;
        else
            q++;
    for (int i = 0; i < n; i++) {
        if (a[i] > 0.25)
            s += a[i];
        else
            t -= a[i];
    }
#pragma endscop
    *pos = p;
    *neg = q;
    *sp = s;
    *sn = t;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double *a = malloc((n + 1) * sizeof(double));
    unsigned seed = 3;
    for (int i = 0; i < n; i++)
        a[i] = (seed = seed * 1103515245u + 12345u) % 1000 / 999.0;
    int p, q;
    double s, t;
    kernel(n, a, &p, &q, &s, &t);
    printf("%d %d %.17g %.17g\\n", p, q, s, t);
    return 0;
}
"""


def test_what_is_not_a_reduction_on_data(tmp_path):
    # the subscript, the condition or the operand reads the accumulator's array
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  count[count[i % b]]++;") == []
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  if (count[0] > 0) count[1]++;") == []
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  w[key[i]] += w[i % b];") == []
    # two expressions of the element: not known to be the same one
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  count[key[i]] = count[key[n - 1 - i]] + 1;") == []
    # not associative; an update with an else; a second statement in the block
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  count[key[i]] = count[key[i]] * 2 + 1;") == []
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  if (a[i] > 0) k++; else k--;") == []
    assert found_on_data(tmp_path, "for (i = 0; i < n; i++)\n  if (a[i] > 0) { k++; w[0] = 1; }") == []


def test_a_histogram_is_mapped_with_an_atomic_update_each(tmp_path):
    mapping = _mapped(tmp_path, "for (i = 0; i < n; i++)\n  count[key[i]]++;", DATA)
    (kernel,) = mapping.kernels
    assert kernel.mapped == 1
    (reduction,) = kernel.reductions
    assert not reduction.accumulated


def test_a_conditional_count_is_accumulated_per_thread(tmp_path):
    mapping = _mapped(tmp_path, "for (i = 0; i < n; i++)\n  if (a[i] > 0.5) k += 1;", DATA)
    (kernel,) = mapping.kernels
    (reduction,) = kernel.reductions
    assert kernel.mapped == 1 and reduction.accumulated and reduction.element == ()


def test_a_histogram_is_complete_before_it_is_read(tmp_path):
    scop, deps, analysis = analysed(tmp_path, "for (i = 0; i < n; i++)\n  count[key[i]]++;\n"
                                              "for (j = 0; j < b; j++)\n  k += count[j] * j;", DATA)
    assert [r.array for r in analysis.reductions] == ["count", "k"]
    # every update of the histogram precedes every read of it, although isl knows no element of either
    ctx = scop.context.get_ctx()
    assert not analysis.coincidence.intersect(
        isl.UnionMap("[n, b] -> { S_0[i] -> S_1[j] }", context=ctx)).is_empty()
    assert analysis.coincidence.intersect(isl.UnionMap("[n, b] -> { S_0[i] -> S_0[i'] }", context=ctx)).is_empty()


def test_the_reduction_dependences_and_what_a_parallel_loop_must_not_carry(tmp_path):
    scop, deps, analysis = analysed(tmp_path, "s = 0;\nfor (i = 0; i < n; i++)\n  s += a[i];\ny[0] = s;")
    # (the anti dependences relate each update's read to every later update)
    assert same(analysis.carried, "[n, m] -> { S_1[i] -> S_1[i'] : 0 <= i < i' < n }")
    # the initialisation precedes, and the read follows, every update: the value is complete before it
    # is read; between the updates only the reduction dependences are left out
    ctx = scop.context.get_ctx()
    assert same(analysis.coincidence.intersect_domain(isl.UnionSet("[n, m] -> { S_0[] }", context=ctx)),
                "[n, m] -> { S_0[] -> S_1[i] : 0 <= i < n; S_0[] -> S_2[] : n <= 0 }")
    assert analysis.coincidence.intersect(isl.UnionMap("[n, m] -> { S_1[i] -> S_1[i'] }",
                                                       context=scop.context.get_ctx())).is_empty()


def test_a_reset_inside_the_loop_keeps_it_sequential(tmp_path):
    scop, deps, analysis = analysed(tmp_path, "for (i = 0; i < n; i++) {\n  if (i == 5)\n    s = 1;\n  s += a[i];\n}")
    # S_0[5] -> S_1[i] for every later i: the loop carries it
    assert not analysis.coincidence.intersect(isl.UnionMap("[n, m] -> { S_0[5] -> S_1[9] }",
                                                           context=scop.context.get_ctx())).is_empty()


def _explained(tmp_path, name: str, text: str, options=(), out: str = "out") -> tuple:
    """``text`` written as ``name``.c and compiled for the opencl target with ``options`` into ``out``
    (skipped without an OpenCL device): the source's path and --explain's messages."""
    if opencl_device():
        pytest.skip(opencl_device())
    source = tmp_path / f"{name}.c"
    source.write_text(text)
    status, messages = polypragma(source, tmp_path / out, ["--target", "opencl", "--explain", "--no-fp-contract",
                                                           *options])
    assert status == 0, messages
    return source, messages


def _mapped(tmp_path, body: str, params: str = PARAMS):
    scop, deps, analysis = analysed(tmp_path, body, params)
    schedule = compute_schedule(scop, deps, ScheduleOptions()).schedule
    names = IteratorNames.free_in(set(scop.parameters) | {a.name for a in scop.arrays})
    return map_to_gpu(schedule, scop.context, SizeOptions(), names, deps.all, analysis)


def test_a_sum_is_mapped_and_accumulated_per_thread(tmp_path):
    mapping = _mapped(tmp_path, "for (i = 0; i < n; i++)\n  s += a[i] * a[i];")
    (kernel,) = mapping.kernels
    assert kernel.mapped == 1
    (reduction,) = kernel.reductions
    assert reduction.accumulated and reduction.element == ()


def test_a_minimum_is_accumulated_per_thread_from_the_largest_value(tmp_path):
    mapping = _mapped(tmp_path, "for (i = 0; i < n; i++)\n  s = fmin(s, a[i]);")
    (kernel,) = mapping.kernels
    (reduction,) = kernel.reductions
    assert reduction.accumulated and reduction.reduction.op == "min"
    # the thread starts from +infinity (its bits on CUDA, OpenCL C's INFINITY), keeps the smaller value
    assert identity(reduction, opencl=False) == "__longlong_as_double(0x7ff0000000000000LL)"
    assert identity(reduction, opencl=True) == "((double)INFINITY)"
    assert update(0, reduction, "s", "a[i]", False, set()) == \
        "polypragma_reduction0 = ((a[i]) < polypragma_reduction0 ? (a[i]) : polypragma_reduction0);"


def test_a_row_sum_on_the_host_loop_accumulates_into_the_row(tmp_path):
    # the row loop reads s after its sum: it stays on the host, the sum of each row is a reduction
    mapping = _mapped(tmp_path, "for (i = 0; i < n; i++) {\n  s = 0;\n  for (j = 0; j < m; j++)\n"
                                "    s += A[i][j];\n  y[i] = s;\n}")
    carrying = [k for k in mapping.kernels if k.reductions]
    assert len(carrying) == 1 and carrying[0].host_depth == 1 and carrying[0].reductions[0].accumulated


def test_a_parallel_loop_is_mapped_as_before(tmp_path):
    # the rows of a matrix times a short constant reduction (fewer than SPREAD_MIN_EXTENT points): the row
    # loop is parallel, the sum stays sequential in each thread
    mapping = _mapped(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < 8; j++)\n    y[i] += A[i][j] * a[j];")
    (kernel,) = mapping.kernels
    assert kernel.mapped == 1 and kernel.reductions == () and kernel.spread == 0
    # two parallel loops fill the device: the reduction inside them stays in each thread
    mapping = _mapped(tmp_path, "for (i = 0; i < n; i++)\n  for (int l = 0; l < m; l++)\n    for (j = 0; j < m; j++)\n"
                                "      C[i][l] += A[i][j] * A[l][j];", PARAMS + ", double C[n][m]")
    (kernel,) = mapping.kernels
    assert kernel.mapped == 2 and kernel.reductions == () and kernel.spread == 0


def test_a_matrix_vector_product_spreads_its_reduction_over_threads(tmp_path):
    """One parallel loop of unknown extent gives too few threads (spread_reduction): the reduction loop
    inside it maps too, and each thread accumulates its run of updates of y[i] in a register."""
    mapping = _mapped(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < m; j++)\n    y[i] += A[i][j] * a[j];")
    (kernel,) = mapping.kernels
    assert kernel.mapped == 2 and kernel.spread == 1
    (reduction,) = kernel.reductions
    assert reduction.runs and not reduction.accumulated
    macros = set()
    text = update(0, reduction, "y[i]", "A[i][j] * a[j]", False, macros)
    # (CUDA: the warp's threads that merge into one element combine their runs first)
    assert "polypragma_reduction0_at" in text and "polypragma_warp_atomic_add_double(polypragma_reduction0_at" in text
    assert any("#define polypragma_atomic_add_double(p, v)" in m for m in macros), macros
    assert any("__match_any_sync" in m and "#define polypragma_warp_atomic_add_double(p, v)" in m for m in macros)
    assert "polypragma_atomic_add_double(polypragma_reduction0_at" in update(0, reduction, "y[i]", "A", True, set())
    # a constant row count large enough fills the device alone
    mapping = _mapped(tmp_path, "for (i = 0; i < 1000000; i++)\n  for (j = 0; j < m; j++)\n    y[i] += A[i][j] * a[j];")
    assert [k.spread for k in mapping.kernels] == [0]


def test_a_reduction_on_elements_chosen_by_data_is_not_spread(tmp_path):
    # nested_exits's inlined 'y[k] += alpha * x[k]' updates rows of A its subscript does not pin down
    # exactly: spread over threads, every update would be atomic; its sum stays in order in each thread
    status, messages = polypragma(KERNELS / "nested_exits.c", tmp_path, ["--target", "cuda", "--explain"])
    assert status == 0, messages
    assert "carry only reductions" not in messages and "each update is atomic" not in messages, messages


def test_the_spread_rule():
    assert spread_reduction([None], [None])  # a matrix-vector product of unknown sizes
    assert not spread_reduction([None, None], [None])  # two parallel loops: enough threads
    assert not spread_reduction([None], [16])  # a short reduction
    assert spread_reduction([1000], [1000]) and not spread_reduction([300000], [1000])
    assert not spread_reduction([None, 100], [None])


def test_a_reduction_over_a_matrix_maps_both_loops(tmp_path):
    """The scheduler gives a band of i and one of j (the accumulation orders j against the next i); with
    the reduction's order free they join in one band, both loops map to threads."""
    mapping = _mapped(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < m; j++)\n    s = fmax(s, A[i][j]);")
    (kernel,) = mapping.kernels
    assert kernel.mapped == 2
    (reduction,) = kernel.reductions
    assert reduction.accumulated and reduction.element == ()


MATRIX_SOURCE = """\
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double sums(int n, int m, double A[n][m], double B[n][m], int *count, double *low)
{
    double diff = 0.0, total = 0.0, lo = 1e30;
    int c = 0;
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            diff = fmax(diff, fabs(A[i][j] - B[i][j]));
    for (int i = 1; i < n; i++)
        for (int j = 0; j < m - 1; j++) {
            total += A[i][j] * 0.5 + B[i - 1][j + 1];
            c += A[i][j] > B[i][j];
            lo = fmin(lo, A[i][j] + 2.0 * B[i][j]);
        }
#pragma endscop
    *count = c;
    *low = lo;
    return diff + total;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), m = atoi(argv[2]), c;
    double (*A)[m] = malloc(sizeof(double) * n * m), (*B)[m] = malloc(sizeof(double) * n * m), lo;
    unsigned s = 7;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            s = s * 1103515245u + 12345u;
            A[i][j] = (s >> 8) % 1000 / 8.0;  /* (eighths: every sum exact, in any order) */
            s = s * 1103515245u + 12345u;
            B[i][j] = (s >> 8) % 1000 / 8.0;
        }
    double r = sums(n, m, A, B, &c, &lo);
    printf("%.17g %d %.17g\\n", r, c, lo);
    return 0;
}
"""


def test_reductions_over_matrices_run_on_threads_along_rows(tmp_path):
    """A maximum, a sum, a count and a minimum over a matrix, each in its own kernel (--fusion min): each
    kernel maps both loops, j (along a row) on threads.x; by default the four read A alike and run in one
    kernel, which does the same.  Both programs print what the original prints."""
    source, messages = _explained(tmp_path, "matrix", MATRIX_SOURCE, ["--fusion", "min"], "apart")
    assert messages.count("loop 1 -> blocks.y and threads.y, loop 2 -> blocks.x and threads.x") == 4, messages
    assert "not coalesced" not in messages, messages
    runs = ("1 1", "3 70", "100 37", "257 300")
    expected = program_output(source, tmp_path / "original", runs, ("-lm",))
    assert program_output(generated_path(source, tmp_path / "apart"), tmp_path / "matrix", runs,
                          ("-lOpenCL", "-lm")) == expected
    source, messages = _explained(tmp_path, "matrix", MATRIX_SOURCE)
    assert "region 0: 1 kernel(s)" in messages and "the reductions of line(s) 12, 15, 16, 17 read A alike" \
        in messages, messages
    assert messages.count("loop 1 -> blocks.y and threads.y, loop 2 -> blocks.x and threads.x") == 1, messages
    assert "its loops carry only the reductions fused into it and are all mapped\n" in messages, messages
    assert program_output(generated_path(source, tmp_path / "out"), tmp_path / "fused", runs, ("-lOpenCL", "-lm")) \
        == expected


def test_explain_and_no_reductions(tmp_path):
    source = KERNELS / "reduction_sums.c"
    status, messages = polypragma(source, tmp_path / "on", ["--target", "opencl", "--explain"], ["-DN=1000"])
    assert status == 0, messages
    assert "reduction total += ... (line 26): its loop runs in parallel" in messages, messages
    assert "the block combines them and merges its value into the element with one atomic update" in messages
    status, messages = polypragma(source, tmp_path / "off", ["--target", "opencl", "--explain", "--no-reductions"],
                                  ["-DN=1000"])
    assert status == 0, messages
    assert "reduction total" not in messages and "no parallel loop: runs on one thread" in messages, messages


OPENMP_SOURCE = """\
#include <stdio.h>
static int key[N], hist[8], rows[N][8], hits, best;
static double a[N], total;

static void kernel(void)
{
#pragma scop
    for (int i = 0; i < N; i++)
        hist[key[i]]++;
    for (int i = 0; i < N; i++)
        if (a[i] > 0.5)
            hits += 2;
    for (int i = 0; i < N; i++)
        best = best > key[i] * i ? best : key[i] * i;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            rows[i][key[j]] += i;
    for (int i = 0; i < N; i++)
        total += a[i];
#pragma endscop
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        key[i] = (i * 7 + 3) % 8;
        a[i] = (double)((i * 37) % 100) / 100.0;
    }
    kernel();
    for (int b = 0; b < 8; b++)
        printf("%d %d\\n", hist[b], rows[N - 1][b]);
    printf("%d %d %.17g\\n", hits, best, total);
    return 0;
}
"""


def test_openmp_runs_integer_reductions_in_parallel(tmp_path):
    source = tmp_path / "reductions.c"
    source.write_text(OPENMP_SOURCE)
    status, messages = polypragma(source, tmp_path / "out", ["--openmp"], ["-DN=1000"])
    assert status == 0, messages
    text = generated_path(source, tmp_path / "out").read_text()
    # a scalar is combined by OpenMP's reduction clause
    assert "#pragma omp parallel for reduction(+:hits)" in text, text
    assert "#pragma omp parallel for reduction(max:best)" in text, text
    # a nest with a parallel loop runs that one in parallel, its reduction in order in each thread
    assert "#pragma omp parallel for\n  for (int c0 = 0; c0 <= 999; ++c0) {\n    for (int c1" in text, text
    # a histogram's bins stay in order (atomic updates cost more than they gain on a CPU), and so does a
    # floating-point sum (the c target's results are exact)
    assert text.count("#pragma omp") == 3 and "atomic" not in text and "reduction(+:total)" not in text, text
    original, generated = tmp_path / "original", tmp_path / "generated"
    compile_c(source, original, ["-DN=1000"])
    compile_c(generated_path(source, tmp_path / "out"), generated, ["-DN=1000"], extra=["-fopenmp"])
    expected = run(original).stdout
    for threads in ("1", "4"):
        got = run(generated, env={"OMP_NUM_THREADS": threads})
        assert got.returncode == 0 and got.stdout == expected, (threads, got.stdout, expected)


MEMBERS_SOURCE = """\
#include <stdio.h>
#include <stdlib.h>

typedef struct { double sum; int count; double hist[8]; int largest; } stats;
struct cell { int n; double total; };

static void kernel(int n, int m, const double *x, const int *k, stats *s, struct cell *c, const double *y)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        s->sum += x[i];
        s->count++;
        s->hist[k[i] & 7] += 1.0;
        s->largest = s->largest > k[i] ? s->largest : k[i];
    }
    for (int d = 0; d < 3; d++)
        for (int i = 0; i < m; i++)
            c[d].total += y[i] * (d + 1);
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), m = atoi(argv[2]);
    double *x = malloc(sizeof(double) * (n + 1)), *y = malloc(sizeof(double) * (m + 1));
    int *k = malloc(sizeof(int) * (n + 1));
    for (int i = 0; i < n; i++) {
        x[i] = (i % 17) / 4.0;
        k[i] = (i * 37) % 101;
    }
    for (int i = 0; i < m; i++)
        y[i] = i % 9 / 8.0;
    stats s = {1.0, 2, {0}, -5};
    struct cell c[3] = {{1, 0.5}, {2, 0.25}, {3, 0}};
    kernel(n, m, x, k, &s, c, y);
    printf("%.17g %d %d", s.sum, s.count, s.largest);
    for (int b = 0; b < 8; b++)
        printf(" %g", s.hist[b]);
    printf(" %.17g %.17g %.17g\\n", c[0].total, c[1].total, c[2].total);
    return 0;
}
"""


def test_members_of_structs_are_reductions(tmp_path):
    """Accumulators that are members of a struct (``s->sum += x[i]``, a maximum, a histogram in one): each
    thread (each update atomically, for the histogram) accumulates into the member in the struct variable's
    buffer; every value is a sum of quarters and eighths, exact in any order.  (``c[d].total`` runs its
    ``d`` loop in parallel, each thread's element in registers.)"""
    source = tmp_path / "members.c"
    source.write_text(MEMBERS_SOURCE)
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl", "--explain"])
    assert status == 0, messages
    for reduction in ("reduction s__sum += ... (line 11)", "reduction s__count += ... (line 12)",
                      "reduction s__hist += ... (line 13)", "reduction s__largest = max(s__largest, ...) (line 14)"):
        assert reduction in messages, messages
    text = generated_path(source, tmp_path / "opencl").read_text()
    assert "(&s[0].sum, polypragma_reduction" in text and "(&s[0].count, polypragma_reduction" in text, text
    if opencl_device():
        return
    runs = ("1000 40", "1 1", "0 0", "5000 3")
    assert program_output(generated_path(source, tmp_path / "opencl"), tmp_path / "ocl.exe", runs, ("-lOpenCL",)) \
        == program_output(source, tmp_path / "original", runs)


MATVEC_SOURCE = """\
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void products(int n, int m, double A[n][m], double *x, double *y, double *rows, double *cols, double *low,
                     int *count)
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            rows[i] = rows[i] + A[i][j] * x[j];
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            cols[i] -= A[j][i] * y[j];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            low[i] = fmin(low[i], A[i][j] - x[j]);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            count[i] += A[j][i] > 60.0;
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), m = atoi(argv[2]);
    double (*A)[m] = malloc(sizeof(double) * n * m), *x = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * n);
    double *rows = malloc(sizeof(double) * n), *cols = malloc(sizeof(double) * m), *low = malloc(sizeof(double) * n);
    int *count = malloc(sizeof(int) * m);
    unsigned s = 11;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            s = s * 1103515245u + 12345u;
            A[i][j] = (s >> 8) % 1000 / 8.0;  /* (eighths times small integers: every sum exact, in any order) */
        }
    for (int j = 0; j < m; j++) {
        s = s * 1103515245u + 12345u;
        x[j] = (double)((s >> 8) % 7) - 3.0;
        cols[j] = j;
        count[j] = j % 3;
    }
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        y[i] = (double)((s >> 8) % 5) - 2.0;
        rows[i] = i * 0.5;
        low[i] = 100.0 + i;
    }
    products(n, m, A, x, y, rows, cols, low, count);
    double r = 0.0, c = 0.0, l = 0.0;
    long k = 0;
    for (int i = 0; i < n; i++) {
        r += rows[i] * (i % 13 + 1);
        l += low[i] * (i % 11 + 1);
    }
    for (int j = 0; j < m; j++) {
        c += cols[j] * (j % 7 + 1);
        k += (long)count[j] * (j % 5 + 1);
    }
    printf("%.17g %.17g %.17g %ld\\n", r, c, l, k);
    return 0;
}
"""


def test_matrix_vector_products_spread_their_reductions_over_threads(tmp_path):
    """Matrix-vector products along rows (A[i][j], j contiguous: j on threads.x) and along columns
    (A[j][i]: i stays on threads.x, j on y): the parallel loop alone gives too few threads, so the
    reduction loop maps too, each thread accumulating its run of updates of an element; a sum, a
    difference, a minimum and an integer count print what the original prints.  That is with each product
    in a kernel of its own (--fusion min); by default the four read A alike and run in one kernel, which
    prints the same, with the sizes of its choice and with small ones given per kernel."""
    source, messages = _explained(tmp_path, "matvec", MATVEC_SOURCE, ["--fusion", "min"], "apart")
    assert messages.count("carry only reductions and are mapped too") == 4, messages
    assert messages.count("loop 1 -> blocks.y and threads.y, loop 2 -> blocks.x and threads.x") == 2, messages
    assert messages.count("loop 2 -> blocks.y and threads.y, loop 1 -> blocks.x and threads.x") == 2, messages
    assert messages.count("each thread accumulates its run of updates of an element in a register") == 4, messages
    assert "not coalesced" not in messages, messages
    runs = ("1 1", "3 70", "100 37", "37 1100", "1030 45")
    expected = program_output(source, tmp_path / "original", runs, ("-lm",))
    assert program_output(generated_path(source, tmp_path / "apart"), tmp_path / "matvec", runs,
                          ("-lOpenCL", "-lm")) == expected
    # sizes per kernel for both loops (tiles and blocks that wrap, blocks of partial warps): a thread's
    # element changes inside its loops, where it merges its run; apart, and fused
    sizes = "{ kernel[i] -> tile[3,5]; kernel[i] -> block[2,4]; kernel[i] -> grid[2,3] }"
    for fusion in ("min", "auto"):
        status, messages = polypragma(source, tmp_path / f"wrap_{fusion}", [
            "--target", "opencl", "--explain", "--no-fp-contract", "--sizes", sizes, "--fusion", fusion])
        assert status == 0 and messages.count("carry only reductions and are mapped too") == (4 if fusion == "min"
                                                                                               else 0), messages
        assert ("read A alike" in messages) == (fusion == "auto"), messages
        assert program_output(generated_path(source, tmp_path / f"wrap_{fusion}"), tmp_path / f"wrapped_{fusion}", runs,
                              ("-lOpenCL", "-lm")) == expected
    # fused: one kernel over A's elements, j on x, whose sums along j (rows, low) the warp combines
    source, messages = _explained(tmp_path, "matvec", MATVEC_SOURCE)
    assert "region 0: 1 kernel(s)" in messages and "the reductions of line(s) 11, 14, 17, 20 read A alike" \
        in messages, messages
    assert "loop 1 -> blocks.y and threads.y, loop 2 -> blocks.x and threads.x; tile [512, 32]" in messages, messages
    assert messages.count("each thread accumulates its run of updates of an element in a register") == 4, messages
    assert program_output(generated_path(source, tmp_path / "out"), tmp_path / "fused", runs, ("-lOpenCL", "-lm")) \
        == expected
    # CUDA: the same mapping
    status, messages = polypragma(source, tmp_path / "cuda", ["--target", "cuda", "--explain", "--fusion", "min"])
    assert status == 0 and messages.count("carry only reductions and are mapped too") == 4, messages
    # --no-reductions: floating-point sums stay in order in each thread, only the integer count spreads
    status, messages = polypragma(source, tmp_path / "off", ["--target", "opencl", "--explain", "--no-reductions"])
    assert status == 0 and messages.count("carry only reductions and are mapped too") == 1, messages


def test_a_histogram_per_row_of_few_rows_is_spread(tmp_path):
    """reduction_data's 5 histograms, one per row of N elements: 5 threads alone would each update their
    row's bins in sequence (407 ms on an H200 for N = 8,000,000), so the loop along the row maps too and
    every update is atomic (13 ms)."""
    status, messages = polypragma(KERNELS / "reduction_data.c", tmp_path, ["--target", "cuda", "--explain"])
    assert status == 0, messages
    kernel = next(block for block in messages.split("  kernel ") if "line(s) 59)" in block.split("\n")[0])
    assert "carry only reductions and are mapped too" in kernel, kernel
    assert "each update is atomic" in kernel, kernel


FISSION_SOURCE = """\
#include <stdio.h>
#include <stdlib.h>

static void nests(int n, int m, double A[n][m], double *x, double *q)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        q[i] = 0.0;
        for (int j = 0; j < m; j++)
            q[i] += A[i][j] * x[j];
    }
#pragma endscop
}

static void twice(int n, int m, double A[n][m], double *x, double *q, double *y, double *z, double *t)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        double s = 1.0;
        for (int j = 0; j < m; j++)
            s += A[i][j] * A[i][j];
        y[i] = 2.0 * s + q[i];
    }
    for (int i = 0; i < n; i++) {
        z[i] = 0.0;
        for (int j = 0; j < m; j++)
            z[i] += A[i][j];
        t[i] = z[i] * 0.5;
        for (int j = 0; j < m; j++)
            z[i] += t[i] * x[j];
    }
#pragma endscop
}

static void running(int n, int m, double A[n][m], double *x, double *c)
{
#pragma scop
    for (int j = 0; j < m; j++) {
        c[j] = x[j];
        for (int i = 0; i < n; i++) {
            c[j] += A[i][j];
            A[i][j] = c[j];
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), m = atoi(argv[2]);
    double (*A)[m] = malloc(sizeof(double) * n * m), *x = malloc(sizeof(double) * m);
    double *q = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *z = malloc(sizeof(double) * n);
    double *t = malloc(sizeof(double) * n), *c = malloc(sizeof(double) * m);
    unsigned s = 7;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            s = s * 1103515245u + 12345u;
            A[i][j] = (s >> 8) % 1000 / 8.0;
        }
    for (int j = 0; j < m; j++) {
        s = s * 1103515245u + 12345u;
        x[j] = (double)((s >> 8) % 7) - 3.0;
    }
    nests(n, m, A, x, q);
    twice(n, m, A, x, q, y, z, t);
    running(n, m, A, x, c);
    double r = 0.0;
    for (int i = 0; i < n; i++)
        r += (q[i] + 3.0 * y[i] + 5.0 * z[i] + 7.0 * t[i]) * (i % 13 + 1);
    for (int j = 0; j < m; j++)
        r += c[j] * (j % 7 + 1) + A[(j * 7) % n][j] * (j % 3);
    printf("%.17g\\n", r);
    return 0;
}
"""


def test_statements_next_to_a_reduction_are_split_into_kernels_so_that_it_spreads(tmp_path):
    """An initialisation before a sum (bicg's ``q[i] = 0``), a privatised scalar's start and its use after
    the sum (gesummv), and a use between two sums of one element keep the sums' loop sequential in one
    kernel: each goes to a kernel of its own and each sum spreads over threads.  A running sum read in its
    own loop (``A[i][j] = c[j]``) is one cycle of dependences: it stays in one kernel, sequential.  The
    outputs are what the original prints.  (The scalar s is privatised in a region with another nest,
    whose schedule is valid for m >= 0, the region's context, only: privatise.verify compares the
    dataflow there.)"""
    source, messages = _explained(tmp_path, "split", FISSION_SOURCE)
    splits = [line for line in messages.splitlines() if "split into kernels" in line]
    assert [line.split("line(s) ")[1].split(" split")[0] for line in splits] == ["8; 10", "28; 30"], messages
    # twice's first sums (s's and z's) read A alike and run in one kernel (gpu/fuse.py), the statements
    # they need (s = 1, z[i] = 0) in kernels before it, those that need them after: t[i] = z[i] * 0.5, then
    # z's second sum, split from it, and y[i] = 2 * s + q[i]
    assert "the reductions of line(s) 21, 27 read A alike" in messages, messages
    assert messages.count("carry only reductions and are mapped too") == 2, messages
    assert "region 0: 2 kernel(s)" in messages and "region 1: 6 kernel(s)" in messages, messages
    assert "  s: privatised as s_private" in messages, messages
    assert "region 2: 1 kernel(s)" in messages, messages
    runs = ("1 1", "3 70", "100 37", "37 1100", "1030 45")
    expected = program_output(source, tmp_path / "original", runs, ("-lm",))
    assert program_output(generated_path(source, tmp_path / "out"), tmp_path / "split", runs, ("-lOpenCL", "-lm")) \
        == expected
    # without fusion (isl's clustering changes too): the privatised s's start and use are split from its sum
    source, messages = _explained(tmp_path, "split", FISSION_SOURCE, ["--fusion", "min"], "apart")
    assert "the statements of line(s) 19; 21; 22 split into kernels" in messages, messages
    assert program_output(generated_path(source, tmp_path / "apart"), tmp_path / "apart_run", runs,
                          ("-lOpenCL", "-lm")) == expected
    # gemver's x[i] += z[i] after the sum x[i] += beta * A[j][i] * y[j] is a reduction statement too, but
    # updates x[i] once an i: a kernel of its own, one loop mapped, and the sum spreads (in the kernel of A's
    # update, gpu/fuse.py; under --fusion min, isl keeps the x updates apart, the sum in a kernel of its own)
    for options, split in (([], "the statements of line(s) 18, 22 use A alike"),
                           (["--fusion", "min"], "region 0: 4 kernel(s)")):
        status, messages = polypragma(KERNELS / "gemver.c", tmp_path / "gemver",
                                      ["--target", "opencl", "--explain", *options])
        assert status == 0 and split in messages, messages
        kernel = next(block for block in messages.split("  kernel ") if "line(s) 25)" in block.split("\n")[0])
        assert "the outer 1 parallel loop(s)" in kernel and "carry only reductions" not in kernel, kernel
    # sizes for all kernels keep each kernel mapping its parallel loops: nothing to split for
    status, messages = polypragma(source, tmp_path / "sized", ["--target", "opencl", "--explain", "--tile-size", "64"])
    assert status == 0 and "split into kernels" not in messages, messages


HISTOGRAMS_SOURCE = """\
#include <stdio.h>
#include <stdlib.h>

#define BINS 100
#define WIDE 10000

static int hist[BINS];
static unsigned down[BINS];
static int high[BINS];
static int wide[WIDE];
static double weights[BINS];

static void histograms(int n, int b, const int *key, const int *v, int *open)
{
#pragma scop
    for (int i = 0; i < n; i++)
        hist[key[i]]++;
    for (int i = 0; i < n; i++)
        if (v[i] % 3 == 0)
            hist[(key[i] + 1) % BINS] += 2;
    for (int i = 0; i < n; i++)
        down[key[i]] -= (unsigned)v[i];
    for (int i = 0; i < n; i++)
        high[key[i]] = high[key[i]] > v[i] ? high[key[i]] : v[i];
    for (int i = 0; i < n; i++)
        wide[(key[i] * 97 + v[i]) % WIDE] += 1;
    for (int i = 0; i < n; i++)
        weights[key[i]] += 0.5 * v[i];
    for (int i = 0; i < n; i++)
        open[key[i] % b] += 1;
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), b = 7;
    int *key = malloc(sizeof(int) * (n + 1)), *v = malloc(sizeof(int) * (n + 1)), open[7] = {0};
    unsigned s = 11;
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        key[i] = (int)((s >> 8) % BINS);
        s = s * 1103515245u + 12345u;
        v[i] = (int)((s >> 8) % 1000);
    }
    for (int k = 0; k < BINS; k++)
        high[k] = -1000;
    histograms(n, b, key, v, open);
    long r = 0;
    for (int k = 0; k < BINS; k++)
        r += (long)hist[k] * (k + 1) + (long)(down[k] % 1000u) * 3 + (long)high[k] * 5 + (long)weights[k];
    for (int k = 0; k < WIDE; k++)
        r += (long)wide[k] * (k % 17);
    for (int k = 0; k < b; k++)
        r += (long)open[k] * (k + 2);
    printf("%ld\\n", r);
    free(key);
    free(v);
    return 0;
}
"""


def test_histograms_of_few_bins_are_counted_per_block_in_shared_memory(tmp_path):
    """A histogram of 32-bit integers with a constant number of bins (gpu/block_copies.py): each block counts
    into its own copy in shared memory, then merges it into the array with one atomic update a bin it
    changed; a histogram of doubles, of a parameter's number of bins or of too many bins keeps one atomic
    update in global memory a point.  The program prints the original's values with 1 to 300,000 points
    (one block; many, a bin merged by several; more tiles than the 1024 blocks, which wrap around them)."""
    source, messages = _explained(tmp_path, "histograms", HISTOGRAMS_SOURCE)
    assert "warning" not in messages, messages
    lines = [line for line in messages.splitlines() if line.lstrip().startswith("reduction ")]
    copied = {line.split()[1] for line in lines if "the block's own copy" in line}
    assert copied == {"hist", "down", "high"}, lines
    assert "own copy of hist in shared memory (100 elements)" in messages, messages
    kernels = generated_path(source, tmp_path / "out").read_text()
    for name, ctype in (("hist", "int"), ("down", "unsigned int"), ("high", "int")):
        assert f"__local {ctype} polypragma_block_{name}[100];" in kernels, kernels
    assert "polypragma_block_wide" not in kernels and "polypragma_block_weights" not in kernels
    assert "polypragma_block_open" not in kernels
    # the block's updates on local memory, its merges on global memory
    assert "atomic_add((volatile __local int *)" in kernels and "atomic_max((volatile __local int *)" in kernels
    exe = tmp_path / "gen"
    compile_c(generated_path(source, tmp_path / "out"), exe, libs=["-lOpenCL"])
    original = tmp_path / "original"
    compile_c(source, original)
    # (past 1024 tiles of 256 points, the blocks wrap around the tiles: each counts several into its copies)
    assert "grid [1024] instead of [2147483647], so that each block counts many tiles into its copies of hist" \
        in messages, messages
    for n in ("1", "700", "300000"):
        expected = run(original, [n])
        got = run(exe, [n], env={"POLYPRAGMA_DEVICE": "gpu"})
        assert got.returncode == 0 and got.stdout == expected.stdout, (n, got.stderr)


def test_the_block_copies_are_decided_once_where_the_data_is_placed(tmp_path):
    """The GPU stage records the arrays a kernel updates through its blocks' copies in the kernel's memory,
    where it places the data and wraps the grid for them (gpu/region.py); the printer and --explain read
    that record, and a kernel whose tiles fall back to global memory (their AST past its bound) keeps it."""
    scop, deps, analysis = analysed(tmp_path, "for (i = 0; i < n; i++)\n  h[v[i] % 64] += 1;",
                                    "int n, const int *v, int h[64]")
    region = prepare(scop, compute_schedule(scop, deps, ScheduleOptions()).schedule, deps, SizeOptions(), "k.c",
                     reductions=analysis)
    (memory,) = region.memory
    assert memory.block_copies == (("h", 64),)
    assert region.mapping.kernels[0].sizes.grid[-1] == BLOCK_COPY_GRID
    assert memory.in_global_memory("past the bound").block_copies == memory.block_copies
    # a histogram of doubles keeps one atomic update in global memory a point
    scop, deps, analysis = analysed(tmp_path, "for (i = 0; i < n; i++)\n  w[v[i] % 64] += 0.5;",
                                    "int n, const int *v, double w[64]")
    region = prepare(scop, compute_schedule(scop, deps, ScheduleOptions()).schedule, deps, SizeOptions(), "k.c",
                     reductions=analysis)
    assert region.memory[0].block_copies == ()
