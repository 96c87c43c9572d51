"""Compile a program with polypragma under one variant, run it, and compare with the original.

A variant is a target and an option set; ``variants_for`` draws a few from the families below:
the c target (sequential, original order, fusion min/max, OpenMP) and the opencl target (on PoCL
with POLYPRAGMA_DEVICE=gpu and --no-fp-contract) with random tile, block and grid sizes.

PoCL 3.1's optimiser miscompiles some right kernels with barriers (bench/differential.py lists the
families found).  An opencl program that prints wrong results or fails is run again with the OpenCL
compiler's optimisations off (POLYPRAGMA_OPENCL_OPTIONS=-cl-opt-disable): where that run is right for
every argument, the outcome is put down to the driver (``Outcome.driver``), reported apart and not a
failure; where it is wrong too, it is polypragma's."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field, replace
from pathlib import Path

from hypothesis import strategies as st

from harness import (UNOPTIMISED_KERNELS, compile_c, generated_path, outputs_match, polypragma_process, run,
                     run_configs)

C_OPTION_SETS = {
    "c": [],
    "c-no-reschedule": ["--no-reschedule"],
    "c-fusion-min": ["--fusion=min"],
    "c-fusion-max": ["--fusion=max"],
}
OPENCL_SCHEDULES = {"": [], "no-reschedule": ["--no-reschedule"], "fusion-min": ["--fusion=min"],
                    "fusion-max": ["--fusion=max"]}
# where the kernels keep their data: promotion on (the default), parts of it off, and a shared-memory
# budget so small that only some groups (or none) fit
OPENCL_MEMORY = {"": [], "no-shared": ["--no-shared-memory"], "no-private": ["--no-private-memory"],
                 "global-only": ["--no-shared-memory", "--no-private-memory", "--no-constant-memory"],
                 "shared-512": ["--max-shared-memory", "512"]}
RTOL = 1e-9
COMPILE_SECONDS = 60  # past this, a polypragma run is reported as slow (not compared)
# the scheduler's own bound (--schedule-timeout, 60 s by default) well inside COMPILE_SECONDS: a region
# isl cannot schedule in time keeps its original order and is still compared, instead of being slow
SCHEDULE_SECONDS = 20
# the same for a region's code (--codegen-timeout, 30 s by default): isl's AST of the c target, the GPU
# targets' GPU stage
CODEGEN_SECONDS = 20
SLOW = "slow: "
DRIVER = "driver: "  # wrong only with the OpenCL compiler's optimisations on
UNOPTIMISED = tuple(UNOPTIMISED_KERNELS.items())
TIMED_OUT = ": timed out"
KEPT = "kept the original schedule"
BOUNDED = "could not be built within"


@dataclass(frozen=True)
class Variant:
    name: str
    options: tuple[str, ...]
    cflags: tuple[str, ...] = ()
    libs: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    exact: bool = True  # byte-identical output required (the c target); else numbers to RTOL

    def describe(self) -> str:
        return f"{self.name}: polypragma {' '.join(self.options)}"


def c_variant(name: str, openmp: bool = False) -> Variant:
    options = ["--target", "c", *C_OPTION_SETS[name]]
    if openmp:
        return Variant(name + "-openmp", (*options, "--openmp"), ("-fopenmp",), env=(("OMP_NUM_THREADS", "3"),))
    return Variant(name, tuple(options))


def opencl_variant(schedule: str, tile=(), block=(), grid=(), memory: str = "") -> Variant:
    options = ["--target", "opencl", "--no-fp-contract", *OPENCL_SCHEDULES[schedule], *OPENCL_MEMORY[memory]]
    words = [schedule or "opencl", *([memory] if memory else [])]
    for flag, sizes in (("--tile-size", tile), ("--block-size", block), ("--grid-size", grid)):
        if sizes:
            options += [flag, ",".join(map(str, sizes))]
            words.append(f"{flag[2]}{'x'.join(map(str, sizes))}")
    return Variant("opencl-" + "-".join(words), tuple(options), libs=("-lOpenCL",),
                   env=(("POLYPRAGMA_DEVICE", "gpu"),), exact=False)


_sizes = st.lists(st.sampled_from([1, 2, 3, 4, 5, 7, 8, 16, 32]), min_size=1, max_size=3)


@st.composite
def opencl_variants(draw) -> Variant:
    schedule = draw(st.sampled_from(list(OPENCL_SCHEDULES)))
    tile = draw(st.one_of(st.just(()), _sizes))
    block = draw(st.one_of(st.just(()), _sizes))
    grid = draw(st.one_of(st.just(()), st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    memory = draw(st.sampled_from(list(OPENCL_MEMORY)))
    return opencl_variant(schedule, tuple(tile), tuple(block), tuple(grid), memory)


@st.composite
def c_variants(draw) -> Variant:
    return c_variant(draw(st.sampled_from(list(C_OPTION_SETS))), openmp=draw(st.booleans()))


@st.composite
def variants_for(draw, opencl: bool = True) -> list[Variant]:
    """The variants one program goes through: the c target with a random option set, opencl with
    random sizes, and one more of either kind."""
    chosen = [draw(c_variants())]
    if opencl:
        chosen.append(draw(opencl_variants()))
    chosen.append(draw(st.one_of(c_variants(), opencl_variants()) if opencl else c_variants()))
    return list(dict.fromkeys(chosen))


@dataclass
class Outcome:
    variant: Variant
    problem: str | None = None  # None when the outputs agree
    # why a region kept its original schedule, one reason a warning (the scheduler's bounds, a schedule
    # with coefficients past its domain's scale, the c target's --codegen-timeout)
    kept: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.problem is None

    @property
    def slow(self) -> bool:
        return self.problem is not None and self.problem.startswith(SLOW)

    @property
    def driver(self) -> bool:
        return self.problem is not None and self.problem.startswith(DRIVER)


@dataclass
class Checked:
    source: Path
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def failures(self) -> list[Outcome]:
        """Wrong results, crashes and diagnostics; not slow compilations, nor results wrong only where the
        OpenCL compiler optimised."""
        return [o for o in self.outcomes if not o.ok and not o.slow and not o.driver]


def reference_outputs(source: Path, workdir: Path) -> list[tuple[tuple[str, ...], str]]:
    """What the original program prints for each RUN line, compiled by gcc."""
    exe = workdir / "original"
    compile_c(source, exe)
    outputs = []
    for config in run_configs(source):
        result = run(exe, config.args, timeout=30)
        if result.returncode != 0:
            raise AssertionError(f"the original program failed on {config.args}: {result.stderr}")
        outputs.append((config.args, result.stdout))
    return outputs


def check_variant(source: Path, variant: Variant, expected, workdir: Path, recheck: bool = True) -> Outcome:
    outdir = workdir / variant.name
    outdir.mkdir(parents=True, exist_ok=True)
    try:
        options = variant.options
        if "--schedule-timeout" not in options:
            options += ("--schedule-timeout", str(SCHEDULE_SECONDS))
        if "--codegen-timeout" not in options:
            options += ("--codegen-timeout", str(CODEGEN_SECONDS))
        status, messages = polypragma_process(source, outdir, options, timeout=COMPILE_SECONDS)
    except subprocess.TimeoutExpired:
        return Outcome(variant, f"{SLOW}polypragma took more than {COMPILE_SECONDS} s")
    if "Traceback (most recent call last)" in messages:  # a crash of the compiler is a failure like any other
        return Outcome(variant, "polypragma crashed:\n" + messages)
    # the scheduler may give up on a region (isl cannot carry some dependences, or runs out of
    # operations): the original schedule is kept, which must still give the right results
    kept = tuple(line.split("): ", 1)[-1] for line in messages.splitlines() if KEPT in line)
    messages = "\n".join(line for line in messages.splitlines() if KEPT not in line)
    # a region whose code could not be built in time from either schedule is left as written: slow, as a
    # polypragma run past COMPILE_SECONDS (the GPU stage's isl AST build has stalled: program 10376)
    unbuilt = [line for line in messages.splitlines() if "region left as written" in line and BOUNDED in line]
    if unbuilt:
        return Outcome(variant, f"{SLOW}{unbuilt[0]}", kept=kept)
    return replace(_compared(source, variant, expected, outdir, status, messages, recheck), kept=kept)


def _compared(source: Path, variant: Variant, expected, outdir: Path, status: int, messages: str,
              recheck: bool) -> Outcome:
    """The outcome of a compilation that ended in time with ``status`` and ``messages``: its output's
    results against ``expected``."""
    if status != 0 or "warning" in messages or "error" in messages:
        return Outcome(variant, f"polypragma (status {status}): {messages.strip()}")
    generated = generated_path(source, outdir)
    if "/* polypragma: region " not in generated.read_text():
        return Outcome(variant, "the region was left as written")
    exe = outdir / "generated"
    try:
        compile_c(generated, exe, extra=variant.cflags, libs=variant.libs)
    except AssertionError as exc:
        return Outcome(variant, str(exc))
    problem = _run_all(exe, variant, expected, variant.env)
    # a time-out too: PoCL's optimiser has run for minutes building a kernel whose build without it
    # takes seconds, with the right results (a derandomised program of test_differential.py; the
    # same program before the kernel tree of issue 16 did the same)
    if problem and recheck and "-lOpenCL" in variant.libs:
        if _run_all(exe, variant, expected, variant.env + UNOPTIMISED) is None:
            return Outcome(variant, f"{DRIVER}{problem} (right with POLYPRAGMA_OPENCL_OPTIONS=-cl-opt-disable)")
    return Outcome(variant, problem)


def _run_all(exe: Path, variant: Variant, expected, env) -> str | None:
    """What is wrong with the program's output for the first RUN line it gets wrong, or None."""
    for args, want in expected:
        try:
            got = run(exe, args, env=dict(env), timeout=60)
        except subprocess.TimeoutExpired:
            return f"arguments {' '.join(args)}{TIMED_OUT}"
        if got.returncode != 0:
            return f"arguments {' '.join(args)}: exit status {got.returncode}: {got.stderr[-2000:]}"
        if variant.exact:
            difference = None if got.stdout == want else _first_difference(want, got.stdout)
        else:
            difference = outputs_match(want, got.stdout, rtol=RTOL, atol=RTOL)
        if difference is not None:
            return f"arguments {' '.join(args)}: {difference}"
    return None


def _first_difference(expected: str, got: str) -> str:
    for number, (a, b) in enumerate(zip(expected.splitlines(), got.splitlines()), start=1):
        if a != b:
            return f"line {number}: {b!r} instead of {a!r}"
    return f"{len(got.splitlines())} lines instead of {len(expected.splitlines())}"


def check(source: Path, variants: list[Variant], workdir: Path, recheck: bool = True) -> Checked:
    """Run ``source`` through every variant; the outcome of each.  ``recheck``: run a wrong opencl
    program again unoptimised, to tell the driver's miscompilations from polypragma's."""
    expected = reference_outputs(source, workdir)
    return Checked(source, [check_variant(source, v, expected, workdir, recheck) for v in variants])
