"""The shape of the GPU code: kernels per region, host loops, one-thread kernels, sizes."""

from __future__ import annotations

import re

import pytest

from harness import (KERNELS, compile_c, generated_path, opencl_device, outputs_match, polypragma, polypragma_process,
                     run)


def cuda_unit(path, outdir, *options):
    status, messages = polypragma(path, outdir, ["--target", "cuda", *options])
    assert status == 0, messages
    return (outdir / (path.name[:-2] + ".polypragma.cu")).read_text(), messages


def host_function(unit: str, region: int) -> str:
    start = unit.index("int polypragma_")
    start = unit.index(f"_region{region}(", start)
    return unit[start: unit.index("\n}\n", start)]


def test_a_region_of_four_nests_gives_a_kernel_per_nest_without_fusion(tmp_path):
    # gemver: A += u1 v1^T + u2 v2^T; x += beta A^T y; x += z; w += alpha A x
    unit, _ = cuda_unit(KERNELS / "gemver.c", tmp_path, "--fusion=min")
    kernels = re.findall(r"__global__ void (\w+)\(", unit)
    assert kernels == [f"polypragma_gemver_region0_kernel{k}" for k in range(4)]
    # isl fuses the x updates; the GPU stage moves the sum over j into the kernel of A's update, which uses A
    # alike (gpu/fuse.py), so that it spreads over threads (gpu/spread.py) and A is read once for both,
    # while x[i] += z[i] runs after it, one thread an element
    fused, messages = cuda_unit(KERNELS / "gemver.c", tmp_path / "fused", "--explain")
    assert "the statements of line(s) 18, 22 use A alike" in messages, messages
    assert "kernel 0 (statements at line(s) 18, 22)" in messages and "kernel 1 (statements at line(s) 25)" \
        in messages, messages
    assert len(re.findall(r"__global__ void", fused)) == 3
    # without reductions nothing is split: the fused nest is one kernel
    fused, _ = cuda_unit(KERNELS / "gemver.c", tmp_path / "ordered", "--no-reductions")
    assert len(re.findall(r"__global__ void", fused)) == 3


def test_time_loop_stays_on_the_host_around_two_launches(tmp_path):
    unit, _ = cuda_unit(KERNELS / "jacobi_2d.c", tmp_path)
    host = host_function(unit, 0)
    loop = host.index("for (")
    launches = [m.start() for m in re.finditer(r"<<<grid, block>>>", host)]
    assert len(launches) == 2 and all(at > loop for at in launches)
    # the time loop's iterator reaches the kernels as an argument (named host_h0: OpenCL takes its address)
    assert re.search(r"const int host_h0 = c0;(?s:.)*?kernel0<<<grid, block>>>\([^\n]*\bhost_h0\)", host)


def test_sequential_code_runs_as_one_thread_kernel(tmp_path):
    source = tmp_path / "chain.c"
    source.write_text(
        "#include <stdio.h>\n"
        "static void chain(int n, double x[n]) {\n#pragma scop\n"
        "  for (int i = 1; i < n; i++)\n    x[i] = x[i - 1] * 0.5 + x[i];\n#pragma endscop\n}\n"
        "int main(void) { double x[50]; for (int i = 0; i < 50; i++) x[i] = i;\n"
        "  chain(50, x); for (int i = 0; i < 50; i++) printf(\"%.17g\\n\", x[i]); return 0; }\n")
    unit, messages = cuda_unit(source, tmp_path / "cuda", "--explain")
    assert "runs on one thread" in messages
    assert "dim3 grid(1, 1, 1), block(1, 1, 1)" in unit
    if opencl_device() is None:
        status, _ = polypragma(source, tmp_path / "cl", ["--target", "opencl"])
        assert status == 0
        compile_c(generated_path(source, tmp_path / "cl"), tmp_path / "cl" / "prog", libs=["-lOpenCL"])
        compile_c(source, tmp_path / "orig")
        got = run(tmp_path / "cl" / "prog", env={"POLYPRAGMA_DEVICE": "gpu"})
        assert got.returncode == 0, got.stderr
        assert outputs_match(run(tmp_path / "orig").stdout, got.stdout) is None


