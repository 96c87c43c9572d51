"""The long profile of the differential test: many random programs through polypragma's targets,
each compared with the original compiled by gcc (see tests/differential/).

    .venv/bin/python bench/differential.py --programs 2000 --jobs 1

Programs come from the hypothesis strategies of tests/differential/generator.py with a fixed seed,
so a run is reproducible; each program goes through three variants (the c target with a random
option set, the opencl target on an OpenCL device with random sizes, and one more of either).  An
opencl result that is wrong only where the OpenCL driver optimised (right again with
POLYPRAGMA_OPENCL_OPTIONS=-cl-opt-disable) is counted and listed as the driver's, not as a failure.
Writes bench/results/differential.md and .json; a failing program is copied to
bench/results/differential_failures/ with the variant that broke it.  ``--shrink`` replays the
same programs one by one and lets hypothesis shrink the first failure to a minimal program; ``--start N``
skips the first N programs drawn, to go on with a run stopped there."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(TOP / "tests"), str(TOP / "tests" / "differential")]

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from generator import programs  # noqa: E402
from harness import opencl_device  # noqa: E402
from runner import COMPILE_SECONDS, DRIVER, SLOW, check, variants_for  # noqa: E402

RESULTS = TOP / "bench" / "results"
KNOWN_PROBLEMS = """\
* Compile time, fixed: on `differential_slow_compile.c` polypragma spent 38 s of CPU for the opencl target with
  `--fusion=max` (148 s with `--tile-size 3 --block-size 2`), nearly all in isl's AST build of the tiled kernel.
  The tile origin was the exact minimum (`dim_min`) of the kernel's schedule range: with a strided loop whose
  start moves with an outer iterator (`i1 = i0 - 2; i1 += 3`) it is a piecewise expression with up to nine cases
  and existential variables, and it went into every tile and point expression of the kernel schedule.  Tiles now
  start at the lower bound of the range's simple hull (one convex piece made of the pieces' own constraints),
  and the grid covers the hull (gpu/mapping.py, `_bound`, used by the kernel schedule and by the memory
  tiling; the exact bound where the hull is unbounded): any lower bound gives correct tiles.  Now 5.6 s and
  7.2 s of CPU, 3 s of which in the memory analysis's boxes (gpu/boxes.py `tile_box`, the exact bounds of a tile's
  elements); without the memory hierarchy (commit 1d536d0) it was 37 s and 161 s before, 1.2 s and 4.7 s after.
  User time of `polypragma bench/results/differential_slow_compile.c --target opencl --fusion=max
  [--tile-size 3 --block-size 2] -I tests/kernels`, before and after on the same machine.  The generator still
  gives strided loops starts free of outer iterators, and the runner still reports a polypragma run over 60 s
  as slow (not compared) instead of waiting.
* Crash, fixed: isl's compute_flow failed ("affine expression involves some of the domain dimensions",
  isl_domain_factor_templ.c) on a valid program with modulo guards and min/max bounds where a read has two
  competing must-writes, with the schedule tree and the flattened schedule map alike, so the region was left as
  written (tests/differential/regressions/compute_flow_crash.c, an xfail test until then).  When compute_flow
  fails, dependences.py now computes the dataflow itself: the last must-write before each read is one
  lexicographic maximum over schedule times, may-writes after it are sources too; this is exact (checked
  against a brute-force simulation of the program).  The regression passes with `--target c --no-reschedule
  --openmp`, and the program gives the right results with `--target opencl` on PoCL.  Still open on that
  program: isl's scheduler does not finish within its 60 s timeout (the original schedule is kept, with a
  warning; the regression test bounds its plain c variant's scheduler to 10 s); and where compute_flow does
  not fail, on its output dependences, its answer differs from the brute-force simulation (some true output
  dependences are missing).
