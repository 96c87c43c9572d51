"""How much of a pet-style suite the frontend regenerates, on every target (issue 20).

    .venv/bin/python bench/frontend_coverage.py --label after [--targets c,openmp,opencl,cuda]
                                                [--only REGEX] [--source-root DIR]

Every program of bench/frontend (small complete C programs with ``#pragma scop`` regions in the style of
pet's and PPCG's test files, and a ``main`` that prints the results) is

* compiled with gcc and run: its output is what every generated program must print;
* compiled by polypragma for each target (a process of its own, ``python -m polypragma``), counting the
  regions regenerated (a ``/* polypragma: region`` marker in the output) and those left as written, each
  with the construct its warning names (quoted names replaced by ``…`` so that warnings group);
* built as the target builds (c: gcc; openmp: gcc -fopenmp; opencl: gcc -lOpenCL, run on PoCL with
  POLYPRAGMA_DEVICE=gpu; cuda: nvcc -arch=sm_90 for the .cu, gcc for the .c, linked by nvcc, run here on
  the CPU fallback) and run; its output compared with the original's (exactly for c and openmp, up to a
  relative 1e-9 for opencl, whose arithmetic may round differently).

``--source-root DIR`` measures the polypragma of another source tree (``git archive COMMIT polypragma |
tar -x -C DIR``): it is imported instead of the installed one; ``--source-commit COMMIT`` names it in the
report.

Writes bench/results/frontend_coverage_<label>.md and .json.  A program counts as regenerated on a
target when all its regions are; it counts as correct when its generated program compiles and prints
what the original prints (a region left as written must still compile and run).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
PROGRAMS = TOP / "bench" / "frontend"
RESULTS = TOP / "bench" / "results"
sys.path.insert(0, str(TOP / "tests"))

from outputs import outputs_match  # noqa: E402

TARGETS = ("c", "openmp", "opencl", "cuda")
CC = os.environ.get("CC", "gcc")
NVCC = os.environ.get("NVCC", "nvcc")
CFLAGS = ["-O1", "-std=gnu11", "-ffp-contract=off", "-Wno-unknown-pragmas"]
LEFT = re.compile(r"^(?P<where>[^:]+:\d+:\d+): warning: region left as written: (?P<message>.*)$")
MARKER = "/* polypragma: region "
KEYWORDS = {"switch", "return", "goto", "break", "continue", "while", "for", "do"}


def construct_of(message: str) -> str:
    """The construct a warning names, with the user's names taken out so that warnings group."""
    head = re.split(r" (?:is|are|may|mixes|compares|wraps|leaves|depends|inside|under|in the|of type|with no)\b",
                    message, maxsplit=1)[0]
    def name_out(match: re.Match) -> str:
        words = match.group(1).split()
        if words and words[0] in KEYWORDS:
            return f"'{words[0]}{' …' if len(words) > 1 else ''}'"  # 'goto done' as 'goto …'
        return "'…'"

    return re.sub(r"'([^']*)'", name_out, head)


def region_count(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if re.match(r"\s*#\s*pragma\s+scop\b", line))


def run(command: list[str], env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    environment = dict(os.environ)
    environment.update(env or {})
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=environment)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, 124, "", f"timed out after {timeout} s")


def build(target: str, generated: Path, outdir: Path) -> tuple[Path | None, str]:
    exe = outdir / "prog"
    if target in ("c", "openmp", "opencl"):
        extra = {"c": [], "openmp": ["-fopenmp"], "opencl": []}[target]
        libs = ["-lOpenCL"] if target == "opencl" else []
        done = run([CC, *CFLAGS, *extra, str(generated), "-o", str(exe), *libs, "-lm"])
        return (exe, "") if done.returncode == 0 else (None, done.stderr)
    unit = generated.with_suffix(".cu")
    compiled = run([NVCC, "-arch=sm_90", "-O2", "-c", str(unit), "-o", str(outdir / "unit.o")], timeout=300)
    if compiled.returncode != 0:
        return None, compiled.stderr
    c_object = outdir / "main.o"
    done = run([CC, *CFLAGS, "-c", str(generated), "-o", str(c_object)])
    if done.returncode != 0:
        return None, done.stderr
    linked = run([NVCC, "-arch=sm_90", str(c_object), str(outdir / "unit.o"), "-o", str(exe), "-lm"])
    return (exe, "") if linked.returncode == 0 else (None, linked.stderr)


