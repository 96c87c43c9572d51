"""Every corpus kernel through the cuda target: the .cu compiles with nvcc for sm_90 without
warnings, the program links with cudart, and here (no GPU) it takes the fallback and prints
exactly what the original prints; POLYPRAGMA_DEVICE=gpu makes it fail loudly instead."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from harness import CC, CFLAGS, KERNELS, LEFT_AS_WRITTEN, compile_c, kernel_paths, polypragma, run, run_configs
from polypragma.scan import scan
from test_memory import typed_product

NVCC = os.environ.get("NVCC", "nvcc")
pytestmark = pytest.mark.skipif(shutil.which(NVCC) is None, reason="nvcc is needed for the cuda target's tests")

def build(path, outdir, defines=(), options=(), nvcc_flags=()):
    status, messages = polypragma(path, outdir, ["--target", "cuda", *options], defines)
    assert status == 0, messages
    stem = path.name[:-2]
    unit = outdir / f"{stem}.polypragma.cu"
    assert unit.exists()
    compiled = subprocess.run([NVCC, "-arch=sm_90", "-O2", *nvcc_flags, f"-I{KERNELS}", *defines, "-c", str(unit), "-o",
                               str(outdir / "unit.o")], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    assert "warning" not in compiled.stderr.lower(), compiled.stderr
    c_object = outdir / "main.o"
    result = subprocess.run([CC, *CFLAGS, "-Wall", f"-I{KERNELS}", *defines, "-c",
                             str(outdir / f"{stem}.polypragma.c"), "-o", str(c_object)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    exe = outdir / "prog"
    linked = subprocess.run([NVCC, "-arch=sm_90", str(c_object), str(outdir / "unit.o"), "-o", str(exe), "-lm"],
                            capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr
    return exe, messages


@pytest.mark.parametrize("path", kernel_paths(), ids=lambda p: p.stem)
def test_kernel_compiles_and_falls_back(path, tmp_path):
    configs = run_configs(path)
    defines = configs[0].defines
    exe, messages = build(path, tmp_path, defines)
    regions = scan(path.read_text(), str(path))
    text = (tmp_path / f"{path.name[:-2]}.polypragma.c").read_text()
    if path.stem in LEFT_AS_WRITTEN:
        assert LEFT_AS_WRITTEN[path.stem] in messages
    else:
        assert "warning" not in messages, messages
        assert text.count("/* polypragma: region ") == len(regions)
    original = tmp_path / "original"
    compile_c(path, original, defines)
    for config in (c for c in configs if c.defines == defines):
        assert run(exe, config.args).stdout == run(original, config.args).stdout


def test_device_required_fails_loudly(tmp_path):
    exe, _ = build(KERNELS / "gemm.c", tmp_path)
    result = run(exe, ["1", "5", "6", "7"], env={"POLYPRAGMA_DEVICE": "gpu"})
    if result.returncode == 0:
        pytest.skip("a CUDA device is present: the program ran on it")
    assert result.returncode == 1
    assert "region 0" in result.stderr and "POLYPRAGMA_DEVICE=gpu" in result.stderr
    assert result.stdout == ""
    if not any(os.path.exists(p) for p in ("/dev/nvidia0", "/dev/nvidiactl")):
        # the runtime's own "CUDA driver version is insufficient for CUDA runtime version" misleads here
        assert "no NVIDIA driver found" in result.stderr or "no NVIDIA GPU found" in result.stderr, result.stderr
        assert "insufficient" not in result.stderr


BOOLEANS = r"""
#include <stdio.h>
#include <stdlib.h>

