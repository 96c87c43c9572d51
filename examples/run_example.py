"""Compile examples/gemm.c with polypragma on the best backend present, run it,
and compare its output with the original program's.

Backends, best first: CUDA (nvcc and a CUDA device), OpenCL (an OpenCL
device, e.g. PoCL on the CPU), C with OpenMP, sequential C.  A backend counts
as present when its program runs with POLYPRAGMA_DEVICE=gpu, which makes the
generated code fail instead of falling back to the original loops.
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


def polypragma(source: Path, workdir: Path, *options: str) -> None:
    subprocess.run([sys.executable, "-m", "polypragma", str(source), "-o", str(workdir), *options], check=True)


def quiet(command: list[str]) -> bool:
    return subprocess.run(command, capture_output=True).returncode == 0


def build_cuda(source: Path, workdir: Path) -> Path | None:
    if shutil.which(NVCC) is None:
        return None
    out = workdir / "cuda"
    polypragma(source, out, "--target", "cuda", "--no-fp-contract")
    exe = out / "gemm"
    ok = (quiet([NVCC, "-O2", "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90",
                 "-fmad=false", "-c",
                 str(out / "gemm.polypragma.cu"), "-o", str(out / "unit.o")])
          and quiet([CC, "-O2", "-std=gnu11", "-c", str(out / "gemm.polypragma.c"), "-o", str(out / "main.o")])
          and quiet([NVCC, str(out / "main.o"), str(out / "unit.o"), "-o", str(exe), "-lm"]))
    return exe if ok else None


def build_opencl(source: Path, workdir: Path) -> Path | None:
    out = workdir / "opencl"
    polypragma(source, out, "--target", "opencl", "--no-fp-contract")
    exe = out / "gemm"
    return exe if quiet([CC, "-O2", "-std=gnu11", str(out / "gemm.polypragma.c"), "-o", str(exe), "-lOpenCL",
                         "-lm"]) else None


def build_c(source: Path, workdir: Path, openmp: bool) -> Path | None:
    out = workdir / ("openmp" if openmp else "c")
    polypragma(source, out, "--target", "c", *(["--openmp"] if openmp else []))
    exe = out / "gemm"
    flags = ["-fopenmp"] if openmp else []
    return exe if quiet([CC, "-O2", "-std=gnu11", *flags, str(out / "gemm.polypragma.c"), "-o", str(exe),
                         "-lm"]) else None


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
    parser.add_argument("--keep", metavar="DIR", help="keep the generated files in DIR")
    args = parser.parse_args()
    if shutil.which(CC) is None:
        print(f"no C compiler '{CC}' found; set CC", file=sys.stderr)
        return 1
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="polypragma-example-"))
    workdir.mkdir(parents=True, exist_ok=True)
    source = HERE / "gemm.c"
    original = workdir / "original"
    subprocess.run([CC, "-O2", "-std=gnu11", str(source), "-o", str(original), "-lm"], check=True)
    expected, t_original = run(original, args.n, "cpu")
    print(f"original program:  {expected.stdout.strip()}  ({t_original:.3f} s)")
    candidates = [("CUDA", lambda: build_cuda(source, workdir), "gpu"),
                  ("OpenCL", lambda: build_opencl(source, workdir), "gpu"),
                  ("C with OpenMP", lambda: build_c(source, workdir, True), "cpu"),
                  ("sequential C", lambda: build_c(source, workdir, False), "cpu")]
    status = 1
    for name, build, device in candidates:
        exe = build()
        if exe is None:
            print(f"{name}: not available here (it does not build)")
            continue
        got, seconds = run(exe, args.n, device)
        if got.returncode != 0:
            reason = got.stderr.strip().splitlines()[-1] if got.stderr.strip() else f"exit status {got.returncode}"
            print(f"{name}: not available here ({reason})")
            continue
        print(f"polypragma on {name}: {got.stdout.strip()}  ({seconds:.3f} s, transfers included)")
        if same_numbers(got.stdout, expected.stdout):
            print(f"backend: {name}; results match the original program")
            status = 0
        else:
            print(f"backend: {name}; MISMATCH: the results differ from the original program's", file=sys.stderr)
        break
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