# polypragma from another source tree: the editable install's import hook would find this tree's first
_BOOT = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path if not type(f).__module__.startswith("
         "'__editable__')]; sys.path.insert(0, sys.argv.pop(1)); from polypragma.cli import main; "
         "sys.exit(main(sys.argv[1:]))")


def polypragma_command(source_root: Path | None) -> list[str]:
    if source_root is None:
        return [sys.executable, "-m", "polypragma"]
    return [sys.executable, "-c", _BOOT, str(source_root)]


def measure(path: Path, target: str, expected: str, workdir: Path, source_root: Path | None) -> dict:
    outdir = workdir / f"{path.stem}-{target}"
    outdir.mkdir()
    options = {"c": ["--target", "c"], "openmp": ["--target", "c", "--openmp"],
               "opencl": ["--target", "opencl", "--no-fp-contract"], "cuda": ["--target", "cuda"]}[target]
    started = time.perf_counter()
    done = run([*polypragma_command(source_root), str(path), "-o", str(outdir), *options])
    seconds = time.perf_counter() - started
    result: dict = {"target": target, "seconds": round(seconds, 2), "left": []}
    if done.returncode != 0:
        result.update(status="polypragma failed", detail=done.stderr.strip().splitlines()[-1:])
        return result
    for line in done.stderr.splitlines():
        match = LEFT.match(line)
        if match:
            result["left"].append({"where": match["where"].replace(str(PROGRAMS) + "/", ""),
                                   "construct": construct_of(match["message"]), "message": match["message"]})
    generated = outdir / (path.stem + ".polypragma.c")
    regions = region_count(path)
    result["regions"] = regions
    result["regenerated"] = generated.read_text().count(MARKER)
    exe, why = build(target, generated, outdir)
    if exe is None:
        result.update(status="does not compile", detail=why.strip().splitlines()[:3])
        return result
    ran = run([str(exe)], env={"POLYPRAGMA_DEVICE": "gpu"} if target == "opencl" else {"OMP_NUM_THREADS": "2"})
    if ran.returncode != 0:
        result.update(status="run failed", detail=ran.stderr.strip().splitlines()[-2:])
        return result
    difference = ran.stdout == expected and None or outputs_match(expected, ran.stdout,
                                                                   1e-9 if target == "opencl" else 0.0, 0.0)
    if difference is not None:
        result.update(status="wrong output", detail=[difference])
        return result
    result["status"] = "regenerated" if result["regenerated"] == regions else "left as written"
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--only", help="a regular expression on program names")
    parser.add_argument("--source-root", type=Path)
    parser.add_argument("--source-commit", help="the commit the source root holds (for the report)")
    args = parser.parse_args()
    targets = [t for t in args.targets.split(",") if t]
    if "cuda" in targets and shutil.which(NVCC) is None:
        print("nvcc not found: the cuda target is left out", file=sys.stderr)
        targets.remove("cuda")
    paths = sorted(p for p in PROGRAMS.glob("*.c") if args.only is None or re.search(args.only, p.stem))
    programs = []
    with tempfile.TemporaryDirectory(prefix="frontend_coverage_") as tmp:
        workdir = Path(tmp)
        for path in paths:
            original = workdir / f"{path.stem}-original"
            built = run([CC, *CFLAGS, str(path), "-o", str(original), "-lm"])
            if built.returncode != 0:
                programs.append({"program": path.name, "skipped": "the original does not compile"})
                continue
            expected = run([str(original)]).stdout
            construct = path.read_text().splitlines()[0].removeprefix("/* construct: ").removesuffix(" */")
            entry = {"program": path.name, "construct": construct, "targets": {}}
            for target in targets:
                entry["targets"][target] = measure(path, target, expected, workdir, args.source_root)
                print(f"{path.stem:22s} {target:7s} {entry['targets'][target]['status']}", file=sys.stderr)
            programs.append(entry)
    write(args.label, targets, programs, args)
    return 0


