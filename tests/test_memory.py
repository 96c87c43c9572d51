"""Placement of data in the memory hierarchy (shared memory, registers, constant memory, textures):
the decisions on the classic cases, read from --explain and the generated code, and each program
run on OpenCL (PoCL) against the original with promotion on, off and with a tiny budget."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

import islpy as isl

from polypragma.gpu.banks import bank_padding, wavefronts, warp_offsets
from polypragma.gpu.boxes import one_piece

from harness import (KERNELS, UNOPTIMISED, compile_c, generated_path, opencl_device, opencl_run_env, outputs_match,
                     polypragma, run)

MATMUL = r"""
#include "kernels.h"
static void kernel(int n, int m, int p, double A[n][p], double B[p][m], double C[n][m])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < p; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
int main(int argc, char **argv)
{
  int n = arg_int(argc, argv, 1, 70), m = arg_int(argc, argv, 2, 45), p = arg_int(argc, argv, 3, 50);
  double *A = alloc_doubles(n * p), *B = alloc_doubles(p * m), *C = alloc_doubles(n * m);
  init_array_1d(A, n * p); init_array_1d(B, p * m); init_array_1d(C, n * m);
  kernel(n, m, p, (double (*)[p])A, (double (*)[m])B, (double (*)[m])C);
  print_array_1d("C", C, n * m);
  return 0;
}
"""

TRANSPOSE = r"""
#include "kernels.h"
static void kernel(int n, double A[n][n], double B[n][n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[i][j] = 2.0 * A[j][i];
#pragma endscop
}
int main(int argc, char **argv)
{
  int n = arg_int(argc, argv, 1, 77);
  double *A = alloc_doubles(n * n), *B = alloc_doubles(n * n);
  init_array_1d(A, n * n); init_array_1d(B, n * n);
  kernel(n, (double (*)[n])A, (double (*)[n])B);
  print_array_1d("B", B, n * n);
  return 0;
}
"""

STENCIL = r"""
#include "kernels.h"
static void kernel(int n, double A[n][n], double B[n][n])
{
#pragma scop
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
#pragma endscop
}
int main(int argc, char **argv)
{
  int n = arg_int(argc, argv, 1, 75);
  double *A = alloc_doubles(n * n), *B = alloc_doubles(n * n);
  init_array_1d(A, n * n); init_array_1d(B, n * n);
  kernel(n, (double (*)[n])A, (double (*)[n])B);
  print_array_1d("B", B, n * n);
  return 0;
}
"""

FILTER = r"""
#include "kernels.h"
static double w[5];
static void kernel(int n, double x[n + 4], double y[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 5; k++)
      y[i] += w[k] * x[i + k];
#pragma endscop
}
int main(int argc, char **argv)
{
  int n = arg_int(argc, argv, 1, 1000);
  double *x = alloc_doubles(n + 4), *y = alloc_doubles(n);
  init_array_1d(w, 5); init_array_1d(x, n + 4); init_array_1d(y, n);
  kernel(n, x, y);
  print_array_1d("y", y, n);
  return 0;
}
"""

# a product of each element type: its copies move vectors of two elements (--vector-copies)
TYPED_PRODUCT = (MATMUL.replace("double", "T").replace("alloc_Ts", "ALLOC").replace("init_array_1d", "INIT")
                 .replace('print_array_1d("C", C, n * m);', 'for (int i = 0; i < n * m; i++)\n    printf(FORMAT "\\n", C[i]);'))
TYPES = {"double": '#define ALLOC alloc_doubles\n#define INIT init_array_1d\n#define FORMAT "%.17g"\n',
         "float": '#define ALLOC alloc_floats\n#define INIT init_float_array\n#define FORMAT "%.9g"\n',
         "int": '#define ALLOC alloc_ints\n#define INIT(a, n) init_int_array(a, n, -9, 9)\n#define FORMAT "%d"\n'}


def typed_product(ctype: str) -> str:
    return f"#define T {ctype}\n" + TYPES[ctype] + TYPED_PRODUCT


PROGRAMS = {"matmul": (MATMUL, ["70", "45", "50"]), "transpose": (TRANSPOSE, ["77"]),
            "stencil": (STENCIL, ["75"]), "filter": (FILTER, ["1000"])}


def placements(messages: str) -> dict[str, list[str]]:
    """``--explain``'s memory lines: array -> the descriptions of its groups."""
    out: dict[str, list[str]] = {}
    for line in messages.splitlines():
        match = re.match(r"^    (\w+) \(\d+ reference\(s\), [a-z ]+, line\(s\) [\d, ]+\): (.*)$", line)
        if match:
            out.setdefault(match.group(1), []).append(match.group(2))
    return out


def explain(tmp_path, name: str, options=(), target="cuda") -> tuple[dict[str, list[str]], str]:
    source = tmp_path / f"{name}.c"
    source.write_text(PROGRAMS[name][0])
    status, messages = polypragma(source, tmp_path / "out", ["--target", target, "--explain", *options])
    assert status == 0, messages
    suffix = ".polypragma.cu" if target == "cuda" else ".polypragma.c"
    return placements(messages), (tmp_path / "out" / f"{name}{suffix}").read_text()


# the sizes the defaults had before the cost model chose them: the tests of tiles' shapes give them
DEFAULT_2D = ["--tile-size", "32,32", "--block-size", "8,32"]


def test_matrix_product_inputs_in_shared_memory_output_in_registers(tmp_path):
    where, code = explain(tmp_path, "matmul", DEFAULT_2D)
    assert where["A"][0].startswith("shared memory: reuse within a tile: tile 32x32"), where
    assert where["B"][0].startswith("shared memory: reuse within a tile: tile 32x32"), where
    assert where["C"][0].startswith("registers:"), where
    assert "__shared__ double shared_A[32][32];" in code
    assert "__shared__ double shared_B[32][32];" in code
    assert re.search(r"\n\s+double private_C\[4\]\[1\];", code)  # tile 32 over 8 threads in y
    assert code.count("__syncthreads();") >= 2


def test_a_triangular_tile_starts_at_the_tiles_origin_where_its_box_keeps_its_width():
    # correlation's j > i: the elements of a tile (k0, k1) of j start where the triangle does,
    # max(64 k1 + 1, 32 k0 + 1), two pieces; the tile's origin 64 k1 + 1 holds them in the same 64
    elements = isl.Set("[m, k0, k1] -> { [j] : j >= 64k1 + 1 and j >= 32k0 + 1 and j <= 64k1 + 64 and j < m "
                       "and 32k0 <= 64k1 + 63 }")
    low = elements.dim_min(0)
    assert low.n_piece() == 2
    start = one_piece(low, 64, elements.dim_max(0))
    assert start.n_piece() == 1
    assert start.is_equal(isl.PwAff("[m, k0, k1] -> { [(64k1 + 1)] }").intersect_domain(low.domain()))
    # where no piece starts a box of the same width (each start moves apart from the other), the
    # exact start stays
    apart = isl.Set("[a, b] -> { [j] : a <= j <= a + 10 and a >= b; [j] : b <= j <= b + 10 and b > a }")
    low = apart.dim_min(0)
    assert low.n_piece() == 2
    assert one_piece(low, 11, apart.dim_max(0)) is low


def test_bank_conflicts_of_a_warp():
    # 32 consecutive doubles: 64 words over 32 banks, two wavefronts; 16 of them, one
    assert wavefronts(set(range(32)), 2) == 2 and wavefronts(set(range(16)), 2) == 1
    # one element for the whole warp: a broadcast
    assert wavefronts({0}, 2) == 1
    # a column of a 32x32 double tile: every thread in banks 0 and 1; padded to 33, all banks once
    column = [((1, 0), 32)]
    assert bank_padding([32, 32], [column], 2) == (1, [2])
    assert wavefronts(warp_offsets([32, 32], column[0:1]), 2) == 32
    # a warp of 16x2 threads reading A[t0][k] (two rows, one column) of a 64x32 double tile: the two
    # rows are 256 bytes apart, in the same banks, unless padded; B[k][t1] (16 consecutive) needs no pad
    assert bank_padding([64, 32], [[((1, 0), 2)]], 2) == (1, [1])
    assert bank_padding([32, 64], [[((0, 1), 16)]], 2) == (0, [1])
    # a tile of one dimension is never padded
    assert bank_padding([256], [[((2,), 32)]], 2)[0] == 0


def test_matrix_product_blocks_16_wide_pad_the_rows_a_warp_reads(tmp_path):
    # with blocks of 16x16 a warp holds two rows of threads: they read A at two rows, which padding
    # puts in different banks; B's row is read at 16 consecutive elements and is left as it is
    where, code = explain(tmp_path, "matmul", ["--tile-size", "64,64", "--block-size", "16,16"])
    assert "padded by 1 against bank conflicts" in where["A"][0], where
    assert "__shared__ double shared_A[64][33];" in code
    assert "__shared__ double shared_B[32][64];" in code
    assert re.search(r"\n\s+double private_C\[4\]\[4\];", code)


def test_transpose_gets_shared_memory_for_coalescing_and_padding(tmp_path):
    where, code = explain(tmp_path, "transpose")
    assert where["A"][0].startswith("shared memory: the global access is not coalesced: tile 32x32"), where
    assert "padded by 1 against bank conflicts" in where["A"][0]
    assert "__shared__ double shared_A[32][33];" in code
    assert where["B"][0].startswith("global memory: no reuse within a tile and the global access is coalesced")


def test_stencil_tile_has_its_halo(tmp_path):
    where, _ = explain(tmp_path, "stencil", DEFAULT_2D)
    assert where["A"][0].startswith("shared memory: reuse within a tile: tile 34x34"), where
    # a tile of 64x64: its halo too
    where, _ = explain(tmp_path, "stencil", ["--tile-size", "64,64", "--block-size", "16,32"])
    assert where["A"][0].startswith("shared memory: reuse within a tile: tile 66x66"), where


def test_small_read_only_coefficients_go_to_constant_memory(tmp_path):
    where, code = explain(tmp_path, "filter")
    assert where["w"][0].startswith("constant memory: read-only, 40 bytes"), where
    assert "__constant__ double polypragma_filter_region0_w[5];" in code
    assert "cudaMemcpyToSymbol(polypragma_filter_region0_w, w, bytes_w)" in code
    where, code = explain(tmp_path, "filter", ["--no-constant-memory"])
    assert not where["w"][0].startswith("constant memory"), where
    _, opencl = explain(tmp_path, "filter", target="opencl")
    assert "__constant double *restrict w" in opencl


def test_options_turn_placement_off_and_budget_limits_it(tmp_path):
    where, code = explain(tmp_path, "matmul", ["--no-shared-memory", "--no-private-memory"])
    assert all(not d.startswith(("shared", "registers")) for ds in where.values() for d in ds), where
    assert "__shared__" not in code and "__syncthreads" not in code
    where, _ = explain(tmp_path, "matmul", ["--no-private-memory"])
    assert where["C"][0].startswith("shared memory"), where
    # room for one of the two 32x32 tiles (8 KiB, or 8448 bytes padded): the cost model tiles k by 8,
    # and the 64x8 tile of A and the 8x64 of B fit
    where, code = explain(tmp_path, "matmul", ["--max-shared-memory", "8k"])
    assert all(where[a][0].startswith("shared memory") for a in "AB"), where
    assert "__shared__ double shared_A[64][8];" in code and "__shared__ double shared_B[8][64];" in code
    # room for one of those: the other stays in global memory
    where, _ = explain(tmp_path, "matmul", ["--max-shared-memory", "2k"])
    staged = [a for a in "AB" if where[a][0].startswith("shared memory")]
    assert len(staged) == 1, where
    (other,) = set("AB") - set(staged)
    assert re.search(r"needs \d+ bytes, \d+ left of --max-shared-memory", where[other][0]), where


def test_texture_path_for_read_only_arrays(tmp_path):
    where, code = explain(tmp_path, "transpose", ["--texture", "--no-shared-memory"])
    assert where["A"][0].startswith("texture:"), where
    assert "cudaCreateTextureObject(&texture_A" in code and "cudaDestroyTextureObject(texture_A)" in code
    assert "polypragma_fetch_double(A_texture," in code


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("options", [[], ["--texture"], ["--max-shared-memory", "8k"]], ids=["default", "texture",
                                                                                            "budget"])
def test_nvcc_reports_shared_memory_within_the_budget(tmp_path, options):
    _, code = explain(tmp_path, "matmul", options)
    budget = 8192 if "8k" in options else 48 * 1024
    cu = tmp_path / "out" / "matmul.polypragma.cu"
    result = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "m.o"), "--resource-usage"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    used = [int(v) for v in re.findall(r"(\d+) bytes smem", result.stdout + result.stderr)]
    assert used and max(used) <= budget and max(used) > 0, result.stderr
    # the C tile's register slots are constants in the unrolled loops: no stack frame holds it
    frames = [int(v) for v in re.findall(r"(\d+) bytes stack frame", result.stdout + result.stderr)]
    assert frames and max(frames) == 0, result.stderr


