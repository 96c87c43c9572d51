"""Compile time of polypragma over the kernel corpus.

Runs the command in-process on every kernel of tests/kernels (its first RUN
configuration), several times, and writes the best time per kernel to
bench/results/compile_time_<target>.json and .md, with the machine and the command.

    .venv/bin/python bench/compile_time.py [--repeat 3] [--target cuda|opencl|c]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import re
import shlex
import sys
import tempfile
import time
from contextlib import redirect_stderr
from datetime import date
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOP))

from polypragma import __version__  # noqa: E402
from polypragma.cli import main as polypragma_main  # noqa: E402

KERNELS = TOP / "tests" / "kernels"


def first_defines(path: Path) -> list[str]:
    for line in path.read_text().splitlines():
        match = re.match(r"\s*//\s*RUN:(.*)$", line)
        if match:
            return shlex.split(match.group(1).partition("--")[0])
    return []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--target", default="cuda", choices=("cuda", "opencl", "c"))
    parser.add_argument("--out", default=str(TOP / "bench" / "results"))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as outdir:
        for path in sorted(KERNELS.glob("*.c")):
            argv = [str(path), "-o", outdir, "--target", args.target, f"-I{KERNELS}", *first_defines(path)]
            best = float("inf")
            for _ in range(args.repeat):
                stream = io.StringIO()
                started = time.perf_counter()
                with redirect_stderr(stream):
                    status = polypragma_main(argv)
                best = min(best, time.perf_counter() - started)
                if status != 0:
                    raise SystemExit(f"{path.name}: polypragma failed\n{stream.getvalue()}")
            regions = len(re.findall(r"^\s*#\s*pragma\s+scop\b", path.read_text(), re.M))
            rows.append({"kernel": path.stem, "regions": regions, "seconds": round(best, 4)})
    rows.sort(key=lambda r: -r["seconds"])
    total = sum(r["seconds"] for r in rows)
    command = "python bench/compile_time.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    meta = {
        "polypragma": __version__,
        "date": date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.processor() or platform.platform()}",
        "python": platform.python_version(),
        "command": command.strip(),
        "target": args.target,
        "repeat": args.repeat,
        "kernels": len(rows),
        "total_seconds": round(total, 3),
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"compile_time_{args.target}.json").write_text(json.dumps({"meta": meta, "kernels": rows}, indent=2) + "\n")
    lines = [
        "# polypragma compile time over the corpus",
        "",
        f"polypragma {__version__}, target `{args.target}`, {meta['date']}, {meta['machine']}, Python {meta['python']}.",
        f"Command: `{meta['command']}` (best of {args.repeat} runs per kernel, in-process, including",
        "preprocessing, parsing, dependence analysis, scheduling, code generation and writing the file).",
        "",
        f"Total over {len(rows)} kernels: **{total:.2f} s**; slowest: **{rows[0]['kernel']}** ({rows[0]['seconds']:.3f} s).",
        "",
        "| kernel | regions | seconds |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {r['kernel']} | {r['regions']} | {r['seconds']:.3f} |" for r in rows]
    (out / f"compile_time_{args.target}.md").write_text("\n".join(lines) + "\n")
    print(f"{len(rows)} kernels, total {total:.2f} s, slowest {rows[0]['kernel']} {rows[0]['seconds']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