* Compile time, fixed: programs 217 and 218 of seed 6 (opencl, `--fusion=max --grid-size 4`) kept polypragma in
  isl's AST build for more than 15 minutes: kernels were built in the atomic form (one loop per level, guards
  inside), whose simplification of the guards over the union of pieces went into huge numbers in isl's gist.
  The default form takes seconds there, while the atomic form is what keeps conditions.c's wrapped kernel at
  20 KB instead of 157 KB.  build_kernel_ast (codegen/ast_build.py) now bounds the atomic form to 6,000,000
  isl operations and builds the default form past it: 30 s and 39 s, results equal to the original
  (tests/differential/regressions/atomic_ast_blowup.c).  The runner's 60 s bound was then a SIGALRM in the
  process, which cannot interrupt a long call inside isl: such a hang stopped a worker, which is how these were
  found.  Each polypragma run of the runner is now a process of its own, killed at the bound.
* Compile time, fixed: a program of seed 6 (about 248) took more than five minutes in every target, all in isl's
  compute_flow for its anti dependences (writes as sinks, reads as may-sources; 20,000,000 isl operations were
  not enough).  Each compute_flow is now bounded to 5,000,000 operations (polypragma/dependences.py
  `FLOW_OPERATIONS`, about 5 s); past it the lexicographic-maximum form answers (0.05 s there), and past its
  own bound the conservative form (every earlier access a source, every read may see the value from before
  the region).  The c target now takes about 10 s of CPU (tests/differential/regressions/dataflow_blowup.c).
  No region of the corpus (tests/kernels) goes past the bound, so their dependences are unchanged.
* Wrong code, fixed: a kernel launch passed host dimension j as the host loop iterator c<j>.  Where isl's AST of
  the host code has no loop for that dimension (it takes one value there), c<j> was undeclared (programs
  396-398: the file did not compile) or was the iterator of another loop in scope (programs 554-555: the kernels
  ran for the wrong instances, wrong results).  The launch's host dimensions and tile counts are now written by
  isl where the kernel stands, from the kernel's instances (codegen/host.py, `host_ast`; regressions
  `host_loop_of_one_iteration.c`, `host_dimension_of_another_loop.c`).
* Wrong code, fixed: isl's AST build wrote a wrong guard, `(a2 + 1) % 3` where `(n + 1) % 3` was meant, in a
  kernel with register promotion whose schedule listed its parameters in another order than the AST's context
  (program 454: a thread skipped its writes).  build_kernel_ast gives both one order first
  (`ast_parameter_order.c`).
* Wrong results on PoCL, not polypragma's: with shared-memory tiles, PoCL 3.1's optimised build skipped a
  statement of a kernel whose tile loop body ends with a barrier after a guarded copy-out loop (programs
  660-666: a printf in the kernel showed a guard on get_local_id(0) taken by every work-item).  The kernel is
  right with PoCL's optimisations off (`-cl-opt-disable`) and with `POCL_WORK_GROUP_METHOD=workitemrepl`.
  Moving that barrier in front of the copy-in fixed these programs but broke fdtd_2d and floyd_warshall under
  PoCL's default method (heap corruption), so the generated code stays; `pocl_loops_skips_statement.c` runs
  unoptimised.
* Wrong code, fixed: program 758 (opencl, default options): isl's atomic form of a kernel's AST started a
  strided loop (step 2) at 0 where the statement's domain holds only the values of one parity of a host
  dimension, so the statement also ran at the values in between, for instances it had already run.  Found by
  running the kernel's code for every work-item in C and listing the instances each form runs (n = 4, T = 3:
  140 in the atomic form, 114 in the default form, whose results are right).  build_kernel_ast now builds a
  dimension where the atomic form has a strided loop in isl's default form, except the loops that wrap tiles
  around the grid and points around a block (their residue is the same for every statement); the corpus's
  generated code is unchanged (`atomic_kernel_wrong.c`, no longer xfail).
