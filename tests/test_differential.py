"""Differential testing, fast profile: random static-control programs (tests/differential/generator.py)
through polypragma's c target (with and without OpenMP) and opencl target (on PoCL) under random
option sets, each compared with the original program compiled by gcc.  Hypothesis runs with a fixed
derandomised seed, so the programs are the same on every run; a failure is shrunk to a small program.

The long profile is bench/differential.py.  Programs that once failed are kept, with the variant
that broke them, in tests/differential/regressions/ (see test_regression)."""

from __future__ import annotations

import re
import sys
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).parent / "differential"))

from generator import programs  # noqa: E402
from harness import opencl_device  # noqa: E402
from runner import Variant, c_variant, check, variants_for  # noqa: E402

REGRESSIONS = Path(__file__).parent / "differential" / "regressions"
PROFILE = settings(max_examples=14, derandomize=True, database=None, deadline=None,
                   suppress_health_check=list(HealthCheck))


def _check(program, variants) -> None:
    source = program.source()
    with tempfile.TemporaryDirectory(prefix="differential-") as workdir:
        path = Path(workdir) / "program.c"
        path.write_text(source)
        failures = check(path, variants, Path(workdir)).failures
    assert not failures, "\n".join(f"{f.variant.describe()}\n  {f.problem}" for f in failures) + "\n" + source


@PROFILE
@given(program=programs(), variants=variants_for(opencl=False))
def test_random_programs_c_target(program, variants):
    _check(program, variants)


@pytest.mark.skipif(opencl_device() is not None, reason=str(opencl_device()))
@PROFILE
@given(program=programs(), variants=variants_for(opencl=True))
def test_random_programs_opencl_target(program, variants):
    _check(program, variants)


def _recorded_variants(path: Path) -> list[Variant]:
    """``// VARIANT: <polypragma options>`` lines of a regression program, and the plain c target (its
    scheduler bounded to 10 s: past that the region keeps its original order, still a valid check).
    ``// ENV: NAME=VALUE`` lines are set for the recorded variants' programs.  A regression is checked as
    recorded: a wrong opencl result fails it even where the unoptimised build would be right."""
    plain = c_variant("c")
    variants = [Variant(plain.name, (*plain.options, "--schedule-timeout", "10"))]
    text = path.read_text()
    extra = tuple(tuple(m.group(1).strip().split("=", 1)) for m in re.finditer(r"^// ENV:(.*)$", text, re.M))
    for index, match in enumerate(re.finditer(r"^// VARIANT:(.*)$", text, re.M)):
        options = tuple(match.group(1).split())
        opencl = "opencl" in options
        env = (("POLYPRAGMA_DEVICE", "gpu"),) if opencl else (("OMP_NUM_THREADS", "3"),)
        variants.append(Variant(f"recorded{index}", options, ("-fopenmp",) if "--openmp" in options else (),
                                ("-lOpenCL",) if opencl else (), env + extra, exact=not opencl))
    return variants


@pytest.mark.parametrize("path", sorted(REGRESSIONS.glob("*.c")), ids=lambda p: p.stem)
def test_regression(path, tmp_path, request):
    known = re.search(r"^// XFAIL:(.*)$", path.read_text(), re.M)
    if known:  # a bug found and not fixed yet: the test says so until it is
        request.applymarker(pytest.mark.xfail(reason=known.group(1).strip(), strict=True))
    variants = _recorded_variants(path)
    assert len(variants) > 1, f"{path.name} has no VARIANT line"
    if any(not v.exact for v in variants) and opencl_device() is not None:
        pytest.skip(str(opencl_device()))
    failures = check(path, variants, tmp_path, recheck=False).failures
    assert not failures, "\n".join(f"{f.variant.describe()}\n  {f.problem}" for f in failures)


def test_a_region_that_kept_its_original_schedule_is_compared_and_its_reason_kept(tmp_path):
    """polypragma's warning that a region kept its original schedule is no failure: the variant is
    compared, and the outcome keeps the reason (bench/differential.py counts them)."""
    checked = check(REGRESSIONS / "carry_coefficients.c", [c_variant("c")], tmp_path)
    (outcome,) = checked.outcomes
    assert outcome.ok, outcome.problem
    assert len(outcome.kept) == 1 and outcome.kept[0].startswith("isl's schedule has a coefficient of 2058 ("), \
        outcome.kept


