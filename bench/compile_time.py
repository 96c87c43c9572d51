"""Compile time of polypragma over the corpus, per target and per stage (issue 16, item 6).

    .venv/bin/python bench/compile_time.py --label before [--targets cuda,opencl,c] [--repeat 1]
                                           [--no-regressions] [--only seidel] [--profile 3]
                                           [--option=--no-unroll-copies]

Every program of tests/kernels (and of tests/differential/regressions unless --no-regressions) is
compiled by polypragma for each target, with the -D options of its first ``// RUN:`` line, as a process
of its own (``python -m polypragma ... -v``), one at a time and pinned to one core with ``taskset -c 0``
where there is one: the wall time of the process is what a build waits for.  From ``-v`` it keeps the
times of the stages (the ``[stage] ... (X ms)`` lines, summed per stage) and of the ``[total]`` line;
Python's start and polypragma's imports are ``-v``'s ``[start]`` line (before it had one: the process's
time outside ``[total]``), and what ``[total]`` spends outside the stages is work ``-v`` does not
account for.

``--option OPTION`` (repeatable) gives polypragma an option for every run, to time a choice of code
against the default.

``--profile N`` runs the N slowest cuda programs again under cProfile and lists the functions that take
the time (cumulative, polypragma's own functions, and the isl calls by their own time).

Writes bench/results/compile_time_<label>.md (the table sorted by cuda time, programs over 2 s flagged,
the sums, the profiles) and .json.  Text below a ``## Notes`` heading of an existing .md of the same
label is kept, so findings written by hand survive a rerun.
"""

from __future__ import annotations

import argparse
import cProfile  # noqa: F401  (run as python -m cProfile; imported so a missing module fails early)
import datetime
import json
import os
import platform
import pstats
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
KERNELS = TOP / "tests" / "kernels"
REGRESSIONS = TOP / "tests" / "differential" / "regressions"
RESULTS = TOP / "bench" / "results"
sys.path.insert(0, str(TOP / "tests"))

from harness import run_configs  # noqa: E402

TARGETS = ("cuda", "opencl", "c")
LIMIT_SECONDS = 2.0  # issue 16: every corpus program compiles for cuda in under 2 s on one core
STAGE_LINE = re.compile(r"^polypragma: \[(\w+)\] (.*) \((\d+(?:\.\d+)?) ms\)$")
STAGES = ("scan", "frontend", "dependences", "schedule", "gpu", "codegen", "splice")
NOTES_HEADING = "## Notes"


def pinned() -> list[str]:
    """``taskset -c 0`` where it exists: one core, as the issue's limit is stated."""
    return ["taskset", "-c", "0"] if shutil.which("taskset") else []


def programs(regressions: bool, only: str | None) -> list[Path]:
    paths = sorted(KERNELS.glob("*.c"))
    if regressions:
        paths += sorted(REGRESSIONS.glob("*.c"))
    return [p for p in paths if only is None or re.search(only, str(p.relative_to(TOP)))]


def first_defines(path: Path) -> list[str]:
    configs = run_configs(path)
    return list(configs[0].defines) if configs else []


def polypragma_command(path: Path, outdir: str, target: str, options=()) -> list[str]:
    return [str(path.relative_to(TOP)), "-o", outdir, "--target", target,
            f"-I{KERNELS.relative_to(TOP)}", *first_defines(path), *options, "-v"]


def parse_stages(stderr: str) -> tuple[dict[str, float], float | None]:
    """Milliseconds per stage (summed over regions) and of the [total] line."""
    stages: dict[str, float] = {}
    total = None
    for line in stderr.splitlines():
        match = STAGE_LINE.match(line)
        if not match:
            continue
        stage, ms = match.group(1), float(match.group(3))
        if stage == "total":
            total = ms
        else:
            stages[stage] = stages.get(stage, 0.0) + ms
    return stages, total