def test_sizes_per_kernel_and_dump(tmp_path):
    unit, messages = cuda_unit(KERNELS / "jacobi_2d.c", tmp_path, "--dump-sizes", "--sizes",
                               "{ kernel[0] -> tile[16,64]; kernel[i] -> block[4,16] : i != 0 }")
    assert "kernel[0] -> tile[16,64]" in messages and "kernel[1] -> block[4,16]" in messages
    assert "kernel[1] -> tile[32,32]" in messages  # the default where --sizes says nothing
    host = host_function(unit, 0)
    assert "block(16, 4, 1)" in host  # kernel 1: x is the innermost entry


def _dumped(messages: str) -> str:
    """The map --dump-sizes printed for the file's only region."""
    (line,) = [m for m in messages.splitlines() if m.startswith("region 0 ")]
    return line[line.index("{"):]


@pytest.mark.parametrize("name", ["column_scale", "gemm", "mvt"])
def test_dumped_sizes_given_back_map_every_kernel_as_before(name, tmp_path):
    # the cost model maps column_scale's outer loop on x: the dump says so (order[1,0]), and the same
    # map given back to --sizes gives the same file, where the sizes alone map the band in its order;
    # mvt's row-wise kernel without reductions (its j not spread over threads) tiles j by 16
    # (sequential[16]), which the sizes alone would tile by 32; with them, its column-wise kernel spreads
    # j over threads.y, i on x (order[1,0])
    path = KERNELS / f"{name}.c"
    extra = ("--no-reductions",) if name == "mvt" else ()
    first, messages = cuda_unit(path, tmp_path / "model", "--dump-sizes", *extra)
    sizes = _dumped(messages)
    assert ("kernel[0] -> order[1,0]" in sizes) == (name == "column_scale")
    assert ("kernel[0] -> sequential[16]" in sizes) == (name == "mvt")
    again, messages = cuda_unit(path, tmp_path / "again", "--dump-sizes", "--sizes", sizes, *extra)
    assert again == first and _dumped(messages) == sizes
    for kind in ("order", "sequential"):
        if f"kernel[0] -> {kind}[" in sizes:
            without = re.sub(rf"; kernel\[0\] -> {kind}\[[0-9,]*\]", "", sizes)
            assert cuda_unit(path, tmp_path / "without", "--sizes", without, *extra)[0] != first
    if name == "mvt":
        # each product in a kernel of its own (--fusion min)
        apart = ("--fusion", "min")
        first, messages = cuda_unit(path, tmp_path / "spread", "--dump-sizes", *apart)
        sizes = _dumped(messages)
        assert "kernel[0] -> tile[16,1024]" in sizes and "kernel[1] -> order[1,0]" in sizes, sizes
        again, messages = cuda_unit(path, tmp_path / "spread_again", "--dump-sizes", "--sizes", sizes, *apart)
        assert again == first and _dumped(messages) == sizes
        # sizes given for the parallel loop alone keep the kernel mapping it alone
        unit, messages = cuda_unit(path, tmp_path / "one", "--dump-sizes", "--sizes", "{ kernel[0] -> tile[128] }",
                                   *apart)
        assert "kernel[0] -> tile[128]" in _dumped(messages) and "kernel[1] -> tile[256,32]" in _dumped(messages)
        # both in one kernel (gpu/fuse.py): its sizes given back give it back, fused
        first, messages = cuda_unit(path, tmp_path / "fused", "--dump-sizes")
        sizes = _dumped(messages)
        assert sizes == "{ kernel[0] -> tile[512,32]; kernel[0] -> block[16,32]; kernel[0] -> grid[65535,2147483647] }"
        again, messages = cuda_unit(path, tmp_path / "fused_again", "--dump-sizes", "--sizes", sizes)
        assert again == first and _dumped(messages) == sizes


def test_sequential_tiles_the_user_sets_are_kept_and_checked(tmp_path):
    # gemm's k tiled by 5: the last tile of k partial at every size below; the results are the original
    # program's.  Alone, they leave the other sizes to the cost model, which estimates them with k by 5
    path = KERNELS / "gemm.c"
    status, messages = polypragma(path, tmp_path / "cl", ["--target", "opencl", "--no-fp-contract", "--explain",
                                                          "--sizes", "{ kernel[0] -> sequential[5] }"])
    assert status == 0, messages
    assert "further loop(s) of its permutable band tiled by [5]" in messages, messages
    assert re.search(r"chosen by the cost model of \d+ candidates: .*loops in sequence tiled by \[5\]", messages)
    assert "tiled by [32]" not in messages and "tiled by [16]" not in messages
    status, messages = polypragma_process(path, tmp_path / "bad", ["--target", "cuda", "--sizes",
                                                                   "{ kernel[0] -> sequential[0] }"])
    assert status != 0 and "sequential sizes must be positive, got [0]" in messages, messages
    if opencl_device() is None:
        compile_c(generated_path(path, tmp_path / "cl"), tmp_path / "cl" / "prog", libs=["-lOpenCL"])
        compile_c(path, tmp_path / "orig")
        for args in (["1", "1", "1", "1"], ["7", "13", "19", "7"], ["42", "48", "52", "56"]):
            got = run(tmp_path / "cl" / "prog", args, env={"POLYPRAGMA_DEVICE": "gpu"})
            assert got.returncode == 0, got.stderr
            assert outputs_match(run(tmp_path / "orig", args).stdout, got.stdout) is None