VARIANTS = {"promoted": [], "off": ["--no-shared-memory", "--no-private-memory", "--no-constant-memory"],
            "tiny": ["--max-shared-memory", "1k"], "wrap": ["--tile-size", "5,7", "--block-size", "2,3",
                                                            "--grid-size", "2,2"],
            "unrolled": ["--tile-size", "8,8", "--block-size", "2,4", "--unroll-registers"]}


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_runs_on_opencl(tmp_path, name, variant):
    why = opencl_device()
    if why:
        pytest.skip(why)
    text, args = PROGRAMS[name]
    source = tmp_path / f"{name}.c"
    source.write_text(text)
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl", "--no-fp-contract",
                                                             *VARIANTS[variant]])
    assert status == 0 and "warning" not in messages, messages
    compile_c(source, tmp_path / "orig", include=(KERNELS,))
    # (the first variant's program built as users build it, the others' at -O0 and their kernels unoptimised: see
    # harness.opencl_run_env)
    cflags = UNOPTIMISED if variant != next(iter(VARIANTS)) else []
    compile_c(generated_path(source, tmp_path / "out"), tmp_path / "gen", include=(KERNELS,), libs=["-lOpenCL"],
              extra=cflags)
    env = opencl_run_env(cflags)
    if variant == "unrolled":
        # register tiles unrolled as for CUDA: PoCL runs them right with its 'workitemrepl' method
        env["POCL_WORK_GROUP_METHOD"] = "workitemrepl"
    for sizes in (args, ["3"] * len(args)):
        expected = run(tmp_path / "orig", sizes)
        got = run(tmp_path / "gen", sizes, env=env, timeout=300)
        assert got.returncode == 0, got.stderr
        assert outputs_match(expected.stdout, got.stdout, 1e-9) is None, (sizes, expected.stdout, got.stdout)