static void flags(int n, const int a[n], _Bool f[n], _Bool g[n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    f[i] = a[i] > 3;
    g[i] = f[i] && a[i] % 2 == 0;
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 40;
  int a[n];
  _Bool f[n], g[n];
  for (int i = 0; i < n; i++)
    a[i] = (i * 7) % 11;
  flags(n, a, f, g);
  for (int i = 0; i < n; i++)
    printf("%d %d\n", f[i], g[i]);
  return 0;
}
"""


def test_boolean_arrays_reach_the_kernels(tmp_path):
    # C's _Bool in a kernel's parameters: the .cu file is C++, which spells it bool (nvcc rejected _Bool)
    source = tmp_path / "booleans.c"
    source.write_text(BOOLEANS)
    exe, messages = build(source, tmp_path / "out")
    assert "warning" not in messages, messages
    compile_c(source, tmp_path / "original")
    for n in ("1", "40"):
        assert run(exe, [n]).stdout == run(tmp_path / "original", [n]).stdout


@pytest.mark.parametrize("ctype, vector", [("double", "double2"), ("float", "float2"), ("int", "int2")])
def test_vector_copies_compile(tmp_path, ctype, vector):
    # --vector-copies for cuda: a helper copies two elements where the global address is aligned when it runs
    # (element by element where not), into a shared tile declared aligned; nvcc compiles it for sm_90
    source = tmp_path / f"product_{ctype}.c"
    source.write_text(typed_product(ctype))
    build(source, tmp_path / "out", options=["--vector-copies"])
    unit = (tmp_path / "out" / f"product_{ctype}.polypragma.cu").read_text()
    assert f"polypragma_copy_in_{vector}(&shared_B[" in unit
    assert f"__shared__ __align__(16) {ctype} shared_B[" in unit
    assert f"#define polypragma_copy_in_{vector}(d, s)" in unit



@pytest.mark.parametrize("name, options, vectors", [
    ("gemm", (), False), ("jacobi_2d", (), True), ("fdtd_2d", (), True), ("bicg", ("--fusion", "min"), True),
    ("jacobi_2d", ("--no-vector-copies",), False), ("gemm", ("--double-buffer",), False),
    ("mm2", ("--double-buffer",), False), ("gemm", ("--double-buffer", "--vector-copies"), True),
    ("gemm", ("--double-buffer", "--no-unroll-copies"), False)])
def test_async_copies_compile_and_wait_at_each_barrier(tmp_path, name, options, vectors):
    # --async-copies: each copy of an element into a shared tile is a cp.async (sm_90's PTX has them), and
    # every barrier of such a kernel first waits for the thread's copies; the copies of registers stay
    # plain.  The program still prints what the original prints (here it takes the fallback), and a
    # user's -DN=60 (jacobi_2d) reaches no header's template.  With --double-buffer, the copies of the
    # next tile are in flight while this one is computed, and the barrier at the end of the step waits.
    # Where the copies move vectors (by default in the kernels keeping no sums in registers, everywhere with
    # --vector-copies), a vector's copy is one cp.async of 16 bytes (.cg) where the global address is aligned;
    # with --no-unroll-copies, the cp.async of every tile are in its loops
    path = KERNELS / f"{name}.c"
    config = run_configs(path)[-1]
    exe, messages = build(path, tmp_path, config.defines, options=["--async-copies", *options])
    assert "warning" not in messages, messages
    unit = (tmp_path / f"{name}.polypragma.cu").read_text()
    lines = [line.strip() for line in unit.splitlines()]
    copies = [line for line in lines if line.startswith("polypragma_copy_async")]
    assert copies and all(re.match(r"polypragma_copy_async(8|_double2)\(&shared_\w+(\[[^]]+\])+, &", line)
                          for line in copies), copies
    assert any("_double2(" in line for line in copies) == vectors
    for k, line in enumerate(lines):
        if line == "__syncthreads();":
            assert lines[k - 1] == "polypragma_copies_wait();", lines[k - 3:k + 1]
    for arch in ("sm_90", "sm_75"):  # (before sm_80: plain copies)
        ptx = tmp_path / f"{name}_{arch}.ptx"
        subprocess.run([NVCC, f"-arch={arch}", "-O2", f"-I{KERNELS}", *config.defines, "-ptx",
                        str(tmp_path / f"{name}.polypragma.cu"), "-o", str(ptx)], check=True, capture_output=True)
        assert ("cp.async.ca.shared.global" in ptx.read_text()) == (arch == "sm_90")
        assert ("cp.async.cg.shared.global" in ptx.read_text()) == (arch == "sm_90" and vectors)
    original = tmp_path / "original"
    compile_c(path, original, config.defines)
    assert run(exe, config.args).stdout == run(original, config.args).stdout


def test_unroll_steps_reach_nvcc(tmp_path):
    # gemm's loop over k within a tile step, around the register tile's loops over slots: nvcc unrolls it by
    # itself (no pragma: 16 FMAs a step in the PTX, nvcc 13.0) and by two under --unroll-steps 2 (the body
    # twice, the odd step apart: 48)
    fmas = []
    for name, options in (("plain", ()), ("steps", ("--unroll-steps", "2"))):
        outdir = tmp_path / name
        status, messages = polypragma(KERNELS / "gemm.c", outdir, ["--target", "cuda", *options])
        assert status == 0 and "warning" not in messages, messages
        ptx = outdir / "gemm.ptx"
        subprocess.run([NVCC, "-arch=sm_90", "-O2", f"-I{KERNELS}", "-ptx", str(outdir / "gemm.polypragma.cu"),
                        "-o", str(ptx)], check=True, capture_output=True)
        fmas.append(ptx.read_text().count("fma.rn.f64"))
    assert fmas[1] >= 2 * fmas[0] > 0, fmas


@pytest.mark.parametrize("options", [(), ("--double-buffer", "--async-copies")], ids=["one-buffer", "two-buffers"])
def test_shared_memory_past_48k_is_dynamic(tmp_path, options):
    # --max-shared-memory above the 48 KiB a kernel declares statically: the tiles (A's 128x33 and B's
    # 32x64, 50176 bytes; 100352 in two buffers) are in dynamic shared memory, each a pointer to its rows
    # (to its buffers) at its offset, and the host opts in before the launch, which passes the bytes;
    # ptxas took the static declarations for too much shared data.  Here the program falls back
    path = KERNELS / "gemm.c"
    exe, messages = build(path, tmp_path, options=["--max-shared-memory", "100k", "--tile-size", "128,64",
                                                   "--block-size", "16,16", "--explain", *options])
    assert "warning" not in messages, messages
    assert re.search(r"its shared tiles take \d+ bytes, past the 48 KiB a CUDA kernel declares statically: they "
                     r"are in its dynamic shared memory", messages), messages
    unit = (tmp_path / "gemm.polypragma.cu").read_text()
    assert "__shared__ double shared_" not in unit
    rows = "[128][33]" if options else "[33]"
    assert "extern __shared__ __align__(16) unsigned char polypragma_dynamic_shared[];" in unit
    assert f"double (*shared_A){rows} = (double (*){rows})(polypragma_dynamic_shared + 0);" in unit, unit
    launch = re.search(r"<<<grid, block, (\d+)>>>", unit)
    assert launch and int(launch.group(1)) > 48 * 1024, launch
    assert (f"cudaFuncSetAttribute(polypragma_gemm_region0_kernel0, cudaFuncAttributeMaxDynamicSharedMemorySize, "
            f"{launch.group(1)})") in unit
    original = tmp_path / "original"
    compile_c(path, original)
    for config in run_configs(path):
        assert run(exe, config.args).stdout == run(original, config.args).stdout
