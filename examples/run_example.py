"""Compile examples/gemm.c with polypragma on the best backend for this machine, run it,
and compare its output with the original program's.

Backends, best first: CUDA (nvcc and a CUDA device), OpenCL on a GPU, C with
OpenMP, sequential C.  A GPU backend counts as present when its program runs
with POLYPRAGMA_DEVICE=gpu, which makes the generated code fail instead of
falling back to the original loops.  OpenCL on a CPU device (PoCL) is skipped:
there, compiling the kernel when the program starts costs seconds, and OpenMP
C is the better path; --backend opencl runs it anyway.  The times are given
apart: polypragma, the C (and CUDA) compiler, and the run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CC = os.environ.get("CC", "gcc")
NVCC = os.environ.get("NVCC", "nvcc")


BACKENDS = ("cuda", "opencl", "openmp", "c")
NAMES = {"cuda": "CUDA", "opencl": "OpenCL", "openmp": "C with OpenMP", "c": "sequential C"}

# OpenCL devices by type: a GPU first, then any (the generated host code takes a GPU when there is one)
OPENCL_PROBE = r"""
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
int main(void)
{
  cl_platform_id platforms[16];
  cl_uint n = 0, gpus = 0, all = 0;
  if (clGetPlatformIDs(16, platforms, &n) != CL_SUCCESS)
    n = 0;
  for (cl_uint k = 0; k < n && k < 16; k++) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platforms[k], CL_DEVICE_TYPE_GPU, 0, NULL, &count) == CL_SUCCESS)
      gpus += count;
    count = 0;
    if (clGetDeviceIDs(platforms[k], CL_DEVICE_TYPE_ALL, 0, NULL, &count) == CL_SUCCESS)
      all += count;
  }
  printf("%u %u\n", gpus, all);
  return 0;
}
"""


class Timer:
    """Seconds spent in polypragma and in the compilers, kept apart."""

    def __init__(self) -> None:
        self.polypragma = 0.0
        self.compilers = 0.0


def polypragma(source: Path, workdir: Path, timer: Timer, *options: str) -> None:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "polypragma", str(source), "-o", str(workdir), *options], check=True)
    timer.polypragma += time.perf_counter() - started


def quiet(command: list[str], timer: Timer | None = None) -> bool:
    started = time.perf_counter()
    ok = subprocess.run(command, capture_output=True).returncode == 0
    if timer is not None:
        timer.compilers += time.perf_counter() - started
    return ok


def opencl_devices(workdir: Path) -> tuple[int, int] | None:
    """(GPU devices, all devices) of the OpenCL platforms here; None without OpenCL headers or library."""
    probe = workdir / "opencl_probe.c"
    probe.write_text(OPENCL_PROBE)
    exe = workdir / "opencl_probe"
    if not quiet([CC, str(probe), "-o", str(exe), "-lOpenCL"]):
        return None
    result = subprocess.run([str(exe)], capture_output=True, text=True)
    try:
        gpus, devices = (int(x) for x in result.stdout.split())
    except ValueError:
        return None
    return gpus, devices


def build_cuda(source: Path, workdir: Path, timer: Timer) -> Path | None:
    if shutil.which(NVCC) is None:
        return None
    out = workdir / "cuda"
    polypragma(source, out, timer, "--target", "cuda", "--no-fp-contract")
    exe = out / "gemm"
    ok = (quiet([NVCC, "-O2", "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90",
                 "-fmad=false", "-c",
                 str(out / "gemm.polypragma.cu"), "-o", str(out / "unit.o")], timer)
          and quiet([CC, "-O2", "-std=gnu11", "-c", str(out / "gemm.polypragma.c"), "-o", str(out / "main.o")], timer)
          and quiet([NVCC, str(out / "main.o"), str(out / "unit.o"), "-o", str(exe), "-lm"], timer))
    return exe if ok else None


def build_opencl(source: Path, workdir: Path, timer: Timer) -> Path | None:
    out = workdir / "opencl"
    polypragma(source, out, timer, "--target", "opencl", "--no-fp-contract")
    exe = out / "gemm"
    return exe if quiet([CC, "-O2", "-std=gnu11", str(out / "gemm.polypragma.c"), "-o", str(exe), "-lOpenCL",
                         "-lm"], timer) else None


def build_c(source: Path, workdir: Path, timer: Timer, openmp: bool) -> Path | None:
    out = workdir / ("openmp" if openmp else "c")
    polypragma(source, out, timer, "--target", "c", *(["--openmp"] if openmp else []))
    exe = out / "gemm"
    flags = ["-fopenmp"] if openmp else []
    return exe if quiet([CC, "-O2", "-std=gnu11", *flags, str(out / "gemm.polypragma.c"), "-o", str(exe),
                         "-lm"], timer) else None


def run(exe: Path, n: str, device: str) -> tuple[subprocess.CompletedProcess, float]:
    started = time.perf_counter()
    result = subprocess.run([str(exe), n], capture_output=True, text=True,
                            env=dict(os.environ, POLYPRAGMA_DEVICE=device))
    return result, time.perf_counter() - started


def same_numbers(a: str, b: str, rtol: float = 1e-9) -> bool:
    xs = [float(x) for x in re.findall(r"[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?", a)]
    ys = [float(y) for y in re.findall(r"[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?", b)]
    return len(xs) == len(ys) and all(abs(x - y) <= rtol * max(abs(x), abs(y), 1e-300) for x, y in zip(xs, ys))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("n", nargs="?", default="400", help="matrix size (default 400)")
    parser.add_argument("--backend", choices=BACKENDS,
                        help="run this backend instead of the best one for the machine")
    parser.add_argument("--keep", metavar="DIR", help="keep the generated files in DIR")
    args = parser.parse_args()
    if shutil.which(CC) is None:
        print(f"no C compiler '{CC}' found; set CC", file=sys.stderr)
        return 1
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="polypragma-example-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        return _example(args, workdir)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


def _example(args: argparse.Namespace, workdir: Path) -> int:
    source = HERE / "gemm.c"
    original = workdir / "original"
    started = time.perf_counter()
    subprocess.run([CC, "-O2", "-std=gnu11", str(source), "-o", str(original), "-lm"], check=True)
    built = time.perf_counter() - started
    expected, t_original = run(original, args.n, "cpu")
    print(f"original program:  {expected.stdout.strip()}  (gcc {built:.2f} s; run {t_original:.3f} s)")
    builders = {"cuda": (build_cuda, "gpu"), "opencl": (build_opencl, "gpu"),
                "openmp": (lambda s, w, t: build_c(s, w, t, True), "cpu"),
                "c": (lambda s, w, t: build_c(s, w, t, False), "cpu")}
    candidates = [args.backend] if args.backend else list(BACKENDS)
    for backend in candidates:
        name = NAMES[backend]
        if backend == "opencl" and not args.backend:
            devices = opencl_devices(workdir)
            if devices is None:
                print(f"{name}: not available here (no OpenCL headers or library)")
                continue
            if devices[0] == 0:
                print(f"{name}: skipped, no OpenCL GPU here ({devices[1]} CPU device(s), such as PoCL, where "
                      "compiling the kernel at start-up costs seconds; --backend opencl runs it)")
                continue
        build, device = builders[backend]
        timer = Timer()
        exe = build(HERE / "gemm.c", workdir, timer)
        if exe is None:
            print(f"{name}: not available here (it does not build)")
            continue
        got, seconds = run(exe, args.n, device)
        if got.returncode != 0:
            reason = got.stderr.strip().splitlines()[-1] if got.stderr.strip() else f"exit status {got.returncode}"
            print(f"{name}: not available here ({reason})")
            continue
        inside = {"cuda": "transfers included", "opencl": "the driver's kernel compilation and transfers included",
                  "openmp": f"{os.cpu_count()} cores", "c": "one core"}[backend]
        print(f"polypragma on {name}: {got.stdout.strip()}  (polypragma {timer.polypragma:.2f} s, compilers "
              f"{timer.compilers:.2f} s; run {seconds:.3f} s, {inside})")
        if same_numbers(got.stdout, expected.stdout):
            print(f"backend: {name}; results match the original program")
            return 0
        print(f"backend: {name}; MISMATCH: the results differ from the original program's", file=sys.stderr)
        return 1
    return 1


if __name__ == "__main__":
    sys.exit(main())
