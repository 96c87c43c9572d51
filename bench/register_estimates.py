"""The cost model's registers a thread against ptxas's, for every kernel of the corpus (tests/kernels,
the cuda target, the -D options of each program's first ``// RUN:`` line): the estimate --explain
prints for the chosen sizes, the registers nvcc for sm_90 gives the kernel, and the blocks of its
size an SM holds under each (sm_90's limits: registers, threads, blocks, shared memory).  No GPU needed, only nvcc::

    python bench/register_estimates.py --output bench/results/register_estimates_DATE.md

The blocks are what the model's occupancy, and so its choice, depends on: a kernel listed under
"blocks differ" is one whose estimate misjudges its occupancy.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from resource_usage import KERNELS, ROOT, blocks, publish, usage  # noqa: E402

THREADS_PER_SM, BLOCKS_PER_SM, SHARED_PER_SM, SHARED_RESERVED = 2048, 32, 228 * 1024, 1024

ESTIMATE = re.compile(r"(?:chosen by the cost model of \d+ candidates|estimate of the sizes you gave): .*"
                      r"about (\d+) registers a thread")


def estimates(source: Path, defines: list[str], work: Path) -> dict[str, int]:
    """Kernel name (as the generated code has it) -> the registers --explain estimates for it."""
    result = subprocess.run([sys.executable, "-m", "polypragma", str(source), "-I", str(KERNELS), *defines,
                             "--target", "cuda", "--explain", "-o", str(work)], capture_output=True, text=True,
                            cwd=ROOT)
    out, region, kernel = {}, None, None
    for line in result.stderr.splitlines():
        match = re.search(r": note: region (\d+):", line)
        if match:
            region = int(match.group(1))
        match = re.match(r"  kernel (\d+) \(", line)
        if match:
            kernel = int(match.group(1))
        match = ESTIMATE.search(line)
        if match and region is not None and kernel is not None:
            out[f"region{region}_kernel{kernel}"] = int(match.group(1))
    return out


def resident(row: dict) -> int:
    """Blocks of the kernel an SM holds under sm_90's limits: registers, threads, blocks, shared memory."""
    limits = [int(blocks(row)), THREADS_PER_SM // row["threads"], BLOCKS_PER_SM]
    if row["shared"]:
        limits.append(SHARED_PER_SM // (row["shared"] + SHARED_RESERVED))
    return min(limits)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, help="the Markdown file (default: print)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for source in sorted(KERNELS.glob("*.c")):
            run = next((line.split("RUN:", 1)[1] for line in source.read_text().splitlines() if "// RUN:" in line), "")
            defines = shlex.split(run.split("--")[0])
            guessed = estimates(source, defines, Path(tmp) / f"{source.stem}_explain")
            for row in usage(source.stem, [], Path(tmp) / "usage"):
                key = next((k for k in guessed if row["kernel"].endswith(k)), None)
                if key is None or row["threads"] <= 1:
                    continue
                model = dict(row, registers=guessed[key])
                rows.append((row["kernel"], guessed[key], row["registers"], row["threads"], resident(model),
                             resident(row)))
    differences = [estimate - actual for _, estimate, actual, *_ in rows]
    differ = [r for r in rows if r[4] != r[5]]
    lines = ["# The cost model's registers a thread against ptxas's", "",
             f"`python bench/register_estimates.py`, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, nvcc for "
             "sm_90; every corpus kernel of the cuda target with a block of more than one thread, at the -D options "
             "of its program's first RUN line.", "",
             f"{len(rows)} kernels: the estimate is {sum(differences) / len(rows):+.1f} registers from ptxas's on "
             f"average ({sum(abs(d) for d in differences) / len(rows):.1f} either way; "
             f"{sum(1 for d in differences if d < 0)} below it, {sum(1 for d in differences if d > 0)} above); "
             f"{len(differ)} kernels hold another number of blocks an SM with ptxas's registers than with the estimate.",
             "", "## Blocks differ", "",
             "| kernel | threads | estimate | ptxas | blocks an SM with the estimate | with ptxas's |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    lines += [f"| {k} | {t} | {e} | {a} | {be} | {ba} |" for k, e, a, t, be, ba in differ]
    lines += ["", "## Every kernel", "", "| kernel | threads | estimate | ptxas |", "| --- | ---: | ---: | ---: |"]
    lines += [f"| {k} | {t} | {e} | {a} |" for k, e, a, t, _, _ in rows]
    publish(lines, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
