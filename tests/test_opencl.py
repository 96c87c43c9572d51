"""Every corpus kernel through the opencl target, run for real on an OpenCL device
(PoCL on the CPU here) with POLYPRAGMA_DEVICE=gpu, against the original program."""

from __future__ import annotations

import pytest

from harness import (LEFT_AS_WRITTEN, UNOPTIMISED, WRAP_SIZES, compile_c, generated_path, kernel_absolute_tolerance,
                     kernel_paths, kernel_tolerance, opencl_device, opencl_run_env, outputs_match, polypragma, run,
                     run_configs, variant_cases)
from polypragma.scan import scan

# promotion to shared memory and registers is on in "default" and "wrap" (partial tiles); the small
# tiles of "original-order" meet a 1 KiB shared-memory budget that only some groups fit; "global-only"
# keeps every array in global memory
# (each variant's options, and the gcc options of its generated programs: see harness.UNOPTIMISED; the programs
# built UNOPTIMISED build their kernels so too: harness.opencl_run_env)
VARIANTS = {
    "default": ([], []),
    "wrap": (WRAP_SIZES, UNOPTIMISED),
    "original-order": (["--no-reschedule", "--tile-size", "3,16", "--block-size", "3,8", "--max-shared-memory", "1k"],
                       UNOPTIMISED),
    "global-only": (["--no-shared-memory", "--no-private-memory", "--no-constant-memory"], UNOPTIMISED),
    # several points a thread along two loops (4x2, the last of 4 missing for odd threads): register
    # tiles jammed inside the loops they enclose, tiles whose points all exist apart from the others
    "register-tile": (["--tile-size", "7,8", "--block-size", "2,4"], UNOPTIMISED),
}
# copies between global and shared memory in 16-byte vectors where a tile's rows start aligned: by default
# in the kernels that keep no tile of sums in registers (--explain says "elements at a time (vectors"), in
# every kernel with --vector-copies, in none with --no-vector-copies.  Each option runs on the kernels whose
# code it changes at the sizes of their RUN lines (every other kernel's program is byte for byte the
# default variant's, so its run would check nothing more)
VECTORS_FORCED = ("correlation", "covariance", "gemm", "leading_dimensions", "local_accumulators", "mm2", "mm3",
                  "pointer_aliases", "similarity", "symm", "syr2k", "syrk")
VECTORS_BY_DEFAULT = ("adi", "asserts", "comma_headers", "convergence", "convolution_2d", "data_bounds",
                      "data_bounds_c89", "deriche", "enum_typedef", "extended_types", "fdtd_2d", "gemver",
                      "inspected_extents", "int_stencil", "jacobi_1d", "jacobi_2d", "jagged_rows", "local_accumulators",
                      "loop_headers", "matvec_flat", "pointer_deref", "pointer_swap", "reduction_forms",
                      "reduction_rows", "scalar_webs", "spmv_csr", "strides", "trmm", "types_between_regions",
                      "unsigned_wrap", "value_calls")
# two buffers for the shared tiles of arrays a kernel only reads, each copied in one step of its loops in
# sequence ahead (--double-buffer): the kernels where some tile has them (their --explain says "2
# buffers") at the default sizes, and at the wrap sizes, whose partial tiles run too (DOUBLE_BUFFERED_WRAP:
# more kernels, whose loops in sequence the third tile size tiles)
DOUBLE_BUFFERED = ("adi", "atax", "breaks", "correlation", "covariance", "deriche", "doitgen", "gemm", "gesummv",
                   "goto_exits", "leading_dimensions", "local_accumulators", "memory_calls", "mm2", "mm3",
                   "nested_exits", "pointer_aliases", "reduction_forms", "reduction_data", "reduction_rows",
                   "scalar_webs", "similarity", "symm", "syr2k", "syrk", "trmm")
