"""The copies of shared tiles unrolled in their full tiles (polypragma.codegen.copy_statements,
MAX_UNROLLED_COPIES), shared out among all the threads of the block: which copies are set apart, what
they move, and that the kernels compute the original program's values on PoCL where both full and
partial tiles run; with --no-unroll-copies, none is set apart."""

from __future__ import annotations

import re

import pytest

from harness import KERNELS, assert_opencl_runs_as_original, generated_path, opencl_device, polypragma

from polypragma import dependences
from polypragma.codegen.kernel_ast import with_kernel_asts
from polypragma.gpu.region import prepare
from polypragma.gpu.sizes import SizeOptions
from polypragma.schedule import ScheduleOptions, compute_schedule
from test_model import model


def built(tmp_path, body: str, arrays: str, sizes: SizeOptions):
    scop = model(tmp_path, body, arrays)
    deps = dependences.compute(scop)
    region = prepare(scop, compute_schedule(scop, deps, ScheduleOptions()).schedule, deps, sizes, "k.c",
                     cuda=True)
    return with_kernel_asts(region, registers_across_barriers=True)


def test_a_products_tiles_are_copied_unrolled_where_they_are_full(tmp_path):
    # tiles 32x32 over blocks 8x32: a thread copies 4 elements of each shared tile of A and B
    region = built(tmp_path, "for (i = 0; i < 60; i++)\n  for (j = 0; j < 60; j++)\n"
                             "    for (int k = 0; k < 60; k++)\n      C[i][j] += A[i][k] * B[k][j];",
                   "double A[60][60], double B[60][60], double C[60][60]", SizeOptions(tile=(32, 32), block=(8, 32)))
    assert region.copies_apart[0] == (("shared_A", True, 4), ("shared_B", True, 4))


def test_a_thread_copying_more_than_the_limit_keeps_its_loops(tmp_path):
    # a 64x64 tile over blocks 4x8: 128 elements a thread, past MAX_UNROLLED_COPIES
    region = built(tmp_path, "for (i = 0; i < 128; i++)\n  for (j = 0; j < 128; j++)\n"
                             "    for (int k = 0; k < 128; k++)\n      C[i][j] += A[i][k] * B[k][j];",
                   "double A[128][128], double B[128][128], double C[128][128]",
                   SizeOptions(tile=(64, 64), block=(4, 8)))
    assert region.copies_apart[0] == ()


def _compiled(tmp_path, source, defines: list[str], options: list[str]) -> tuple[str, str]:
    """The kernels' code of ``source`` through the opencl target (the generated file without its comment
    lines: the source's own, its CHECK lines among them, are copied into it), and what the command said."""
    status, messages = polypragma(source, tmp_path, ["--target", "opencl", "--no-fp-contract", *options], defines)
    assert status == 0 and "warning" not in messages, messages
    text = generated_path(source, tmp_path).read_text()
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")), messages


@pytest.mark.parametrize("source, defines, args, options, unrolled", [
    # tiles of 64x64 and steps of 32 along k: full tiles, and partial ones along every loop
    (KERNELS / "gemm.c", [], ["3", "130", "70", "100"], [],
     r"shared_A\[t0\]\[t1\] = A\[\(t0 \+ 64 \* k0\) \* nk \+ \(t1 \+ 32 \* k2\)\];"),
    # a 5-point stencil over an array the kernel only reads: the full tiles' copies move the whole
    # 34x34 box (its four corners too), the last tiles only the elements read
    (KERNELS / "jacobi_2d.c", ["-DN=75", "-DTSTEPS=4"], ["5"], [],
     r"shared_A\[t0 \+ 32\]\[t1 \+ 32\] = A\["),
    # a vector's tile of 1024 over a block of 16x32: every thread copies two elements, 32 t0 + t1 its
    # index (not the 32 threads of t0 = 0, 32 each); by default, one vector of two, 2 (32 t0 + t1) its index
    # (q's kernel apart from s's: --fusion min)
    (KERNELS / "bicg.c", [], ["4", "600", "1100"], ["--no-vector-copies", "--fusion", "min"],
     r"shared_p\[32 \* t0 \+ t1 \+ 512\] = p\["),
    (KERNELS / "bicg.c", [], ["4", "600", "1100"], ["--fusion", "min"],
     r"vstore2\(vload2\(0, &p\[64 \* t0 \+ 2 \* t1 \+ 1024 \* k1\]\), 0, &shared_p\[64 \* t0 \+ 2 \* t1\]\);"),
    # a copy-out: the transposed tile written back in full tiles unrolled
    (KERNELS / "transpose.c", [], ["2", "70", "45"], [], r"B\[.*\] = shared_B\[t0 \+ 24\]\[t1\];"),
])
def test_full_and_partial_tiles_compute_the_original_values(tmp_path, source, defines, args, options, unrolled):
    why = opencl_device()
    if why:
        pytest.skip(why)
    text, _ = _compiled(tmp_path / "gen", source, defines, options)
    assert re.search(unrolled, text), "no unrolled copy of a full tile"
    assert_opencl_runs_as_original(source, tmp_path / "gen", defines, args)


@pytest.mark.parametrize("source, defines, args, options", [
    (KERNELS / "gemm.c", [], ["3", "130", "70", "100"], []),
    (KERNELS / "jacobi_2d.c", ["-DN=75", "-DTSTEPS=4"], ["5"], []),
    # two buffers: the next step of k copied in, in its loops, while this one is computed
    (KERNELS / "gemm.c", [], ["3", "130", "70", "100"], ["--double-buffer"]),
])
def test_without_unrolled_copies_each_copy_is_one_loop_nest(tmp_path, source, defines, args, options):
    # --no-unroll-copies: full and partial tiles alike are copied in loops over the thread's elements (k3 from
    # the thread's index; t1 alone along a step of k as wide as the block), with their guards; no copy is set
    # apart, and --explain says none is unrolled
    why = opencl_device()
    if why:
        pytest.skip(why)
    text, messages = _compiled(tmp_path / "gen", source, defines, ["--no-unroll-copies", "--explain", *options])
    assert not re.search(r"shared_A(\[[^]]*\])?\[t0( \+ \d+)?\]\[t1( \+ \d+)?\] = A\[", text), "a copy is unrolled"
    assert re.search(r"shared_A(\[[^]]*\])?\[k\d\]\[(k\d|t1)\] = A\[", text), "no loop copies A's tile"
    assert "shared memory" in messages and "unrolled in the tiles" not in messages, messages
    assert_opencl_runs_as_original(source, tmp_path / "gen", defines, args)