def test_a_compilation_past_the_bound_is_stopped_and_reported_slow(tmp_path, monkeypatch):
    """The runner kills a polypragma run past its bound, wherever it is (inside isl included), so one
    slow program cannot stop a long profile; it is reported as slow, not as a mismatch."""
    import runner

    monkeypatch.setattr(runner, "COMPILE_SECONDS", 0.01)
    source = REGRESSIONS / "math_of_int_in_kernel.c"
    started = time.perf_counter()
    checked = check(source, [c_variant("c")], tmp_path)
    assert time.perf_counter() - started < 30
    assert checked.outcomes[0].slow and not checked.failures, checked.outcomes[0].problem


def test_a_region_whose_code_cannot_be_built_in_time_is_reported_slow(tmp_path):
    """A region whose GPU code could not be built within --codegen-timeout from either schedule is left as
    written, with a warning: slow, as a run past the runner's bound (differential program 10376's kernel
    AST stalled in isl), not a failure."""
    import runner

    variant = runner.Variant("opencl-tiny-bound", ("--target", "opencl", "--codegen-timeout", "0.001"),
                             libs=("-lOpenCL",), exact=False)
    checked = check(REGRESSIONS / "math_of_int_in_kernel.c", [variant], tmp_path)
    (outcome,) = checked.outcomes
    assert outcome.slow and not checked.failures, outcome.problem
    assert "region left as written: the GPU code of the region could not be built within 0.001 s" \
        in outcome.problem, outcome.problem


def _faulty_opencl(monkeypatch):
    """The regression program math_of_int_in_kernel.c, its opencl variant, and ``fault(change,
    optimised_only)``, which makes runner.run apply ``change(real_run, exe, args, env, timeout)`` to that
    variant's runs: all of them, or (``optimised_only``) those with the driver's optimisations on."""
    import runner

    if opencl_device() is not None:
        pytest.skip(str(opencl_device()))
    real_run = runner.run
    source = REGRESSIONS / "math_of_int_in_kernel.c"
    opencl = next(v for v in _recorded_variants(source) if not v.exact)

    def fault(change, optimised_only: bool) -> None:
        def fake(exe, args=(), env=None, timeout=60):
            if exe.parent.name == opencl.name and not (optimised_only and "POLYPRAGMA_OPENCL_OPTIONS" in env):
                return change(real_run, exe, args, env, timeout)
            return real_run(exe, args, env=env, timeout=timeout)
        monkeypatch.setattr(runner, "run", fake)

    return source, opencl, fault


def _wrong(real_run, exe, args, env, timeout):
    got = real_run(exe, args, env=env, timeout=timeout)
    got.stdout = "wrong\n"
    return got


def _hangs(real_run, exe, args, env, timeout):
    raise subprocess.TimeoutExpired(str(exe), timeout)


def test_wrong_results_only_when_the_driver_optimises_are_put_down_to_it(tmp_path, monkeypatch):
    """An opencl program whose results are wrong with the OpenCL compiler's optimisations on and right
    with them off is a driver's miscompilation, reported apart; wrong both ways, it is a failure."""
    source, opencl, fault = _faulty_opencl(monkeypatch)
    for name in "abcd":
        (tmp_path / name).mkdir()
    fault(_wrong, optimised_only=True)
    outcome = check(source, [opencl], tmp_path / "a").outcomes[0]
    assert outcome.driver and not check(source, [opencl], tmp_path / "b").failures, outcome.problem
    assert "-cl-opt-disable" in outcome.problem
    assert check(source, [opencl], tmp_path / "c", recheck=False).failures
    fault(_wrong, optimised_only=False)
    assert check(source, [opencl], tmp_path / "d").failures


def test_a_build_the_driver_never_finishes_only_when_it_optimises_is_put_down_to_it(tmp_path, monkeypatch):
    """An opencl program that times out with the OpenCL compiler's optimisations on and is right with
    them off is the driver's too; timing out both ways, it is a failure."""
    source, opencl, fault = _faulty_opencl(monkeypatch)
    for name in "ab":
        (tmp_path / name).mkdir()
    fault(_hangs, optimised_only=True)
    outcome = check(source, [opencl], tmp_path / "a").outcomes[0]
    assert outcome.driver and "timed out" in outcome.problem and "-cl-opt-disable" in outcome.problem
    fault(_hangs, optimised_only=False)
    assert check(source, [opencl], tmp_path / "b").failures