def test_promoted_names_say_where_data_lives_and_avoid_the_regions_names(tmp_path):
    # a region that uses the name 'shared_A' itself: the tile of A takes another
    source = tmp_path / "clash.c"
    source.write_text(
        "#define N 64\n"
        "void clash(double A[N][N], double B[N][N], double shared_A[N]) {\n"
        "  int i, j, k;\n"
        "#pragma scop\n"
        "  for (i = 0; i < N; i++)\n"
        "    for (j = 0; j < N; j++) {\n"
        "      B[i][j] = shared_A[i];\n"
        "      for (k = 0; k < N; k++)\n"
        "        B[i][j] += A[i][k] * A[k][j];\n"
        "    }\n"
        "#pragma endscop\n"
        "}\n")
    # (--no-reductions: each thread sums its elements of B in registers)
    status, messages = polypragma(source, tmp_path / "out", ["--target", "cuda", "--no-reductions"])
    assert status == 0, messages
    code = (tmp_path / "out" / "clash.polypragma.cu").read_text()
    assert "__shared__ double polypragma_shared_A[" in code
    assert "private_B[" in code


def test_a_smaller_tile_stages_rows_read_along_x_through_shared_memory(tmp_path):
    # mvt's first kernel reads A[i][j] with i on threads.x: neighbouring threads are a row apart.  A tile
    # of 256 (x the 32 of j) would need 67584 bytes of shared memory; the cost model takes 256 with j
    # tiled by 16, which fits, and every thread of the block copies A's tile, a warp along a row
    # (--no-reductions: x1's sum stays in order in each thread, so j is not spread over threads)
    source = KERNELS / "mvt.c"
    status, messages = polypragma(source, tmp_path / "out", ["--target", "cuda", "--explain", "--no-reductions"])
    assert status == 0, messages
    where = placements(messages)
    assert where["A"][0].startswith("shared memory: the global access is not coalesced: tile 256x16"), where
    first, second = messages.split("kernel 1 (")
    assert "tile [256], block [256]" in first and "further loop(s) of its permutable band tiled by [16]" in first
    assert "runner-up: loop 1 on x, tile [128], block [128], loops in sequence tiled by [16]" in first
    # the kernel reading A down a column is coalesced as it is: A stays in global memory, 8 sectors a warp
    assert where["A"][1].startswith("global memory: no reuse within a tile and the global access is coalesced")
    assert ("chosen by the cost model of 9 candidates: loop 1 on x, tile [256], block [128], loops in sequence "
            "tiled by [32]: 8.03 global") in second
    # sizes the user sets are kept, and the tile that does not fit says so
    status, messages = polypragma(source, tmp_path / "user", ["--target", "cuda", "--explain", "--tile-size", "256",
                                                              "--no-reductions"])
    assert status == 0, messages
    assert "instead of" not in messages
    assert "needs 67584 bytes" in placements(messages)["A"][0]


