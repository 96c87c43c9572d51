"""Partial register tiles computed whole (polypragma.codegen.padded_tiles): the instances a kernel
pads its matrix product's partial tiles with, and the kernels it must leave with guards, each for
its reason.  That the padded kernels compute the right values is checked by running them: the
corpus's matrix products (gemm, 2mm, 3mm, syrk, syr2k, correlation...) on PoCL, tests/test_opencl.py."""

from __future__ import annotations

import re

import islpy as isl
import pytest

from harness import KERNELS, compile_c, generated_path, opencl_device, outputs_match, polypragma, run

from polypragma import dependences
from polypragma.codegen.kernel_ast import with_kernel_asts
from polypragma.codegen.kernel_tree import KernelTree
from polypragma.gpu.region import PartialTiles, prepare
from polypragma.gpu.sizes import SizeOptions
from polypragma.isl_helpers import function_of, set_named
from polypragma.schedule import ScheduleOptions, compute_schedule
from test_model import model

# 60 rows, columns and steps of k: tiles of 32, the second one partial along each loop; a thread runs
# a 4x1 register tile (block 8x32), and k is a further tiled loop inside the thread's points
SIZES = SizeOptions(tile=(32, 32), block=(8, 32))
ARRAYS = "double A[60][60], double B[60][60], double C[60][60]"


def kernel_tree(tmp_path, body: str, arrays: str = ARRAYS, sizes: SizeOptions = SIZES) \
        -> tuple[KernelTree, PartialTiles]:
    scop = model(tmp_path, body, arrays)
    deps = dependences.compute(scop)
    region = prepare(scop, compute_schedule(scop, deps, ScheduleOptions()).schedule, deps, sizes, "k.c",
                     cuda=True)
    (kernel,) = region.mapping.kernels
    assert kernel.register_tile and kernel.sequential
    built = with_kernel_asts(region, registers_across_barriers=True)
    return KernelTree(scop, region.memory[0], True), built.partial_tiles[0]


def product(statement: str = "C[i][j] += A[i][k] * B[k][j];", k_bound: str = "60") -> str:
    return (f"for (i = 0; i < 60; i++)\n  for (j = 0; j < 60; j++)\n    for (int k = 0; k < {k_bound}; k++)\n"
            f"      {statement}")


def without_blocks(instances: isl.UnionSet, name: str) -> isl.Set:
    """A statement's instances in every block: the block ids projected out."""
    found = set_named(instances, name)
    for block in ("b1", "b0"):
        position = found.get_space().find_dim_by_name(isl.dim_type.param, block)
        if position >= 0:
            found = found.project_out(isl.dim_type.param, position, 1)
    return found


def test_a_matrix_product_is_padded_to_whole_tiles(tmp_path):
    tree, partial = kernel_tree(tmp_path, product())
    assert tree.padded and partial is PartialTiles.PADDED
    # i and j (the mapped loops) run to the end of their last tile; k (a further tile) stays as it is
    padded = without_blocks(tree.computed, "S_0")
    expected = isl.Set("{ S_0[i, j, k] : 0 <= i < 64 and 0 <= j < 64 and 0 <= k < 60 }", context=padded.get_ctx())
    assert padded.is_equal(expected.align_params(padded.get_space()))
    # the copies keep the real instances
    real = without_blocks(tree.domain, "S_0")
    assert real.is_equal(isl.Set("{ S_0[i, j, k] : 0 <= i < 60 and 0 <= j < 60 and 0 <= k < 60 }",
                                 context=real.get_ctx()).align_params(real.get_space()))


def test_a_triangular_product_is_padded_where_the_extra_points_write_nothing_real(tmp_path):
    # syrk's shape: the extra points (j > i) of a diagonal tile write elements no real point touches
    tree, partial = kernel_tree(tmp_path, "for (i = 0; i < 64; i++)\n  for (j = 0; j <= i; j++)\n"
                                          "    for (int k = 0; k < 60; k++)\n      C[i][j] += A[i][k] * A[j][k];",
                                ARRAYS.replace("60][60", "64][60"))
    assert tree.padded and partial is PartialTiles.PADDED
    padded = without_blocks(tree.computed, "S_0")
    expected = isl.Set("{ S_0[i, j, k] : 0 <= i < 64 and 0 <= j < 64 and 0 <= k < 60 and "
                       "32 * floor(j / 32) <= 32 * floor(i / 32) }", context=padded.get_ctx())
    assert padded.is_equal(expected.align_params(padded.get_space()))