def measure(path: Path, target: str, repeat: int, timeout: float, options=()) -> dict:
    """The best of ``repeat`` runs (wall seconds), with the stage times of that run; ``options`` are
    given to polypragma."""
    best: dict | None = None
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as outdir:
            command = [*pinned(), sys.executable, "-m", "polypragma",
                       *polypragma_command(path, outdir, target, options)]
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            try:
                result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=TOP)
            except subprocess.TimeoutExpired:
                return {"seconds": None, "status": "timeout", "timeout": timeout}
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
        stages, total = parse_stages(result.stderr)
        warnings = sum(1 for line in result.stderr.splitlines() if ": warning: " in line)
        run = {"seconds": round(wall, 3), "cpu_seconds": round(cpu, 3), "status": result.returncode, "warnings": warnings,
               "total_ms": total, "stages_ms": {k: round(v, 1) for k, v in stages.items()}}
        if result.returncode != 0:
            run["stderr_tail"] = result.stderr[-2000:]
        if best is None or wall < best["seconds"]:
            best = run
    assert best is not None
    return best


def profile(path: Path, target: str, top: int, timeout: float, options=()) -> dict:
    """The functions that take the time of one polypragma run, from cProfile."""
    with tempfile.TemporaryDirectory() as outdir:
        stats_file = Path(outdir) / "profile.out"
        command = [*pinned(), sys.executable, "-m", "cProfile", "-o", str(stats_file), "-m", "polypragma",
                   *polypragma_command(path, outdir, target, options)]
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=TOP)
        wall = time.perf_counter() - started
        stats = pstats.Stats(str(stats_file))
    entries = []
    for (filename, line, function), (_, calls, own, cumulative, _) in stats.stats.items():
        entries.append({"file": filename, "line": line, "function": function, "calls": calls,
                        "own_s": round(own, 3), "cumulative_s": round(cumulative, 3)})

    def name(entry: dict) -> str:
        file = entry["file"]
        if file == "~":  # a builtin: the isl calls of islpy are methods of its extension's classes
            return entry["function"]
        try:
            file = str(Path(file).resolve().relative_to(TOP))
        except ValueError:
            file = Path(file).name
        return f"{file}:{entry['line']}({entry['function']})"

    # polypragma's functions, not its modules' import (the start column of the table has that)
    own_code = [e for e in entries if "/polypragma/" in e["file"].replace(os.sep, "/") and e["function"] != "<module>"]
    own_code.sort(key=lambda e: -e["cumulative_s"])
    # islpy's compiled methods do not appear in cProfile apart: the time of an isl call is the own time
    # of the polypragma function that makes it, so "own" points at the isl calls that take the time
    by_own = sorted(own_code, key=lambda e: -e["own_s"])
    return {
        "program": str(path.relative_to(TOP)), "target": target, "wall_s": round(wall, 2),
        "total_s": round(stats.total_tt, 2),
        "cumulative": [{**e, "name": name(e)} for e in own_code[:top]],
        "own": [{**e, "name": name(e)} for e in by_own[:top] if e["own_s"] > 0],
    }


def git(*args: str) -> str:
    result = subprocess.run(["git", *args], capture_output=True, text=True, cwd=TOP)
    return result.stdout.strip()


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def seconds(run: dict | None) -> str:
    if run is None:
        return ""
    if run["status"] == "timeout":
        return f"> {run['timeout']:.0f} (timeout)"
    text = f"{run['seconds']:.2f}"
    if run["status"] != 0:
        text += " (failed)"
    return f"**{text}**" if run["seconds"] > LIMIT_SECONDS else text


def cpu(run: dict | None) -> str:
    """CPU seconds (user and system) of the process: less disturbed by the machine's load than wall time."""
    if run is None or run.get("cpu_seconds") is None:
        return ""
    return f"**{run['cpu_seconds']:.2f}**" if run["cpu_seconds"] > LIMIT_SECONDS else f"{run['cpu_seconds']:.2f}"


def stage_cells(run: dict | None) -> list[str]:
    """A run's stages in seconds, then the time [total] does not account for, then the start."""
    if run is None or run["status"] == "timeout" or run["total_ms"] is None:
        return [""] * (len(STAGES) + 2)
    stages = run["stages_ms"]
    cells = [f"{stages.get(s, 0.0) / 1000:.2f}" for s in STAGES]
    untimed = run["total_ms"] - sum(stages.values())
    # the process's time outside the stages: before [total] (older versions) or in its [start] line
    start = run["seconds"] * 1000 - run["total_ms"] + stages.get("start", 0.0)
    return cells + [f"{untimed / 1000:.2f}", f"{start / 1000:.2f}"]