* Wrong results on PoCL, not polypragma's: programs 995-998 (opencl, `--tile-size 3`, a shared-memory tile
  with piecewise offsets): the values of B vary from run to run on PoCL, also with one PoCL thread.  Built
  with `-cl-opt-disable` the kernel gives the original's results, and so does its code run with one POSIX
  thread per work-item and pthread barriers, its local arrays poisoned before each work-group, also under
  AddressSanitizer.  Affine tile offsets (PPCG's) avoided it here but made PoCL run nussinov and syrk wrong
  instead, so they were reverted; `shared_tile_unwritten.c` runs unoptimised (an XFAIL test until then).
* Both PoCL families are wrong only in PoCL's optimised build, so the runner now tells them apart itself: an
  opencl program with wrong results (or a failed run) is run again with `POLYPRAGMA_OPENCL_OPTIONS=
  -cl-opt-disable`, and if that run is right for every argument the variant is counted as the driver's, listed
  above, and not as a failure.  A race or undefined behaviour in a generated kernel that only PoCL's optimiser
  exposes would be counted there too, which is why each of them is listed.
* Compile time, fixed: program 1516 of seed 6 (opencl, `--fusion=max --no-shared-memory --tile-size 8,5
  --block-size 7,8 --grid-size 3,3`) took polypragma more than 200 s, none of it stopped by isl's operation
  bounds: 62 s in the pairs of neighbouring threads (gpu/memory.py `_step`, which composed every statement
  of the kernel with every other, where each use needs a statement with itself: now one statement at a
  time, 12 s), 28 s in the register test's `is_injective` on a map full of the tiles' existential variables
  (21 s for one array; with `detect_equalities` and `coalesce` first, milliseconds) and 70 s in isl's atomic
  AST of one kernel (11 s with the schedule so simplified first, codegen/ast_build.py).  Now 25 s, results
  right.  The simplified schedule changes the CUDA code of 7 of the corpus's 84 kernel builds (default and
  wrapped sizes; 6 smaller, bounds_minmax 90 bytes larger), and their build time from 189 s to 177 s in all.
* Compile time, not fixed: programs 1157-1163 of seed 6 (`--fusion=max` and `--fusion=min`): isl's scheduler
  does not finish within polypragma's `--schedule-timeout` (60 s by default), so the region keeps its original
  order after a minute, and the runner, which stops a polypragma run at 60 s, reported them slow.  The runner
  now passes `--schedule-timeout 20`, so such programs are compared with their original order.