DOUBLE_BUFFERED_WRAP = ("adi", "asserts", "atax", "banded", "bicg", "breaks", "correlation", "covariance", "deriche",
                        "gemm", "gemver", "gesummv", "goto_exits", "gramschmidt", "jagged_rows", "leading_dimensions",
                        "local_accumulators", "matvec_flat", "memory_calls", "mm2", "mm3", "mvt", "negdiv",
                        "nested_exits", "pointer_aliases", "pointer_deref", "reduction_forms", "reduction_data",
                        "reduction_rows", "scalar_webs", "similarity", "struct_grid", "struct_pointers", "symm",
                        "syr2k", "syrk", "trmm", "types_between_regions", "unsigned_bounds", "value_calls",
                        "vecnorm_float")
# the variants that change the code of some kernels only: their options, those kernels, and the variant
# whose code theirs is elsewhere (the lists: .venv/bin/python tests/changed_by_variants.py opencl)
RESTRICTED = {
    "vector-copies": ((["--vector-copies"], UNOPTIMISED), VECTORS_FORCED, "default"),
    "element-copies": ((["--no-vector-copies"], UNOPTIMISED), VECTORS_BY_DEFAULT, "default"),
    "double-buffer": ((["--double-buffer"], UNOPTIMISED), DOUBLE_BUFFERED, "default"),
    "double-buffer-wrap": ((["--double-buffer", *WRAP_SIZES], UNOPTIMISED), DOUBLE_BUFFERED_WRAP, "wrap"),
}

# variants that share the kernels among them, in turn (harness.variant_cases): the wrap sizes, the
# original order at small tiles and a 1 KiB budget, and every array left in global memory each run on a
# third of the corpus; --double-buffer at the default and at the wrap sizes each on half of its kernels.
# Every kernel still runs with the default and the register-tile sizes.  The suite had come to take 72
# minutes in CI on two cores (4,339 s, 2026-12-02), against a 90-minute limit: on all the corpus, wrap
# took 922 s of test time, original-order 552 s, global-only 580 s, the two double-buffer variants 493 s
# of 10,099 s (pytest --durations=0 at 1d11577, a night the suite took 85 minutes)
ROTATIONS = (("wrap", "original-order", "global-only"), ("double-buffer", "double-buffer-wrap"))


_originals: dict = {}


@pytest.fixture(scope="module", autouse=True)
def need_opencl():
    why = opencl_device()
    if why:
        pytest.skip(why)


@pytest.mark.parametrize("path, variant_options, cflags", variant_cases(VARIANTS, RESTRICTED, ROTATIONS))
def test_kernel_on_opencl(path, variant_options, cflags, tmp_path, tmp_path_factory):
    """``path`` through the opencl target with ``variant_options``, run with each of its configurations
    against the original program."""
    configs = run_configs(path)
    regions = scan(path.read_text(), str(path))
    for index, defines in enumerate(dict.fromkeys(c.defines for c in configs)):
        outdir = tmp_path / f"d{index}"
        # PoCL contracts a*b+c into fma by default and gcc -O2 does not: keep the arithmetic the same
        options = ["--target", "opencl", "--no-fp-contract", *variant_options]
        status, messages = polypragma(path, outdir, options, defines)
        assert status == 0, messages
        generated = generated_path(path, outdir)
        if path.stem in LEFT_AS_WRITTEN:
            assert LEFT_AS_WRITTEN[path.stem] in messages, messages
        else:
            assert "warning" not in messages and "error" not in messages, messages
            assert generated.read_text().count("/* polypragma: region ") == len(regions)
        exe = outdir / "gen"
        compile_c(generated, exe, defines, cflags, libs=["-lOpenCL"])
        key = (path, defines)
        if key not in _originals:
            _originals[key] = tmp_path_factory.mktemp("orig") / path.stem
            compile_c(path, _originals[key], defines)
        for config in (c for c in configs if c.defines == defines):
            expected = run(_originals[key], config.args)
            got = run(exe, config.args, env=opencl_run_env(cflags))
            assert got.returncode == 0, got.stderr
            difference = outputs_match(expected.stdout, got.stdout, kernel_tolerance(path.read_text()),
                                       kernel_absolute_tolerance(path.read_text()))
            assert difference is None, f"arguments {config.args}: {difference}"