def test_a_product_above_the_diagonal_is_padded_from_the_tiles_origin(tmp_path):
    # correlation's shape, j > i, with tiles of 32 rows and 64 columns: the tile of B[k][j] starts at
    # the tile's origin, not where the triangle does (the larger of the tile's first column and its
    # first row + 1, two pieces), so that a diagonal tile's extra points (j <= i) read inside it
    tree, partial = kernel_tree(tmp_path, "for (i = 0; i < 120; i++)\n  for (j = i + 1; j < 120; j++)\n"
                                          "    for (int k = 0; k < 60; k++)\n      C[i][j] += A[k][i] * B[k][j];",
                                "double A[60][120], double B[60][120], double C[120][120]",
                                SizeOptions(tile=(32, 64), block=(16, 16)))
    assert tree.padded and partial is PartialTiles.PADDED
    assert all(group.offsets[d].n_piece() == 1 for group in tree.shared for d in range(len(group.offsets)))


def test_a_product_with_a_local_sum_pads_its_sum_and_keeps_the_guards_of_its_store(tmp_path):
    # local_accumulators' product: the reset and the sum (registers, shared tiles) are padded, the store
    # to C (global memory) is not, and runs once per element at the last step of k, with its guard;
    # the corpus runs it with partial tiles on every target (tests/test_opencl.py)
    status, messages = polypragma(KERNELS / "local_accumulators.c", tmp_path, ["--target", "cuda", "--explain"])
    assert status == 0, messages
    product = messages[messages.index("(statements at line(s) 22, 24, 25)"):]
    assert ("no point of the deepest loops has a guard: there the tiles whose last points are missing are computed "
            "whole, in registers and shared memory only (the copies move the existing points); the statement(s) at "
            "line(s) 25, outside those loops, keep a guard per point") in product
    rows, columns = map(int, re.search(r"each thread runs its (\d+)x(\d+) points", product).groups())
    code = (tmp_path / "local_accumulators.polypragma.cu").read_text().splitlines()
    kernel = code[next(k for k, line in enumerate(code) if "region0_kernel1(" in line):]
    # the loop of k inside a tile runs the points of the register tile in two loops over its slots, for
    # nvcc to unroll, each point without a guard
    first = next(k for k, line in enumerate(kernel) if "local_accumulators.c:24 */" in line)
    slots = [line.strip() for line in kernel[first - 4:first]]
    assert slots == ["#pragma unroll", f"for (int k5 = 0; k5 < {rows}; ++k5) {{", "#pragma unroll",
                     f"for (int k6 = 0; k6 < {columns}; ++k6) {{"], slots
    assert re.search(r"private_sum_private\[k5\]\[k6\] \+= shared_A\[t0 \+ 16 \* k5\]", kernel[first])
    # the store, in loops over the slots too, keeps a guard on the slots whose points exist
    stores = [k for k, line in enumerate(kernel) if "local_accumulators.c:25 */" in line]
    assert len(stores) == 1 and re.match(r"\s*if \(k6 <= ", kernel[stores[0] - 1]), kernel[stores[0] - 1]


def test_extra_points_that_would_write_what_a_real_point_uses_keep_their_guards(tmp_path):
    # k <= i: the extra points of a tile (k > i) would add to C[i][j], which its real points compute
    tree, partial = kernel_tree(tmp_path, product(k_bound="i + 1"))
    assert not tree.padded and partial is PartialTiles.APART


def test_extra_points_that_would_read_past_a_shared_tile_keep_their_guards(tmp_path):
    # A[i][k] and A[j][k] share one tile of A, 60 rows from the first of j's tile: the extra rows i of
    # the last tile (60 to 63) would be read past its end
    tree, partial = kernel_tree(tmp_path, "for (i = 0; i < 60; i++)\n  for (j = 0; j <= i; j++)\n"
                                          "    for (int k = 0; k < 60; k++)\n      C[i][j] += A[i][k] * A[j][k];")
    assert not tree.padded and partial is PartialTiles.APART


@pytest.mark.parametrize("body, arrays", [
    # integer arithmetic on values computed for nothing could overflow
    (product(), ARRAYS.replace("double", "int")),
    # a division of values computed for nothing
    (product("C[i][j] += A[i][k] / B[k][j];"), ARRAYS),
    # a call
    (product("C[i][j] += A[i][k] * sqrt(B[k][j]);"), ARRAYS),
])
def test_statements_that_are_not_plain_arithmetic_keep_their_guards(tmp_path, body, arrays):
    tree, partial = kernel_tree(tmp_path, body, arrays)
    assert not tree.padded and partial is PartialTiles.APART
    assert tree.computed.is_equal(tree.domain)