def test_a_tile_written_before_it_is_read_is_not_copied_in(tmp_path):
    # the corpus transpose, fused: B[j][i] = f(A[i][j]) and then C[i][j] reads B[j][i] in the same
    # iteration, so every element of B's shared tile the kernel reads it wrote first: B is copied out,
    # never in (a quarter of the kernel's global traffic, and the barrier after the copy)
    status, messages = polypragma(KERNELS / "transpose.c", tmp_path, ["--target", "cuda", "--explain"])
    assert status == 0, messages
    assert "B (2 reference(s), read and written" in messages and "tile 32x32 in shared memory" in messages
    code = (tmp_path / "transpose.polypragma.cu").read_text()
    start = code.index("__global__ void polypragma_transpose_region0_kernel0(")
    kernel = code[start:code.index("int polypragma_transpose_region0(", start)]
    assert not re.search(r"shared_B\[[^]]+\]\[[^]]+\] = B\[", kernel), kernel
    assert re.search(r"\bB\[[^]]+\] = shared_B\[", kernel), kernel
    # a tile read before it is written is still copied in: fdtd_2d's ey, but for its first row, which
    # the kernel writes (ey[0][j] = fict[t]) before it reads it
    status, messages = polypragma(KERNELS / "fdtd_2d.c", tmp_path / "fdtd", ["--target", "cuda"])
    assert status == 0, messages
    code = (tmp_path / "fdtd" / "fdtd_2d.polypragma.cu").read_text()
    assert re.search(r"shared_ey\[[^]]+\]\[[^]]+\] = ey\[", code)


