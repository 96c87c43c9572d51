"""What ptxas makes of polypragma's kernels under two sets of options: registers a thread, shared
memory, spills, the blocks of the kernel's size that fit an SM by registers, and the global loads
and stores of the PTX (with how many are vectors), kernel by kernel, into a Markdown table.  No GPU
needed, only nvcc; for an option a session cannot time (``--vector-copies``, which copies vectors in the
kernels that keep sums in registers too)::

    python bench/resource_usage.py --options=--vector-copies --output bench/results/FILE.md

compares each corpus kernel of ``--kernels`` (``all``: every one) generated with ``--options`` against
the default, and for a change a session cannot time::

    python bench/resource_usage.py --against 21f7cdf --options= --output bench/results/FILE.md

the default of an earlier commit (its tree checked out in a temporary git worktree) against this
tree's, with ``--options``; ``--base-options`` gives the side compared with options of its own (the same
sizes with and without ``--max-shared-memory 100k``).  ``--changed`` lists only the kernels whose
numbers differ; a summary follows the table (stack frames, registers, spills).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "kernels"
REGISTERS_PER_SM = 65536
# corpus kernels (NAME, or NAME:DEFINES where the first RUN line's defines are too small)
DEFAULT_KERNELS = ("gemm", "mm2", "local_accumulators", "covariance", "jacobi_1d", "jacobi_2d:-DN=4000 -DTSTEPS=100",
                   "fdtd_2d")


def usage(spec: str, options: list[str], work: Path, root: Path = ROOT) -> list[dict]:
    """Per generated kernel of corpus kernel ``spec``, polypragma that of the tree ``root``: name,
    registers, shared bytes (static and dynamic), spill bytes, threads a block, global memory instructions and
    vector ones."""
    kernel, _, given = spec.partition(":")
    source = KERNELS / f"{kernel}.c"
    run = next((line.split("RUN:", 1)[1] for line in source.read_text().splitlines() if "// RUN:" in line), "")
    defines = shlex.split(given or run.split("--")[0])
    out = work / kernel
    subprocess.run([sys.executable, "-m", "polypragma", str(source), "-I", str(KERNELS), *defines, *options,
                    "-o", str(out)], check=True, capture_output=True, cwd=root,
                   env={**os.environ, "PYTHONPATH": str(root)})
    unit = out / f"{kernel}.polypragma.cu"
    if not unit.exists():  # (a program whose regions all stay on the host)
        return []
    report = subprocess.run(["nvcc", "-arch=sm_90", "--resource-usage", f"-I{KERNELS}", *defines, "-c", str(unit),
                             "-o", str(out / "unit.o")], check=True, capture_output=True, text=True)
    subprocess.run(["nvcc", "-arch=sm_90", "-ptx", f"-I{KERNELS}", *defines, str(unit), "-o", str(out / "unit.ptx")],
                   check=True, capture_output=True)
    ptx = (out / "unit.ptx").read_text()
    text = unit.read_text()
    rows = []
    for name, body in re.findall(r"Function properties for (\w+)\n(.*?)(?=ptxas info\s+: Compiling|\Z)",
                                 report.stdout + report.stderr, re.S):
        mangled = re.match(r"_Z(\d+)", name)  # (the name's length, then the name)
        short = name[mangled.end():mangled.end() + int(mangled.group(1))] if mangled else name
        if "_kernel" not in short:
            continue
        registers = int(re.search(r"Used (\d+) registers", body).group(1))
        shared = re.search(r"(\d+) bytes smem", body)
        spills = sum(int(v) for v in re.findall(r"(\d+) bytes spill (?:stores|loads)", body))
        stack = int(re.search(r"(\d+) bytes stack frame", body).group(1))
        entry = re.search(r"\.entry " + re.escape(name) + r"\((.*?)\n}\n", ptx, re.S)
        code = entry.group(1) if entry else ""
        memory = re.findall(r"(?:ld|st)\.global[.\w]*", code)
        # (a kernel with dynamic shared memory opts in between the two)
        block = re.search(r"block\(([^)]*)\);\s*(?:\w+\(cudaFuncSetAttribute\([^;]*;\s*)?" + re.escape(short) + r"<<<",
                          text)
        dynamic = re.search(re.escape(short) + r"<<<grid, block, (\d+)>>>", text)
        threads = 1
        for extent in (block.group(1).split(",") if block else []):
            threads *= int(extent) if extent.strip().isdigit() else 1
        rows.append({"kernel": short, "registers": registers,
                     "shared": (int(shared.group(1)) if shared else 0) + (int(dynamic.group(1)) if dynamic else 0),
                     "spills": spills, "stack": stack, "threads": threads, "global": len(memory),
                     "vector": sum(1 for m in memory if ".v2" in m or ".v4" in m)})
    return sorted(rows, key=lambda row: row["kernel"])


def blocks(row: dict) -> str:
    """Blocks of the kernel's size an SM holds by its registers (allocated per warp, by 256)."""
    if row["threads"] <= 1:
        return "?"
    per_warp = -(-row["registers"] * 32 // 256) * 256
    return str(REGISTERS_PER_SM // (per_warp * -(-row["threads"] // 32)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--options", default="--vector-copies", help="polypragma options to compare (one string)")
    parser.add_argument("--base-options", default="", help="polypragma options of the side compared with (one string; "
                                                           "default: none)")
    parser.add_argument("--kernels", nargs="*", default=list(DEFAULT_KERNELS),
                        help="corpus kernels: NAME, or NAME:DEFINES, or 'all' (default: %(default)s)")
    parser.add_argument("--changed", action="store_true", help="list only the kernels whose numbers differ")
    parser.add_argument("--jobs", type=int, default=1, help="corpus kernels compiled at a time (default: 1)")
    parser.add_argument("--against", metavar="REV", help="compare the default of git revision REV with this tree")
    parser.add_argument("--output", type=Path, help="the Markdown file (default: print)")
    args = parser.parse_args()
    options = shlex.split(args.options)
    kernels = args.kernels
    if kernels == ["all"]:
        kernels = sorted(path.stem for path in KERNELS.glob("*.c") if "// RUN:" in path.read_text())
    against = f" --against {args.against}" if args.against else ""
    base_options = shlex.split(args.base_options)
    compared = f"`{args.base_options}`" if base_options else "default"
    title = f"commit {args.against}'s {compared} against this tree's" if args.against else f"{compared} against"
    title += f" `{args.options}`" if args.options else ""
    against += f" --base-options={shlex.quote(args.base_options)}" if base_options else ""
    against += " --kernels " + " ".join(args.kernels) if args.kernels != list(DEFAULT_KERNELS) else ""
    against += " --changed" if args.changed else ""
    lines = [f"# Registers and memory instructions: {title}", "",
             f"`python bench/resource_usage.py{against} --options={shlex.quote(args.options)}`, "
             f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, nvcc for sm_90 (ptxas's report and the PTX); "
             "blocks an SM by registers alone (65,536 a multiprocessor, allocated by 256 a warp).", "",
             "| kernel | registers | shared bytes | spilled bytes | stack frame bytes | blocks an SM | "
             "global loads and stores (vectors) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory() as tmp:
        base = ROOT
        if args.against:
            base = Path(tmp) / "base"
            subprocess.run(["git", "worktree", "add", "--detach", str(base), args.against], check=True,
                           capture_output=True, cwd=ROOT)
        try:
            with ThreadPoolExecutor(args.jobs) as pool:
                befores = pool.map(lambda kernel: usage(kernel, base_options, Path(tmp) / "default", base), kernels)
                afters = pool.map(lambda kernel: usage(kernel, options, Path(tmp) / "options"), kernels)
                rows = list(zip(befores, afters))
        finally:
            if args.against:
                subprocess.run(["git", "worktree", "remove", "--force", str(base)], capture_output=True, cwd=ROOT)
        pairs = [(b, a) for before, after in rows for b, a in zip(before, after)]
        for b, a in pairs:
            def pair(key: str) -> str:
                return f"{b[key]}" if b[key] == a[key] else f"{b[key]} -> {a[key]}"
            if args.changed and all(b[k] == a[k] for k in b if k != "kernel"):
                continue
            lines.append(f"| {b['kernel']} | {pair('registers')} | {pair('shared')} | {pair('spills')} | "
                         f"{pair('stack')} | {blocks(b) if blocks(b) == blocks(a) else blocks(b) + ' -> ' + blocks(a)} | "
                         f"{b['global']} ({b['vector']}) -> {a['global']} ({a['vector']}) |")
    lines += ["", summary(pairs, len(kernels))]
    publish(lines, args.output)
    return 0


def summary(pairs: list[tuple[dict, dict]], programs: int) -> str:
    """A line on the kernels compared ``pairs`` (before, after) of ``programs`` corpus programs."""
    def count(side: int, key: str) -> int:
        return sum(1 for p in pairs if p[side][key])

    fewer = sum(1 for b, a in pairs if a["registers"] < b["registers"])
    more = sum(1 for b, a in pairs if a["registers"] > b["registers"])
    changed = sum(1 for b, a in pairs if any(b[k] != a[k] for k in b if k != "kernel"))
    return (f"{len(pairs)} kernels of {programs} programs, {changed} with a number changed; a stack frame: "
            f"{count(0, 'stack')} -> {count(1, 'stack')} kernels; spills: {count(0, 'spills')} -> "
            f"{count(1, 'spills')}; fewer registers: {fewer}, more: {more}.")


def publish(lines: list[str], output: Path | None) -> None:
    """Print the Markdown ``lines`` and write them to ``output``, where what a person wrote under its
    "## Notes" stays."""
    text = "\n".join(lines) + "\n"
    if output:
        old = output.read_text() if output.exists() else ""
        notes = old[old.index("\n## Notes"):] if "\n## Notes" in old else ""
        output.write_text(text + notes)
    print(text, end="")


if __name__ == "__main__":
    sys.exit(main())