# products with a local sum as people write them, whose statements beside the sum's loop cannot be
# padded (they read or write global memory): the sum runs unguarded, they keep their guards
LOCAL_SUM = r"""
#include "kernels.h"
static void kernel(int n, int m, int p, double alpha, double A[n][p], double B[p][m], double C[n][m])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      BODY
    }
#pragma endscop
}
int main(int argc, char **argv)
{
  int n = arg_int(argc, argv, 1, 70), m = arg_int(argc, argv, 2, 45), p = arg_int(argc, argv, 3, 50);
  double *A = alloc_doubles(n * p), *B = alloc_doubles(p * m), *C = alloc_doubles(n * m);
  init_array_1d(A, n * p); init_array_1d(B, p * m); init_array_1d(C, n * m);
  kernel(n, m, p, 1.5, (double (*)[p])A, (double (*)[m])B, (double (*)[m])C);
  print_array_1d("C", C, n * m);
  return 0;
}
"""
LOCAL_SUMS = {
    # the store reads C too
    "store-reads-global": "double s = 0.0;\n for (int k = 0; k < p; k++)\n s += A[i][k] * B[k][j];\n"
                          "C[i][j] = alpha * s + 0.5 * C[i][j];",
    # the reset reads C (which a thread then keeps in registers)
    "reset-reads-global": "double s = C[i][j];\n for (int k = 0; k < p; k++)\n s += A[i][k] * B[k][j];\n"
                          "C[i][j] = s;",
    # two sums, one store of both: isl schedules two nests of k, which join the parallel band together
    "two-sums": "double s = 0.0, t = 1.0;\n for (int k = 0; k < p; k++) {\n s += A[i][k] * B[k][j];\n"
                "t += alpha * A[i][k];\n }\n C[i][j] = s * t;",
}


@pytest.mark.parametrize("name", list(LOCAL_SUMS))
def test_products_with_a_local_sum_are_padded_and_run_right(tmp_path, name):
    source = tmp_path / f"{name.replace('-', '_')}.c"
    source.write_text(LOCAL_SUM.replace("BODY", LOCAL_SUMS[name]))
    for target in ("cuda", "opencl"):
        status, messages = polypragma(source, tmp_path / target, ["--target", target, "--no-fp-contract", "--explain"])
        assert status == 0 and "warning" not in messages, messages
        assert "A (1 reference(s), read, line(s) 10): shared memory" in messages or \
            "A (2 reference(s), read, line(s) 10, 11): shared memory" in messages, messages
        # (where the reset reads C, C is in registers: every statement is padded)
        assert "no point of the deepest loops has a guard" in messages or "no point has a guard" in messages, messages
    why = opencl_device()
    if why:
        pytest.skip(why)
    # the OpenCL program against the original
    compile_c(source, tmp_path / "orig", include=(KERNELS,))
    compile_c(generated_path(source, tmp_path / "opencl"), tmp_path / "gen", include=(KERNELS,), libs=["-lOpenCL"])
    # partial tiles along both mapped loops, a k of one step, and tiles all full
    for sizes in (["70", "45", "50"], ["33", "65", "1"], ["64", "64", "64"]):
        expected = run(tmp_path / "orig", sizes)
        got = run(tmp_path / "gen", sizes, env={"POLYPRAGMA_DEVICE": "gpu"}, timeout=300)
        assert got.returncode == 0, got.stderr
        assert outputs_match(expected.stdout, got.stdout, 1e-9) is None, (sizes, expected.stdout, got.stdout)


def test_a_function_of_several_disjuncts_is_made_piece_by_piece():
    """A tile-and-point relation of several disjuncts (as a wrapped grid's congruences leave them, where
    isl's conversion of the whole took 35 s: differential program 4590) becomes the same function from
    its disjuncts, overlapping ones included."""
    relation = isl.Map("[n] -> { S[i] -> [t, p] : 4t <= i <= 4t + 3 and p = i - 4t and 0 <= i < n and "
                       "(i mod 3 = 0 or i mod 2 = 0 or i >= 10) }")
    assert len(relation.get_basic_maps()) > 1
    function = function_of(relation)
    assert isl.Map.from_pw_multi_aff(function).is_equal(relation)
    assert function.is_equal(isl.PwMultiAff.from_map(relation))