def test_an_order_the_user_sets_is_kept_and_checked(tmp_path):
    # gemm's i on x (its rows 64 elements apart: not what the model takes), with a 4x2 register tile
    # whose last points are missing: the results are the original program's
    path = KERNELS / "gemm.c"
    sizes = "{ kernel[0] -> tile[7,8]; kernel[0] -> block[2,4]; kernel[0] -> order[1,0] }"
    status, messages = polypragma(path, tmp_path / "cl", ["--target", "opencl", "--no-fp-contract", "--dump-sizes",
                                                          "--sizes", sizes])
    assert status == 0, messages
    assert "kernel[0] -> order[1,0]" in _dumped(messages)
    status, messages = polypragma(path, tmp_path / "model", ["--target", "opencl", "--sizes",
                                                             "{ kernel[0] -> order[1,0] }", "--explain"])
    assert status == 0 and "loop 1 -> blocks.x and threads.x" in messages, messages
    for bad, why in [("order[1,1]", "order [1, 1] of kernel 0 is not an order of the loops 0..1"),
                     ("order[2,0,1]", "order [2, 0, 1] of kernel 0 names 3 loop(s); the kernel maps 2")]:
        status, messages = polypragma_process(path, tmp_path / "bad",
                                              ["--target", "cuda", "--sizes", f"{{ kernel[0] -> {bad} }}"])
        assert status != 0 and why in messages, messages
    if opencl_device() is None:
        generated = generated_path(path, tmp_path / "cl")
        compile_c(generated, tmp_path / "cl" / "prog", libs=["-lOpenCL"])
        compile_c(path, tmp_path / "orig")
        for args in (["1", "1", "1", "1"], ["7", "13", "19", "7"], ["42", "48", "52", "56"]):
            expected = run(tmp_path / "orig", args)
            got = run(tmp_path / "cl" / "prog", args, env={"POLYPRAGMA_DEVICE": "gpu"})
            assert got.returncode == 0, got.stderr
            assert outputs_match(expected.stdout, got.stdout) is None


def test_region_pragma_sets_its_sizes(tmp_path):
    source = tmp_path / "scale.c"
    text = (KERNELS / "gemm.c").read_text().replace("#pragma scop", "#pragma scop\n#pragma polypragma --tile-size 8,8 --block-size 2,8", 1)
    source.write_text(text)
    status, messages = polypragma(source, tmp_path, ["--target", "cuda", "--dump-sizes"], include=(KERNELS,))
    assert status == 0, messages
    assert "tile[8,8]" in messages and "block[2,8]" in messages


def test_explain_says_why_arrays_move(tmp_path):
    _, messages = cuda_unit(KERNELS / "gemm.c", tmp_path, "--explain")
    assert re.search(r"A: .*copied in \(its values on entry may be read\)", messages)
    assert re.search(r"C: .*copied out \(written in the region\)", messages)
    assert "A: " in messages and "copied out" not in messages.split("A: ")[1].splitlines()[0]


def test_a_dependence_between_threads_is_caught():
    """The mapping relies on mapped loops carrying no dependence; the check that guards it can fail."""
    import islpy as isl
    import pytest

    from polypragma.gpu.mapping import CrossThreadDependence, map_to_gpu
    from polypragma.gpu.names import IteratorNames
    from polypragma.gpu.sizes import SizeOptions

    ctx = isl.Context()
    domain = isl.UnionSet("[n] -> { S[i] : 0 <= i < n }", context=ctx)
    schedule = isl.Schedule.from_domain(domain).insert_partial_schedule(
        isl.MultiUnionPwAff("[n] -> [{ S[i] -> [(i)] }]", context=ctx))
    band = schedule.get_root().child(0).band_member_set_coincident(0, True)  # wrongly claimed parallel
    context = isl.Set("[n] -> { : n >= 0 }", context=ctx)
    names = IteratorNames(host="c", host_dims="h", block="b", thread="t", kernel="k", tile="g")
    chain = isl.UnionMap("[n] -> { S[i] -> S[i + 1] : 0 <= i < n - 1 }", context=ctx)
    with pytest.raises(CrossThreadDependence):
        map_to_gpu(band.get_schedule(), context, SizeOptions(), names, chain)
    map_to_gpu(band.get_schedule(), context, SizeOptions(), names, chain.intersect(isl.UnionMap("{ S[i] -> S[i] }", context=ctx)))