def test_registers_a_thread_resets_before_it_reads_them_are_not_copied_in(tmp_path):
    # 2mm's tmp[i][j] = 0 before tmp[i][j] += alpha * A[i][k] * B[k][j]: the thread's register tile of
    # tmp is written before any read, so it is copied out only; D's (D *= beta first reads it) is copied in
    status, messages = polypragma(KERNELS / "mm2.c", tmp_path, ["--target", "cuda"])
    assert status == 0, messages
    code = (tmp_path / "mm2.polypragma.cu").read_text()
    first = code[code.index("__global__ void polypragma_mm2_region0_kernel0("):code.index("__global__ void polypragma_mm2_region1_kernel0(")]
    second = code[code.index("__global__ void polypragma_mm2_region1_kernel0("):code.index("int polypragma_mm2_region0(")]
    assert re.search(r"private_tmp\[k\d+\]\[k\d+\] \+?= ", first), first
    assert not re.search(r"private_tmp\[[^]]+\]\[[^]]+\] = tmp\[", first), first
    assert re.search(r"\btmp\[[^]]+\] = private_tmp\[", first), first
    assert re.search(r"private_D\[[^]]+\]\[[^]]+\] = D\[", second), second


def test_a_stencils_many_neighbours_share_one_tile_with_its_halo(tmp_path):
    # convolution_2d's nine reads of A, translates of each other by one element: past the six groups
    # whose merges are tried, they are joined first (memory._translates_joined), one 34x34 tile for the
    # 32x32 of the kernel, and the cost model counts them so (17.56 sectors, not 80)
    status, messages = polypragma(KERNELS / "convolution_2d.c", tmp_path, ["--target", "cuda", "--explain"],
                                  ["-DNI=200", "-DNJ=200"])
    assert status == 0, messages
    assert "A (9 reference(s), read, line(s) 31): shared memory: reuse within a tile: tile 34x34" in messages
    assert "(A in shared memory; B in global memory)" in messages
    code = (tmp_path / "convolution_2d.polypragma.cu").read_text()
    assert "__shared__ __align__(16) double shared_A[34][34];" in code  # (its copies move vectors)
    # heat_3d's ten reads would copy a 6x10x34 tile for its 4x8x32 one, twice the elements it computes on:
    # they stay apart (and global), as before
    status, messages = polypragma(KERNELS / "heat_3d.c", tmp_path / "heat", ["--target", "cuda", "--explain"])
    assert status == 0, messages
    assert "A (10 reference(s)" not in messages
    assert messages.count("A (1 reference(s), read, line(s) 18): global memory") == 10


