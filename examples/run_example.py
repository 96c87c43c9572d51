"""Compile examples/gemm.c with polypragma on the best backend present, run it,
and compare its output with the original program's.

Backends, best first: CUDA (a later version), OpenCL (a later version), C with
OpenMP, sequential C.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def compiler_supports_openmp(cc: str, workdir: Path) -> bool:
    probe = workdir / "omp_probe.c"
    probe.write_text("#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
    result = subprocess.run([cc, "-fopenmp", str(probe), "-o", str(workdir / "omp_probe")], capture_output=True)
    return result.returncode == 0


def timed_run(exe: Path, args: list[str]) -> tuple[str, float]:
    started = time.perf_counter()
    result = subprocess.run([str(exe), *args], capture_output=True, text=True, check=True)
    return result.stdout, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("n", nargs="?", default="400", help="matrix size (default 400)")
    parser.add_argument("--keep", metavar="DIR", help="keep the generated files in DIR")
    args = parser.parse_args()
    cc = os.environ.get("CC", "gcc")
    if shutil.which(cc) is None:
        print(f"no C compiler '{cc}' found; set CC", file=sys.stderr)
        return 1
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="polypragma-example-"))
    workdir.mkdir(parents=True, exist_ok=True)
    source = HERE / "gemm.c"
    openmp = compiler_supports_openmp(cc, workdir)
    backend = "c with OpenMP" if openmp else "sequential c"
    options = ["--target", "c"] + (["--openmp"] if openmp else [])
    print(f"polypragma {source.name} {' '.join(options)} -o {workdir}")
    subprocess.run([sys.executable, "-m", "polypragma", str(source), *options, "-o", str(workdir)], check=True)
    generated = workdir / "gemm.polypragma.c"
    flags = ["-O2", "-std=gnu11"]
    subprocess.run([cc, *flags, str(source), "-o", str(workdir / "original"), "-lm"], check=True)
    subprocess.run([cc, *flags, *(["-fopenmp"] if openmp else []), str(generated), "-o", str(workdir / "generated"),
                    "-lm"], check=True)
    expected, t_original = timed_run(workdir / "original", [args.n])
    got, t_generated = timed_run(workdir / "generated", [args.n])
    print(f"original program:  {expected.strip()}  ({t_original:.3f} s)")
    print(f"polypragma ({backend}, {os.cpu_count()} cores): {got.strip()}  ({t_generated:.3f} s)")
    if got != expected:
        print("MISMATCH: the generated program's results differ from the original's", file=sys.stderr)
        return 1
    print(f"backend: {backend}; results match the original program")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