# per target: (file, its check macro, a buffer's declaration, its release, the copy-out call)
SKELETONS = {
    "cuda": (".polypragma.cu", "POLYPRAGMA_CUDA_CHECK(", "polypragma_binding bind_{} = {{0}};",
             "polypragma_unbind(&bind_{0}, {0}, bytes_{0}, ", "polypragma_finish(&bind_"),
    "opencl": (".polypragma.c", "POLYPRAGMA_CL_CHECK_gemm(", "polypragma_binding_gemm bind_{} = {{0}};",
               "polypragma_unbind_gemm(&bind_{0}, {0}, bytes_{0}, ", "polypragma_finish_gemm(&bind_"),
}


@pytest.mark.parametrize("target", sorted(SKELETONS))
def test_a_device_failure_releases_what_the_region_allocated(tmp_path, target):
    # one host skeleton for both targets (codegen/host.py): every check jumps to one release section
    # that gives back each array bound so far (a pool buffer to the pool; on a fallback, a data scope's
    # copy to the host); the phase decides what the failure means (fall back before the copy-out, stop
    # during it, done after it)
    suffix, check, declaration, released, copy_out_call = SKELETONS[target]
    status, messages = polypragma(KERNELS / "gemm.c", tmp_path, ["--target", target])
    assert status == 0, messages
    host = host_function((tmp_path / ("gemm" + suffix)).read_text(), 0)
    first_check = min(host.index(check), host.index("POLYPRAGMA_DATA_STEP("))
    release = host.index("polypragma_release:")
    # C++ forbids jumping over a declaration: all of them come before the first check
    for name in "ABC":
        assert host.index(declaration.format(name)) < first_check
        assert released.format(name) + "1, polypragma_status != 0, polypragma_launched" in host[release:] or \
            released.format(name) + "0, polypragma_status != 0, polypragma_launched" in host[release:]
    copy_out = host.index(copy_out_call)
    assert host.index("POLYPRAGMA_COPYING_OUT") < copy_out < host.index("POLYPRAGMA_DONE") < release
    assert host.rstrip().endswith("return POLYPRAGMA_STATUS(polypragma_status);")


WRITTEN_EACH_STEP = """\
#include <stdio.h>
#include <stdlib.h>

static void steps_of(int steps, int n, double *c, double *d)
{
#pragma scop
    for (int t = 0; t < steps; t++)
        for (int i = 0; i < n; i++)
            d[i] = 0.5 * c[n - 1 - i] + t;
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = 30, steps = atoi(argv[1]);
    double *c = malloc(n * sizeof(double)), *d = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        c[i] = i;
        d[i] = 2 * i + 1;
    }
    steps_of(steps, n, c, d);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += (i + 1) * d[i];
    printf("%.17g\\n", s);
    return 0;
}
"""


def test_an_array_written_in_every_step_copies_nothing_out_for_no_steps(tmp_path):
    """``d`` is written whole in every step, so it is only copied out; but not at all when there is no step:
    its extent, found from the region's footprint, is 0 there (isl's maximum is undefined where the region
    touches nothing, and the copy-out of ``n`` elements stored what the device buffer held: the generated
    program printed 6.8e+248 for 18445)."""
    if opencl_device():
        pytest.skip(opencl_device())
    source = tmp_path / "steps.c"
    source.write_text(WRITTEN_EACH_STEP)
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl", "--no-fp-contract", "--explain"])
    assert status == 0, messages
    assert "d: (size_t)((((steps >= 1) && (n >= 1)) ? n : 0)) element(s) of double; copied out (written" in messages
    compile_c(source, tmp_path / "original")
    compile_c(generated_path(source, tmp_path / "out"), tmp_path / "generated", libs=["-lOpenCL"])
    for steps in ("0", "1", "3"):
        assert run(tmp_path / "generated", [steps]).stdout == run(tmp_path / "original", [steps]).stdout, steps