def test_build_options_from_the_environment(tmp_path):
    """POLYPRAGMA_OPENCL_OPTIONS goes to the OpenCL compiler after polypragma's own options; a build that
    fails on it is reported with the options, and falls back to the original loops unless
    POLYPRAGMA_DEVICE=gpu."""
    path = next(p for p in kernel_paths() if p.stem == "gemm")
    args = run_configs(path)[1].args
    status, messages = polypragma(path, tmp_path / "out", ["--target", "opencl", "--no-fp-contract"])
    assert status == 0, messages
    compile_c(path, tmp_path / "orig")
    compile_c(generated_path(path, tmp_path / "out"), tmp_path / "gen", libs=["-lOpenCL"])
    expected = run(tmp_path / "orig", args).stdout

    unoptimised = run(tmp_path / "gen", args, env={"POLYPRAGMA_DEVICE": "gpu",
                                                   "POLYPRAGMA_OPENCL_OPTIONS": "-cl-opt-disable"})
    assert unoptimised.returncode == 0, unoptimised.stderr
    assert outputs_match(expected, unoptimised.stdout, 1e-9) is None

    bad = {"POLYPRAGMA_OPENCL_OPTIONS": "-no-such-option"}
    required = run(tmp_path / "gen", args, env={"POLYPRAGMA_DEVICE": "gpu", **bad})
    assert required.returncode != 0
    assert "building the OpenCL program with options '-cl-fp32-correctly-rounded-divide-sqrt -no-such-option' " \
           "failed" in required.stderr, required.stderr
    assert "clBuildProgram failed with OpenCL error" in required.stderr and "gemm.c:" in required.stderr
    fallback = run(tmp_path / "gen", args, env={"POLYPRAGMA_DEVICE": "auto", **bad})
    assert fallback.returncode == 0 and "clBuildProgram failed" in fallback.stderr, fallback.stderr
    assert fallback.stdout == expected


@pytest.mark.parametrize("defines", [(), ("-DNDEBUG",)], ids=["checked", "ndebug"])
def test_failed_assert_stops_as_the_original(defines, tmp_path):
    """An assert that fails in a kernel sets its flag; the host, before the copy-out, runs the original
    loops, whose assert stops the program with C's message (POLYPRAGMA_DEVICE=gpu included: an assert is
    not a failure of the device).  Under NDEBUG neither checks anything."""
    path = next(p for p in kernel_paths() if p.stem == "asserts")
    status, messages = polypragma(path, tmp_path / "out", ["--target", "opencl", "--no-fp-contract"], defines)
    assert status == 0 and "warning" not in messages, messages
    compile_c(path, tmp_path / "orig", defines)
    compile_c(generated_path(path, tmp_path / "out"), tmp_path / "gen", defines, libs=["-lOpenCL"])
    for args in (("5", "12", "9", "0.5"), ("6", "7", "30", "1.0")):  # A[i][j] < limit fails, then only the sums'
        expected = run(tmp_path / "orig", args)
        got = run(tmp_path / "gen", args, env={"POLYPRAGMA_DEVICE": "gpu"})
        if defines:
            assert expected.returncode == got.returncode == 0, got.stderr
            assert outputs_match(expected.stdout, got.stdout, 1e-9) is None
            continue
        assert expected.returncode == got.returncode != 0, (expected, got)
        said = expected.stderr.strip().split(": ", 1)[1]  # (after the program's name)
        assert "Assertion" in said and said in got.stderr, got.stderr
        assert "an assert failed in a kernel; running the original loops" in got.stderr, got.stderr
