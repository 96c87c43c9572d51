"""A convergence loop (examples/converge.c: Jacobi relaxation to a tolerance) on this machine's targets.

    .venv/bin/python bench/convergence.py --label after [--size 512] [--tol 1e-2] [--repeat 3]
                                          [--source-root DIR --source-commit COMMIT]

The example is built as the original program (gcc -O2), through polypragma for the c target with
--openmp (gcc -O2 -fopenmp) and for the opencl target (gcc -O2 -lOpenCL, run on the OpenCL device
present: PoCL's CPU device here), each run ``--repeat`` times at ``--size`` x ``--size`` to ``--tol``;
the best wall time counts.  Every build must print what the original prints.  The opencl run is
repeated with POLYPRAGMA_PROFILE=1, whose transfers line says how much crossed to and from the device.

``--source-root DIR`` measures the polypragma of another source tree (``git archive COMMIT polypragma |
tar -x -C DIR``), ``--source-commit`` names it.  Writes bench/results/convergence_<label>.md and .json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
EXAMPLE = TOP / "examples" / "converge.c"


def _run(command: list[str], env: dict | None = None, timeout: float = 600, cwd: Path | None = None) \
        -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **(env or {})},
                            timeout=timeout, cwd=cwd)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr}")
    return result


def _best(exe: Path, args: list[str], repeat: int) -> tuple[float, str]:
    times, output = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        output = _run([str(exe), *args]).stdout
        times.append(time.perf_counter() - start)
    return min(times), output


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"{line.split(':', 1)[1].strip()} ({os.cpu_count()} cores)"
    except OSError:
        pass
    return f"{platform.processor() or platform.machine()} ({os.cpu_count()} cores)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--tol", default="1e-2")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--source-root", type=Path)
    parser.add_argument("--source-commit", default="")
    args = parser.parse_args()
    env = {"PYTHONPATH": str(args.source_root.resolve())} if args.source_root else {}
    run_args = [str(args.size), args.tol]
    rows, results = [], {}
    with tempfile.TemporaryDirectory() as work:
        build = Path(work)
        original = build / "original"
        _run(["gcc", "-O2", str(EXAMPLE), "-o", str(original), "-lm"])
        seconds, expected = _best(original, run_args, args.repeat)
        results["original"] = {"seconds": seconds}
        rows.append(("original, gcc -O2", seconds, ""))
        for name, options, flags in (("c --openmp", ["--target", "c", "--openmp"], ["-fopenmp"]),
                                     ("opencl", ["--target", "opencl"], ["-lOpenCL"])):
            out = build / name.split()[0]
            # (from the build directory: 'python -m' puts the working directory first on the path)
            _run([sys.executable, "-m", "polypragma", str(EXAMPLE), "-o", str(out), *options], env=env, cwd=build)
            exe = out / "converge"
            _run(["gcc", "-O2", str(out / "converge.polypragma.c"), "-o", str(exe), *flags, "-lm"])
            seconds, output = _best(exe, run_args, args.repeat)
            if output != expected:
                raise SystemExit(f"{name} printed {output!r}, the original {expected!r}")
            transfers = ""
            if name == "opencl":
                profile = _run([str(exe), *run_args], env={"POLYPRAGMA_PROFILE": "1"}).stderr
                found = re.search(r"transfers: .*", profile)
                transfers = found.group(0) if found else ""
            results[name] = {"seconds": seconds, "transfers": transfers}
            rows.append((name, seconds, transfers))
    iterations = expected.split()[0]
    report = {
        "label": args.label, "date": datetime.date.today().isoformat(), "device": _cpu(),
        "source_commit": args.source_commit, "size": args.size, "tol": args.tol, "iterations": int(iterations),
        "command": " ".join(["bench/convergence.py", *sys.argv[1:]]), "results": results,
    }
    results_dir = TOP / "bench" / "results"
    (results_dir / f"convergence_{args.label}.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [f"# Convergence loop ({args.label})", "",
             f"{report['date']}, {report['device']}; polypragma {args.source_commit or 'of this checkout'}.",
             f"`examples/converge.c` at {args.size} x {args.size} to {args.tol}: {iterations} iterations; "
             f"best of {args.repeat} runs; every build prints what the original prints.", "",
             f"    .venv/bin/python {report['command']}", "",
             "| build | seconds | transfers (POLYPRAGMA_PROFILE=1) |", "| --- | --- | --- |"]
    lines += [f"| {name} | {seconds:.3f} | {transfers} |" for name, seconds, transfers in rows]
    (results_dir / f"convergence_{args.label}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