def test_vector_copies_by_default_where_no_sums_stay_in_registers(tmp_path):
    # without --[no-]vector-copies, a kernel's copies move vectors unless it keeps a tile of sums in
    # registers: the stencil's tile of A moves two elements a copy; the product, whose C stays in registers
    # (4x4 elements a thread), copies its tiles one element at a time, and --explain says why.  Each option
    # decides for both.  The stencil's default program runs on PoCL as the original, with rows of odd and
    # even lengths
    def vectors(name: str, text: str, options: list[str]) -> tuple[bool, str]:
        source = tmp_path / f"{name}.c"
        source.write_text(text)
        out = tmp_path / f"{name}{len(options)}{''.join(o[2] for o in options)}"
        status, messages = polypragma(source, out, ["--target", "opencl", "--no-fp-contract", "--explain", *options])
        assert status == 0 and "warning" not in messages, messages
        return "vload2(0, &" in generated_path(source, out).read_text(), messages

    stencil, messages = vectors("stencil", STENCIL, [])
    assert stencil and "copied in 2 elements at a time (vectors" in placements(messages)["A"][0], messages
    assert "copies one element at a time" not in messages
    product, messages = vectors("matmul", MATMUL, [])
    assert not product and "elements at a time" not in messages, messages
    assert "copies one element at a time: the kernel keeps a tile of sums in registers (C)" in messages, messages
    assert vectors("matmul", MATMUL, ["--vector-copies"])[0]
    assert not vectors("stencil", STENCIL, ["--no-vector-copies"])[0]
    assert vectors("stencil", STENCIL, ["--vector-copies"])[0]
    assert not vectors("matmul", MATMUL, ["--no-vector-copies"])[0]
    why = opencl_device()
    if why:
        pytest.skip(why)
    source = tmp_path / "stencil.c"
    compile_c(source, tmp_path / "orig", include=(KERNELS,))
    compile_c(generated_path(source, tmp_path / "stencil0"), tmp_path / "gen", include=(KERNELS,), libs=["-lOpenCL"])
    for n in ("75", "64", "3"):
        expected = run(tmp_path / "orig", [n])
        got = run(tmp_path / "gen", [n], env={"POLYPRAGMA_DEVICE": "gpu"})
        assert got.returncode == 0, got.stderr
        assert outputs_match(expected.stdout, got.stdout, 1e-12) is None, n


# a stencil whose tile's rows hold 33 elements (B[i][j + 1]), a multiple of a vector once padded
ODD_ROWS = r"""
#include "kernels.h"
static void kernel(int n, double B[n][n], double D[n][n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n - 1; j++)
      D[i][j] = 0.5 * (B[i][j] + B[i][j + 1]);
#pragma endscop
}
int main(int argc, char **argv)
{
  int n = arg_int(argc, argv, 1, 75);
  double *B = alloc_doubles(n * n), *D = alloc_doubles(n * n);
  init_array_1d(B, n * n); init_array_1d(D, n * n);
  kernel(n, (double (*)[n])B, (double (*)[n])D);
  print_array_1d("D", D, n * n);
  return 0;
}
"""


