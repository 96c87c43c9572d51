"""Two buffers for the shared tiles a kernel's loops in sequence copy in (--double-buffer): which tiles
get them, what the kernel's code does with them (the next tile copied in one step ahead into the other
buffer, one barrier a step), and that the kernels compute the original program's values on PoCL where
full and partial tiles run (the corpus's kernels with such tiles: test_opencl.py's double-buffered
variants)."""

from __future__ import annotations

import re

import pytest

from harness import KERNELS, assert_opencl_runs_as_original, generated_path, opencl_device, polypragma

from polypragma import dependences
from polypragma.codegen.kernel_ast import with_kernel_asts
from polypragma.gpu.memory import MemoryOptions, Placement
from polypragma.gpu.region import prepare
from polypragma.gpu.sizes import SizeOptions
from polypragma.schedule import ScheduleOptions, compute_schedule
from test_model import model

PRODUCT = "for (i = 0; i < 60; i++)\n  for (j = 0; j < 60; j++)\n    for (int k = 0; k < 60; k++)\n" \
          "      C[i][j] += A[i][k] * B[k][j];"
ARRAYS = "double A[60][60], double B[60][60], double C[60][60]"


def shared(tmp_path, body: str, arrays: str, double_buffer: bool = True, sizes=SizeOptions(tile=(32, 32),
                                                                                               block=(8, 32))):
    scop = model(tmp_path, body, arrays)
    deps = dependences.compute(scop)
    region = prepare(scop, compute_schedule(scop, deps, ScheduleOptions()).schedule, deps, sizes, "k.c",
                     MemoryOptions(double_buffer=double_buffer), cuda=True)
    region = with_kernel_asts(region, registers_across_barriers=True)
    return {g.array.name: g for memory in region.memory for g in memory.groups
            if g.placement is Placement.SHARED}


def test_the_tiles_a_product_only_reads_have_two_buffers(tmp_path):
    groups = shared(tmp_path, PRODUCT, ARRAYS)
    assert (groups["A"].buffers, groups["B"].buffers) == (2, 2)
    # (twice the bytes of one tile of 32x32, the innermost padded as for one buffer)
    assert groups["A"].shared_bytes() == 2 * 32 * (32 + groups["A"].padding) * 8
    assert groups["A"].declared() == [2, 32, 32 + groups["A"].padding]
    (tmp_path / "single").mkdir()
    single = shared(tmp_path / "single", PRODUCT, ARRAYS, double_buffer=False)
    assert (single["A"].buffers, single["B"].buffers) == (1, 1)


def test_an_array_the_kernel_writes_keeps_one_buffer(tmp_path):
    # adi's sweeps: a kernel of the column sweep reads p and q along j and writes v: a copy of v's next
    # tile ahead could read an element before the kernel writes it.  p and q, only read there, have two
    status, messages = polypragma(KERNELS / "adi.c", tmp_path, ["--target", "cuda", "--double-buffer", "--explain"])
    assert status == 0, messages
    kernel = messages.split("  kernel 1 ")[1].split("  kernel 2 ")[0]
    placed = {line.split()[0]: line for line in kernel.splitlines() if "shared memory:" in line}
    assert set(placed) == {"p", "q", "v"}, kernel
    assert "2 buffers" in placed["p"] and "2 buffers" in placed["q"] and "buffers" not in placed["v"], kernel


def test_a_kernel_without_loops_in_sequence_keeps_one_buffer(tmp_path):
    # a stencil's tiles: each tile is copied once, nothing to copy ahead of
    groups = shared(tmp_path, "for (i = 1; i < 59; i++)\n  for (j = 1; j < 59; j++)\n"
                              "    B[i][j] = A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1];",
                    "double A[60][60], double B[60][60]")
    assert groups["A"].buffers == 1


def test_the_cost_model_counts_both_buffers(tmp_path):
    # gemm's tiles of 64x64 with steps of 32 along k take 33 KB in one buffer each, 66 KB in two: past
    # the 48 KB a block declares, so the model takes steps of 16 (34 KB), and says so
    status, messages = polypragma(KERNELS / "gemm.c", tmp_path, ["--target", "cuda", "--double-buffer", "--explain"])
    assert status == 0, messages
    assert "loops in sequence tiled by [16]: " in messages and "33792 bytes of shared memory" in messages, messages
    assert messages.count("2 buffers: the next tile of the loops in sequence is copied into one while this one is "
                          "read from the other") == 2, messages


def test_the_next_tile_is_copied_ahead_with_one_barrier_a_step(tmp_path):
    status, messages = polypragma(KERNELS / "gemm.c", tmp_path, ["--target", "cuda", "--double-buffer"])
    assert status == 0 and "warning" not in messages, messages
    text = (tmp_path / "gemm.polypragma.cu").read_text()
    assert "__shared__ double shared_A[2][64][17];" in text and "__shared__ double shared_B[2][16][64];" in text
    # the loop over k's tiles starts one step early, where the first tile is copied in alone
    loop = re.search(r"for \(int (k\d) = -1; \1 <= .*?\) \{\n(.*?)\n {8}\}\n", text, re.S)
    assert loop, text
    k, body = loop.group(1), loop.group(2)
    copies = re.findall(r"shared_[AB]\[(.*?)\]\[.*\] = [AB]\[", body)
    reads = re.findall(r"\* shared_[AB]\[(.*?)\]", body)
    assert copies and set(copies) == {f"({k} + 1) % 2"}, copies
    assert reads and set(reads) == {f"{k} % 2"}, reads
    assert body.count("__syncthreads();") == 1 and body.rstrip().endswith("__syncthreads();")


@pytest.mark.parametrize("source, defines, args", [
    # tiles of 64x64, steps of 16 along k: full tiles and partial ones along every loop, an odd and an
    # even number of steps
    (KERNELS / "gemm.c", [], ["3", "130", "70", "100"]),
    (KERNELS / "gemm.c", [], ["3", "70", "130", "40"]),
    # three products, each tile's two buffers of its own kernel
    (KERNELS / "mm3.c", [], ["3"]),
])
def test_double_buffered_kernels_compute_the_original_values(tmp_path, source, defines, args):
    why = opencl_device()
    if why:
        pytest.skip(why)
    status, messages = polypragma(source, tmp_path / "gen", ["--target", "opencl", "--no-fp-contract",
                                                             "--double-buffer"], defines)
    assert status == 0 and "warning" not in messages, messages
    assert "[2][" in generated_path(source, tmp_path / "gen").read_text()
    assert_opencl_runs_as_original(source, tmp_path / "gen", defines, args)