def commit() -> str:
    done = run(["git", "-C", str(TOP), "rev-parse", "--short", "HEAD"])
    dirty = run(["git", "-C", str(TOP), "status", "--porcelain", "--", "polypragma"]).stdout.strip()
    return done.stdout.strip() + (" with uncommitted changes" if dirty else "")


def write(label: str, targets: list[str], programs: list[dict], args) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    measured = [p for p in programs if "targets" in p]
    lines = [f"# Frontend coverage: {label}", "",
             f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
             + (f"source tree {args.source_root}" + (f" (commit {args.source_commit})" if args.source_commit else "")
                if args.source_root else f"commit {commit()}") + ", "
             f"{len(measured)} programs of bench/frontend.", "",
             "Command: `.venv/bin/python bench/frontend_coverage.py --label " + label
             + (f" --targets {args.targets}" if args.targets != ",".join(TARGETS) else "")
             + (f" --only '{args.only}'" if args.only else "")
             + (f" --source-root {args.source_root}" if args.source_root else "")
             + (f" --source-commit {args.source_commit}" if args.source_commit else "") + "`", "",
             "## Summary", "", "| target | regenerated | left as written | correct output | failures |",
             "| --- | --- | --- | --- | --- |"]
    for target in targets:
        results = [p["targets"][target] for p in measured]
        statuses = Counter(r["status"] for r in results)
        correct = statuses["regenerated"] + statuses["left as written"]
        failures = len(results) - correct
        lines.append(f"| {target} | {statuses['regenerated']}/{len(results)} | {statuses['left as written']} "
                     f"| {correct}/{len(results)} | {failures} |")
    lines += ["", "## Left as written, by construct (regions)", "",
              "| construct | " + " | ".join(targets) + " |", "| --- |" + " --- |" * len(targets)]
    constructs: dict[str, Counter] = {}
    for p in measured:
        for target in targets:
            for left in p["targets"][target]["left"]:
                constructs.setdefault(left["construct"], Counter())[target] += 1
    for construct, counts in sorted(constructs.items(), key=lambda kv: -sum(kv[1].values())):
        lines.append(f"| {construct} | " + " | ".join(str(counts[t]) for t in targets) + " |")
    lines += ["", "## Per program", "", "| program | construct | " + " | ".join(targets) + " |",
              "| --- | --- |" + " --- |" * len(targets)]
    for p in programs:
        if "targets" not in p:
            lines.append(f"| {p['program']} | {p['skipped']} |" + " |" * len(targets))
            continue
        cells = []
        for target in targets:
            r = p["targets"][target]
            if r["status"] == "regenerated":
                cells.append("regenerated")
            elif r["status"] == "left as written":
                cells.append("left: " + "; ".join(f"{l['where']} {l['construct']}" for l in r["left"]))
            else:
                cells.append(f"**{r['status']}**: " + " ".join(r.get("detail", [])).replace("|", "\\|")[:160])
        lines.append(f"| {p['program']} | {p['construct']} | " + " | ".join(cells) + " |")
    path = RESULTS / f"frontend_coverage_{label}.md"
    path.write_text("\n".join(lines) + "\n")
    (RESULTS / f"frontend_coverage_{label}.json").write_text(json.dumps(programs, indent=1) + "\n")
    print(f"wrote {path.relative_to(TOP)}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