def markdown(meta: dict, rows: list[dict], profiles: list[dict], notes: str) -> str:
    targets = meta["targets"]
    # the target whose CPU time and stages the table details: cuda, or the only one timed
    detail = "cuda" if "cuda" in targets else targets[0]
    lines = [
        f"# polypragma compile time: {meta['label']}",
        "",
        f"* Date: {meta['date']} (UTC); commit `{meta['commit']}`{meta['dirty']}; {meta['version']}",
        f"* Machine: {meta['machine']}; Python {meta['python']}; {meta['pinning']}",
        f"* Load average (1, 5, 15 min) at the start: {meta['load_start']}, at the end: {meta['load_end']}.",
        "  Other developers were using the machine (2 cores shared by several sessions), so times carry",
        "  their noise: compare large differences only, and rerun a single program (`--only NAME`) to",
        "  confirm one.",
        f"* Command: `{meta['command']}`; best of {meta['repeat']} run(s) per program and target, each a",
        "  process of its own (`python -m polypragma ... -v`), one at a time, with the -D options of the",
        "  program's first `// RUN:` line. Seconds are the process's wall time: Python's start and",
        "  polypragma's imports included.",
        "",
        f"Times over {LIMIT_SECONDS:.0f} s (the limit of issue 16) are in **bold**; the list below counts wall time.",
        "",
    ]
    for target in targets:
        done = [r[target] for r in rows if r.get(target) and r[target]["seconds"] is not None]
        over = [r["program"] for r in rows if r.get(target) and (r[target]["seconds"] or 1e9) > LIMIT_SECONDS]
        lines.append(f"* `{target}`: {sum(d['seconds'] for d in done):.2f} s wall "
                     f"({sum(d['cpu_seconds'] for d in done):.2f} s CPU) over {len(done)} programs; "
                     f"{len(over)} over {LIMIT_SECONDS:.0f} s" + (f" ({', '.join(over)})" if over else ""))
    lines += [
        "",
        f"*{detail} CPU s* is the {detail} process's CPU time (user and system), which the load disturbs less.",
        f"The stage columns are the {detail} run's `-v` times in seconds (summed over the regions);",
        "*untimed* is the part of `[total]` no stage line accounts for, *start* the process's time outside",
        "the stages (interpreter start, imports, argument parsing: `-v`'s `[start]` line, and the process's",
        "exit after `[total]`).",
        "",
        "| program | regions | " + " | ".join(f"{t} s" for t in targets) + f" | {detail} CPU s | "
        + " | ".join(STAGES) + " | untimed | start |",
        "| --- | ---: | " + " | ".join("---:" for _ in targets) + " | ---: | "
        + " | ".join("---:" for _ in STAGES) + " | ---: | ---: |",
    ]
    for row in rows:
        lines.append(f"| {row['program']} | {row['regions']} | "
                     + " | ".join(seconds(row.get(t)) for t in targets) + f" | {cpu(row.get(detail))} | "
                     + " | ".join(stage_cells(row.get(detail))) + " |")
    sums = []
    for target in targets:
        sums.append(f"{sum(r[target]['seconds'] for r in rows if r.get(target) and r[target]['seconds']):.2f}")
    cpu_sum = sum(r["cuda"].get("cpu_seconds") or 0 for r in rows if r.get("cuda"))
    lines.append("| **sum** | | " + " | ".join(sums) + f" | {cpu_sum:.2f} |" + " |" * (len(STAGES) + 2))
    failed = [(r["program"], t) for r in rows for t in targets
              if r.get(t) and r[t]["status"] not in (0,)]
    if failed:
        lines += ["", "Runs that failed or timed out: " + ", ".join(f"{p} ({t})" for p, t in failed) + "."]
    for entry in profiles:
        lines += [
            "",
            f"### Profile: `{entry['program']}`, {entry['target']}",
            "",
            f"Under cProfile: {entry['wall_s']:.1f} s wall, {entry['total_s']:.1f} s profiled. polypragma's "
            "functions by cumulative time (a caller includes its callees):",
            "",
            "| function | calls | cumulative s | own s |",
            "| --- | ---: | ---: | ---: |",
        ]
        lines += [f"| `{e['name']}` | {e['calls']} | {e['cumulative_s']:.2f} | {e['own_s']:.2f} |"
                  for e in entry["cumulative"]]
        lines += ["", "By own time (an isl call counts as the own time of the function that makes it: islpy's",
                  "compiled methods do not appear apart; time in a forked child, the scheduler's, is not seen):",
                  "", "| function | calls | own s |", "| --- | ---: | ---: |"]
        lines += [f"| `{e['name']}` | {e['calls']} | {e['own_s']:.2f} |" for e in entry.get("own", [])]
    lines += ["", NOTES_HEADING, "", notes.strip() or "(none yet)", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--label", required=True, help="names the result files: compile_time_<label>.md/.json")
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds one polypragma run may take")
    parser.add_argument("--no-regressions", action="store_true",
                        help="only tests/kernels, not tests/differential/regressions")
    parser.add_argument("--only", help="a regular expression the programs' paths must match")
    parser.add_argument("--profile", type=int, default=3, metavar="N",
                        help="profile the N slowest cuda programs (0: none)")
    parser.add_argument("--profile-top", type=int, default=25, help="functions listed per profile")
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--option", action="append", default=[], metavar="OPTION", dest="options",
                        help="a polypragma option for every run (repeatable; e.g. --option=--no-unroll-copies)")
    args = parser.parse_args()
    targets = [t for t in args.targets.split(",") if t]
    if unknown := [t for t in targets if t not in TARGETS]:
        parser.error(f"unknown target(s) {', '.join(unknown)}")

    meta = {
        "label": args.label,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "commit": git("rev-parse", "--short", "HEAD"),
        "dirty": " (with uncommitted changes under polypragma/)" if git("status", "--porcelain", "polypragma") else "",
        "version": subprocess.run([sys.executable, "-m", "polypragma", "--version"], capture_output=True,
                                  text=True, cwd=TOP).stdout.strip(),
        "machine": machine(),
        "python": platform.python_version(),
        "pinning": "pinned to one core (`taskset -c 0`)" if pinned() else "not pinned (no taskset)",
        "load_start": load(),
        "command": "python bench/compile_time.py " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
        "targets": targets,
        "repeat": args.repeat,
        "limit_s": LIMIT_SECONDS,
    }
    rows = []
    for path in programs(not args.no_regressions, args.only):
        text = path.read_text()
        regions = len(re.findall(r"^\s*#\s*pragma\s+scop\b", text, re.M))
        row = {"program": str(path.relative_to(TOP / "tests")), "regions": regions, "defines": first_defines(path)}
        for target in targets:
            row[target] = measure(path, target, args.repeat, args.timeout, args.options)
            print(f"{row['program']:45} {target:6} {seconds(row[target]).strip('*'):>10}", flush=True)
        rows.append(row)

    def cuda_seconds(row: dict) -> float:
        run = row.get("cuda") or row.get(targets[0])
        return float("inf") if run["seconds"] is None else run["seconds"]

    rows.sort(key=lambda r: -cuda_seconds(r))
    profiles = []
    if "cuda" in targets:
        for row in [r for r in rows if r["cuda"]["status"] == 0][:args.profile]:
            print(f"profiling {row['program']} (cuda)", flush=True)
            profiles.append(profile(TOP / "tests" / row["program"], "cuda", args.profile_top, args.timeout * 3,
                                    args.options))
    meta["load_end"] = load()

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    md_path = out / f"compile_time_{args.label}.md"
    notes = ""
    if md_path.exists():
        _, found, kept = md_path.read_text().partition("\n" + NOTES_HEADING + "\n")
        notes = kept if found else ""
    (out / f"compile_time_{args.label}.json").write_text(
        json.dumps({"meta": meta, "programs": rows, "profiles": profiles}, indent=2) + "\n")
    md_path.write_text(markdown(meta, rows, profiles, notes))
    for target in targets:
        total = sum(r[target]["seconds"] for r in rows if r[target]["seconds"] is not None)
        print(f"{target}: {total:.2f} s over {len(rows)} programs")
    print(f"wrote {md_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
