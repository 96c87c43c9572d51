"""The cost model's choices over the corpus (issue 17, item 1): every kernel of tests/kernels whose chosen
candidate is not the old default, with the runner-up and the default's estimate, as a Markdown table.

    .venv/bin/python bench/cost_model_choices.py

Each program is compiled for cuda (outputs in a temporary directory) with the -D options of its first
``// RUN:`` line; the estimates are those --explain prints.
"""

import contextlib
import glob
import io
import re
import tempfile

import polypragma.gpu.region as region
from polypragma.cli import main
from polypragma.gpu.cost import candidates

rows = []
current = {}
choose = region.choose


def recording(scop, arrays, index, band, mapped, sequential, sizes, options):
    choice = choose(scop, arrays, index, band, mapped, sequential, sizes, options)
    first = candidates(index, mapped, sizes)[0][0]
    default = next((e for e in choice.estimates if e.candidate == first), None)
    if choice.best.candidate != first:
        rows.append((current["path"], scop.region.index, index, choice.best, choice.runner_up, default))
    return choice


region.choose = recording
with tempfile.TemporaryDirectory() as out:
    for path in sorted(glob.glob("tests/kernels/*.c")):
        m = re.search(r"// RUN:(.*?)--", open(path).read())
        current["path"] = path
        with contextlib.redirect_stderr(io.StringIO()):
            try:
                main([path, "-I", "tests/kernels", "-o", out, *(m.group(1).split() if m else [])])
            except SystemExit:
                pass


def mapping(estimate) -> str:
    c = estimate.candidate
    n = len(c.order)
    loops = ", ".join(f"{c.order[d] + 1}->{'xyz'[n - 1 - d]}" for d in range(n))
    return f"{loops}; {list(c.sizes.tile)} / {list(c.sizes.block)}"


def numbers(estimate) -> str:
    return f"{estimate.global_sectors * 32 / estimate.work:.2f} / {estimate.occupancy:.0%} / {estimate.score:.3f}"


print("| kernel | chosen: loops, tile / block | sectors per 32 points / occupancy / score | runner-up "
      "| its sectors / occupancy / score | the old default's |")
print("| --- | --- | --- | --- | --- | --- |")
for path, r, k, best, runner_up, default in rows:
    print(f"| {path.rsplit('/', 1)[-1]} region {r} kernel {k} | {mapping(best)} | {numbers(best)} | "
          f"{mapping(runner_up) if runner_up else '-'} | {numbers(runner_up) if runner_up else '-'} | "
          f"{numbers(default) if default else '-'} |")