def test_tiles_laid_out_so_that_their_copies_move_vectors(tmp_path):
    # fdtd-2d's updates of ey and ex run in one kernel (gpu/siblings.py) whose tile of hz starts at column
    # 32 b - 1 (hz[i][j - 1] for j from 1, hz[i][j] for j from 0): its rows start one element earlier, at a
    # vector's boundary, and its copy-in moves the element before the first it reads too (inside the
    # array, which the kernel does not write), in vectors.  ODD_ROWS's tile of rows of 33 is padded to 34
    # (no more bank conflicts: a warp reads along a row), so that every row starts aligned.  Without
    # vectors, neither.  Both run on PoCL as the originals, at sizes whose rows are odd or even, with
    # full tiles (whose copies are unrolled) and partial ones
    fdtd = KERNELS / "fdtd_2d.c"
    status, messages = polypragma(fdtd, tmp_path / "fdtd", ["--target", "cuda", "--explain"])
    assert status == 0 and "warning" not in messages, messages
    assert ("hz (4 reference(s), read, line(s) 21, 24): shared memory: reuse within a tile: tile 33x34 in shared "
            "memory (8976 bytes; each row from 1 element(s) before the first it uses, so that rows start on a "
            "vector); copied in 2 elements at a time (vectors") in messages, messages
    code = (tmp_path / "fdtd" / "fdtd_2d.polypragma.cu").read_text()
    assert "__shared__ __align__(16) double shared_hz[33][34];" in code
    assert re.search(r"polypragma_copy_in_double2\(&shared_hz\[k\d+\]\[2 \* t1\], &hz\[[^;]*2 \* t1 - 2\)\]\)", code)
    status, messages = polypragma(fdtd, tmp_path / "fdtd_apart", ["--target", "cuda", "--explain",
                                                                  "--no-vector-copies"])
    assert status == 0, messages
    assert "hz (4 reference(s), read, line(s) 21, 24): shared memory: reuse within a tile: tile 33x33 in " \
           "shared memory (8712 bytes)" in messages, messages
    source = tmp_path / "odd_rows.c"
    source.write_text(ODD_ROWS)
    for options, tile in (([], "tile 32x33 in shared memory (8704 bytes, innermost dimension padded by 1 against "
                               "bank conflicts and so that rows start on a vector); copied in 2 elements at a "
                               "time (vectors"),
                          (["--no-vector-copies"], "tile 32x33 in shared memory (8448 bytes)")):
        status, messages = polypragma(source, tmp_path / f"odd{len(options)}", ["--target", "cuda", "--explain",
                                                                               *options])
        assert status == 0 and tile in placements(messages)["B"][0], messages
    why = opencl_device()
    if why:
        pytest.skip(why)
    for program, runs in ((fdtd, (["3", "100", "131", "2"], ["4", "70", "96", "3"], ["5", "33", "35", "2"])),
                          (source, (["75"], ["64"], ["33"], ["2"]))):
        out = tmp_path / f"cl_{program.stem}"
        status, messages = polypragma(program, out, ["--target", "opencl", "--no-fp-contract"])
        assert status == 0, messages
        assert "vload2(0, &" in generated_path(program, out).read_text()
        compile_c(program, out / "orig", include=(KERNELS,))
        compile_c(generated_path(program, out), out / "gen", include=(KERNELS,), libs=["-lOpenCL"])
        for args in runs:
            expected = run(out / "orig", args)
            got = run(out / "gen", args, env={"POLYPRAGMA_DEVICE": "gpu"})
            assert got.returncode == 0, got.stderr
            assert outputs_match(expected.stdout, got.stdout, 0.0) is None, (program.stem, args)


@pytest.mark.parametrize("ctype", list(TYPES))
def test_vector_copies_run_on_opencl(tmp_path, ctype):
    # --vector-copies: B's unpadded tile of the product moves two elements a copy (vload/vstore), the
    # elements no vector holds (the last of a row of odd length) one by one; results as the original's
    why = opencl_device()
    if why:
        pytest.skip(why)
    source = tmp_path / f"product_{ctype}.c"
    source.write_text(typed_product(ctype))
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl", "--no-fp-contract",
                                                             "--vector-copies", "--explain"])
    assert status == 0 and "warning" not in messages, messages
    width = 2
    assert f"copied in {width} elements at a time (vectors" in placements(messages)["B"][0], messages
    code = generated_path(source, tmp_path / "out").read_text()
    assert f"vstore{width}(vload{width}(0, &B[" in code and "__attribute__((aligned(16)))" in code
    compile_c(source, tmp_path / "orig", include=(KERNELS,))
    compile_c(generated_path(source, tmp_path / "out"), tmp_path / "gen", include=(KERNELS,), libs=["-lOpenCL"])
    for sizes in (["70", "45", "50"], ["64", "66", "33"], ["3", "5", "7"]):
        expected = run(tmp_path / "orig", sizes)
        got = run(tmp_path / "gen", sizes, env={"POLYPRAGMA_DEVICE": "gpu"})
        assert got.returncode == 0, got.stderr
        assert outputs_match(expected.stdout, got.stdout, 0.0) is None, (sizes, expected.stdout, got.stdout)