* Bugs found and fixed, each with a regression in tests/differential/regressions/: the extents of a
  variable-length array named only in its declaration were not parameters, so the GPU targets left the region
  as written (`vla_extent_not_in_region.c`); math functions of int values were ambiguous in OpenCL kernels
  (`math_of_int_in_kernel.c`); the frontend fuzzer found that a file that is not UTF-8 got a diagnostic
  without a location (tests/test_frontend_fuzz.py)."""


def draw_cases(count: int, random_seed: int, opencl: bool) -> list[tuple[str, list]]:
    """``count`` programs with their variants, the same for the same seed."""
    cases: list[tuple[str, list]] = []

    @seed(random_seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.tuples(programs(), variants_for(opencl=opencl)))
    def collect(case):
        program, variants = case
        cases.append((program.source(), variants))

    collect()
    return cases


def with_options(cases: list[tuple[str, list]], options: list[str]) -> list[tuple[str, list]]:
    """``cases`` with ``options`` added to each OpenCL variant (named with them)."""
    if not options:
        return cases
    return [(source, [replace(v, name=f"{v.name} {' '.join(options)}", options=(*v.options, *options))
                      if "--target" in v.options and v.options[v.options.index("--target") + 1] == "opencl" else v
                      for v in variants]) for source, variants in cases]


def run_case(index_case) -> dict:
    index, (source, variants) = index_case
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="differential-") as workdir:
        path = Path(workdir) / f"program{index}.c"
        path.write_text(source)
        try:
            checked = check(path, variants, Path(workdir))
            outcomes = [(o.variant.describe(), o.problem) for o in checked.outcomes]
            kept = [(o.variant.describe(), reason) for o in checked.outcomes for reason in o.kept]
        except AssertionError as exc:  # the original program itself failed: a generator bug
            outcomes, kept = [("original (gcc)", str(exc))], []
    return {"index": index, "source": source, "outcomes": outcomes, "kept": kept,
            "seconds": time.perf_counter() - started}


# why a region kept its original schedule (runner.Outcome.kept), by the words of polypragma's warning
KEPT_REASONS = (("the scheduler did not finish", "the scheduler's time"),
                ("the scheduler exceeded its bound", "the scheduler's operations"),
                ("the scheduler failed", "isl's scheduler failing (unable to carry dependences, say)"),
                ("isl's schedule has a coefficient", "coefficients past the domain's scale"),
                ("(--codegen-timeout)", "the c target's code generation time"))


def kept_reason(reason: str) -> str:
    return next((name for words, name in KEPT_REASONS if words in reason), "other")


def _failed(problem: str | None) -> bool:
    return problem is not None and not problem.startswith((SLOW, DRIVER))


def _of(kind: str, results: list[dict]) -> list[tuple[int, str, str]]:
    return [(r["index"], d, p) for r in results for d, p in r["outcomes"] if p and p.startswith(kind)]


def write_results(args, results: list[dict], wall: float, opencl_why: str | None, planned: int) -> dict:
    failures = [r for r in results if any(_failed(problem) for _, problem in r["outcomes"])]
    variants = sum(len(r["outcomes"]) for r in results)
    failed_variants = sum(1 for r in results for _, problem in r["outcomes"] if _failed(problem))
    slow = _of(SLOW, results)
    driver = _of(DRIVER, results)
    families: dict[str, int] = {}
    for r in results:
        for description, _ in r["outcomes"]:
            family = description.split(":")[0].split("-")[0]
            families[family] = families.get(family, 0) + 1
    kept = [(r["index"], d, reason) for r in results for d, reason in r.get("kept", [])]
    kept_by_reason = Counter(kept_reason(reason) for _, _, reason in kept)
    command = "bench/differential.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    summary = {
        "command": command,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "seed": args.seed,
        "first_program": args.start,
        "programs": len(results),
        "programs_planned": planned,
        "variants": variants,
        "variants_by_target": families,
        "failed_programs": len(failures),
        "failed_variants": failed_variants,
        "slow_variants": len(slow),
        "driver_variants": len(driver),
        "kept_original_schedule": len(kept),
        "kept_original_schedule_by_reason": dict(sorted(kept_by_reason.items())),
        "wall_seconds": round(wall, 1),
        "jobs": args.jobs,
        "opencl": opencl_why or "available",
        "failures": [{"index": r["index"], "problems": [(d, p) for d, p in r["outcomes"] if _failed(p)]}
                     for r in failures],
        "slow": [{"index": i, "variant": d} for i, d, _ in slow],
        "driver": [{"index": i, "variant": d, "problem": p[len(DRIVER):]} for i, d, p in driver],
        "kept": [{"index": i, "variant": d, "reason": reason} for i, d, reason in kept],
    }
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    (out / "differential.json").write_text(json.dumps(summary, indent=2) + "\n")
    lines = [
        "# Differential testing: long profile", "",
        f"`{command}`, {summary['date']}, {args.jobs} job(s), seed {args.seed}"
        + (f", programs {args.start} to {args.start + planned - 1} of those drawn" if args.start else "")
        + (f"; in progress: {len(results)} of {planned} programs so far." if len(results) < planned else "."), "",
        "| programs | variants | by target | failed programs | failed variants | slow variants "
        "| driver's variants | wall time |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        f"| {len(results)} | {variants} | {', '.join(f'{k} {v}' for k, v in sorted(families.items()))} "
        f"| {len(failures)} | {failed_variants} | {len(slow)} | {len(driver)} | {wall:.0f} s |", "",
        f"A slow variant is a polypragma run that took more than {COMPILE_SECONDS} s; it is not compared.  A "
        "driver's variant is an opencl program whose results were wrong as the OpenCL driver (PoCL) optimised "
        "it and right, for every argument, with its optimisations off (`POLYPRAGMA_OPENCL_OPTIONS="
        "-cl-opt-disable`): the driver's miscompilation, not a failure.", "",
        f"{len(kept)} region(s) kept their original schedule, with a warning, and were compared so"
        + (": " + ", ".join(f"{n} for {name}" for name, n in sorted(kept_by_reason.items())) if kept else "")
        + ".", "",
    ]
    if opencl_why:
        lines += [f"The opencl target did not run: {opencl_why}.", ""]
    failed_dir = out / "differential_failures"
    if failures:
        failed_dir.mkdir(exist_ok=True)
        lines += ["## Failures", ""]
        for r in failures:
            name = f"program{r['index']}.c"
            notes = "".join(f"// FAILED {d}\n//   {p.splitlines()[0]}\n" for d, p in r["outcomes"] if _failed(p))
            (failed_dir / name).write_text(notes + r["source"])
            for description, problem in r["outcomes"]:
                if _failed(problem):
                    lines.append(f"* `{name}`, {description}: {problem.splitlines()[0][:300]}")
        lines.append("")
    if driver:
        lines += ["## Wrong only where the driver optimised", ""]
        lines += [f"* program {i}, {d}: {p[len(DRIVER):].splitlines()[0][:300]}" for i, d, p in driver]
        lines.append("")
    if kept:
        lines += ["## Regions that kept their original schedule", ""]
        lines += [f"* program {i}, {d}: {reason[:300]}" for i, d, reason in kept]
        lines.append("")
    lines += ["## Known problems", "", KNOWN_PROBLEMS, ""]
    (out / "differential.md").write_text("\n".join(lines))
    return summary


def shrink(args) -> None:
    """Replay the programs in order; hypothesis shrinks the first that fails and prints it."""

    @seed(args.seed)
    @settings(max_examples=args.programs, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.tuples(programs(), variants_for(opencl=opencl_device() is None)))
    def replay(case):
        program, variants = case
        source = program.source()
        with tempfile.TemporaryDirectory(prefix="differential-") as workdir:
            path = Path(workdir) / "program.c"
            path.write_text(source)
            failures = check(path, variants, Path(workdir)).failures
        assert not failures, "\n".join(f"{f.variant.describe()}\n{f.problem}" for f in failures) + "\n" + source

    replay()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--start", type=int, default=0,
                        help="skip the first START programs drawn (to go on with a run stopped there)")
    parser.add_argument("--output", default=str(RESULTS))
    parser.add_argument("--shrink", action="store_true", help="shrink the first failing program instead")
    parser.add_argument("--opencl-options", default="", metavar="OPTIONS",
                        help="polypragma options added to every OpenCL variant (one string, e.g. "
                             "--opencl-options=--vector-copies): the programs and variants drawn stay those of the "
                             "seed, so a program's number still names it")
    args = parser.parse_args()
    if args.shrink:
        shrink(args)
        return 0
    opencl_why = opencl_device()
    started = time.perf_counter()
    cases = with_options(draw_cases(args.programs, args.seed, opencl_why is None), shlex.split(args.opencl_options))
    print(f"{len(cases)} programs drawn in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    results = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        chosen = list(enumerate(cases))[args.start:]
        for done, result in enumerate(pool.map(run_case, chosen, chunksize=1), start=1):
            results.append(result)
            if any(p for _, p in result["outcomes"]):
                print(f"program {result['index']}: {[(d, p[:200]) for d, p in result['outcomes'] if p]}",
                      file=sys.stderr, flush=True)
            if done % 50 == 0:  # results so far, so that an interrupted run still says what it did
                print(f"{done}/{len(chosen)} programs, {time.perf_counter() - started:.0f} s", file=sys.stderr,
                      flush=True)
                write_results(args, results, time.perf_counter() - started, opencl_why, len(chosen))
    summary = write_results(args, results, time.perf_counter() - started, opencl_why, len(chosen))
    print(f"{summary['programs']} programs, {summary['variants']} variants, {summary['failed_variants']} failed",
          file=sys.stderr)
    return 1 if summary["failed_variants"] else 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "3")
    sys.exit(main())
