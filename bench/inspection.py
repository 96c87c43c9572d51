"""What finding extents at run time costs (gpu/inspection.py): a sparse matrix-vector product through plain
pointers, whose host function first walks the compressed rows to size col, val and x, against the same
product with every extent declared (no inspection), both through the GPU target and built on this machine.

    .venv/bin/python bench/inspection.py [--target opencl] [--rows 200000] [--per-row 16] [--columns 200000]
                                         [--calls 20] [--label NAME]

Each variant is compiled by polypragma, built with gcc (the host code also with -fopenmp, where the
inspection's outer loop is a parallel reduction) and run: it builds a random matrix, calls the product
``--calls`` times and reports each call's wall time.  The difference between the variants is what the
inspection adds to a call (the copies are the same: x's inspected extent is its declared one, the largest
column being drawn).  Writes bench/results/inspection_<label>.md and .json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
RESULTS = TOP / "bench" / "results"

KERNEL = {
    "pointers": "static void spmv(int n, const int *rowptr, const int *col, const double *val, const double *x,\n"
                "                 double *y)",
    "declared": "static void spmv(int n, int nnz, int m, const int rowptr[n + 1], const int col[nnz],\n"
                "                 const double val[nnz], const double x[m], double y[n])",
}
CALL = {"pointers": "spmv(n, rowptr, col, val, x, y)", "declared": "spmv(n, nnz, m, rowptr, col, val, x, y)"}

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

@SIGNATURE@
{
#pragma scop
    for (int i = 0; i < n; i++) {
        int start = rowptr[i], end = rowptr[i + 1];
        double s = 0.0;
        for (int j = start; j < end; j++)
            s += val[j] * x[col[j]];
        y[i] = s;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), per_row = atoi(argv[2]), m = atoi(argv[3]), calls = atoi(argv[4]);
    int *rowptr = malloc(sizeof(int) * (n + 1));
    unsigned s = 12345u;
    rowptr[0] = 0;
    for (int i = 0; i < n; i++)
        rowptr[i + 1] = rowptr[i] + per_row;
    int nnz = rowptr[n];
    int *col = malloc(sizeof(int) * nnz);
    double *val = malloc(sizeof(double) * nnz), *x = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * n);
    for (int e = 0; e < nnz; e++) {
        col[e] = e == 0 ? m - 1 : (int)((s = s * 1103515245u + 12345u) >> 4) % m;
        val[e] = (s >> 16) % 100 / 16.0;
    }
    for (int c = 0; c < m; c++)
        x[c] = c % 7 / 4.0;
    printf("[");
    for (int k = 0; k < calls; k++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        @CALL@;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("%s%.6f", k ? ", " : "", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += (i % 5 + 1) * y[i];
    printf("]\n%.17g\n", sum);
    return 0;
}
"""


def build(variant: str, target: str, openmp: bool, directory: Path) -> Path:
    source = directory / f"spmv_{variant}.c"
    source.write_text(PROGRAM.replace("@SIGNATURE@", KERNEL[variant]).replace("@CALL@", CALL[variant]))
    out = directory / f"{variant}_{target}"
    subprocess.run([sys.executable, "-m", "polypragma", str(source), "-o", str(out), "--target", target],
                   check=True, cwd=TOP)
    exe = directory / f"{variant}_{target}{'_omp' if openmp else ''}.exe"
    libs = ["-lOpenCL"] if target == "opencl" else []
    subprocess.run(["gcc", "-O2", *(["-fopenmp"] if openmp else []), str(out / f"spmv_{variant}.polypragma.c"),
                    "-o", str(exe), *libs, "-lm"], check=True)
    return exe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", default="opencl", choices=["opencl"])
    parser.add_argument("--rows", type=int, default=200000)
    parser.add_argument("--per-row", type=int, default=16)
    parser.add_argument("--columns", type=int, default=200000)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--label", default=datetime.date.today().isoformat())
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for openmp in (False, True):
            sums = set()
            for variant in ("declared", "pointers"):
                exe = build(variant, args.target, openmp, Path(tmp))
                env = dict(os.environ, OMP_NUM_THREADS=str(os.cpu_count()))
                result = subprocess.run([str(exe), str(args.rows), str(args.per_row), str(args.columns),
                                         str(args.calls)], capture_output=True, text=True, check=True, env=env)
                times, checksum = result.stdout.splitlines()[:2]
                sums.add(checksum)
                times = json.loads(times)[1:]  # (the first call builds the program and creates the context)
                rows.append({"variant": variant, "host_openmp": openmp, "median_ms": statistics.median(times),
                             "min_ms": min(times), "calls": len(times)})
            if len(sums) != 1:
                raise SystemExit(f"the variants print different sums: {sums}")
    nnz = args.rows * args.per_row
    copied = (args.rows + 1) * 4 + nnz * (4 + 8) + args.columns * 8 + args.rows * 8
    report = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": platform.processor() or
              platform.machine(), "cores": os.cpu_count(), "target": args.target, "rows": args.rows,
              "per_row": args.per_row, "columns": args.columns, "nnz": nnz, "bytes_copied": copied,
              "command": " ".join(["bench/inspection.py", *sys.argv[1:]]), "results": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"inspection_{args.label}.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [f"# The cost of inspected extents ({args.label})", "",
             f"`.venv/bin/python {report['command']}` on {report['cores']} cores ({report['machine']}), "
             f"{report['date']}: a {args.rows}-row sparse matrix with {args.per_row} entries a row ({nnz} in all) "
             f"and {args.columns} columns times a vector, through `--target {args.target}` (PoCL on this "
             f"machine's CPU); {copied / 1e6:.1f} MB cross to the device and back each call.", "",
             "| host code | extents declared (ms a call) | pointers, inspected (ms a call) | the inspection adds |",
             "| --- | --- | --- | --- |"]
    for openmp in (False, True):
        declared, pointers = (next(r for r in rows if r["variant"] == v and r["host_openmp"] == openmp)
                              for v in ("declared", "pointers"))
        lines.append(f"| {'gcc -fopenmp' if openmp else 'gcc'} | {declared['median_ms']:.2f} | "
                     f"{pointers['median_ms']:.2f} | {pointers['median_ms'] - declared['median_ms']:+.2f} ms "
                     f"({(pointers['median_ms'] / declared['median_ms'] - 1) * 100:+.0f}%) |")
    lines += ["", "Medians of the calls after the first (which builds the OpenCL program)."]
    (RESULTS / f"inspection_{args.label}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
