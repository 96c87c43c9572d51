"""Compile and run C programs before and after polypragma, and compare what they print."""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
from contextlib import redirect_stderr
from dataclasses import dataclass
from pathlib import Path

import pytest

# the tests import them from here
from outputs import kernel_absolute_tolerance, kernel_tolerance, outputs_match  # noqa: F401
from polypragma.cli import main as polypragma_main

KERNELS = Path(__file__).parent / "kernels"
CC = os.environ.get("CC", "gcc")
CFLAGS = ["-O2", "-std=gnu11", "-fno-fast-math", "-ffp-contract=off"]
# added to CFLAGS for the generated programs of a test's variants other than its first (the corpus suites',
# test_memory's opencl runs), which builds them with CFLAGS as users do.  An opencl program carries its
# runtime: gcc -O2 took 0.55 s on bicg.c's, -O0 0.2 s, and gcc on the opencl default variant's programs
# took 56 of its 245 CPU-seconds at -O2, 24 at -O0.  A correct program prints the same at either level
# (x86-64's SSE arithmetic, contraction off)
UNOPTIMISED = ["-O0"]
# tiles larger than blocks and not multiples of them, and a grid smaller than the tile count
WRAP_SIZES = ["--tile-size", "5,7,6", "--block-size", "2,3,4", "--grid-size", "2,3,2"]


# the environment that builds an opencl program's kernels without the OpenCL compiler's optimisations
UNOPTIMISED_KERNELS = {"POLYPRAGMA_OPENCL_OPTIONS": "-cl-opt-disable"}


def opencl_run_env(cflags=()) -> dict[str, str]:
    """The environment of a generated opencl program's runs in the tests: on the device
    (POLYPRAGMA_DEVICE=gpu), and where the program was built with :data:`UNOPTIMISED`, its kernels built
    without the OpenCL compiler's optimisations too (:data:`UNOPTIMISED_KERNELS`).  PoCL's build of the
    kernels, a few times per program, was half of test_opencl's time with a cold kernel cache (gemm, bicg,
    jacobi_2d and adi with the wrap sizes: 33.8 s of runs against 15.8 s of polypragma), and -cl-opt-disable
    halves it; the first variant's kernels are built with the optimisations, as a user's are (PoCL 3.1's
    optimiser miscompiles some right kernels: tests/differential/runner.py)."""
    env = {"POLYPRAGMA_DEVICE": "gpu"}
    if list(cflags) == UNOPTIMISED:
        env.update(UNOPTIMISED_KERNELS)
    return env


@dataclass(frozen=True)
class RunConfig:
    defines: tuple[str, ...]
    args: tuple[str, ...]


def run_configs(path: Path) -> list[RunConfig]:
    """The ``// RUN: <-D flags> -- <arguments>`` lines at the top of a kernel."""
    configs = []
    for line in path.read_text().splitlines():
        match = re.match(r"\s*//\s*RUN:(.*)$", line)
        if not match:
            continue
        flags, _, args = match.group(1).partition("--")
        configs.append(RunConfig(tuple(shlex.split(flags)), tuple(shlex.split(args))))
    return configs


def kernel_paths() -> list[Path]:
    # (not polypragma's own output, which a command without -o, as the README shows, writes next to them)
    return sorted(p for p in KERNELS.glob("*.c") if not p.name.endswith(".polypragma.c"))


def variant_cases(variants: dict[str, tuple], restricted: dict[str, tuple], rotations=()) -> list:
    """pytest's cases ``(path, *values)`` of the corpus kernels under test variants: each of ``variants``
    ({name: values}) on every kernel, each of ``restricted`` ({name: (values, kernels, baseline)}: a variant
    that changes the code of ``kernels`` only, leaving the others' as the variant ``baseline`` makes it) on
    its kernels.  Each of ``rotations`` (tuples of those names) shares its variants' kernels among them, in
    turn: the kernel at place ``p`` among those any of them runs on (in the corpus's order) runs the
    ``p % n``-th of the ``n`` of them that run on it.  A name in ``kernels`` that is no corpus kernel's is
    an error (a kernel renamed), and so is a name in ``rotations`` that is no variant's."""
    paths = kernel_paths()
    stems = {p.stem for p in paths}
    for name, (_, kernels, _) in restricted.items():
        if not set(kernels) <= stems:
            raise ValueError(f"variant {name}: no corpus kernel named {sorted(set(kernels) - stems)}")
    every = {name: (values, stems) for name, values in variants.items()}
    every.update((name, (values, set(kernels))) for name, (values, kernels, _) in restricted.items())
    turn: dict[tuple[str, str], bool] = {}  # (variant, kernel) -> whether the variant runs on it
    for rotation in rotations:
        if not set(rotation) <= every.keys():
            raise ValueError(f"rotation {rotation}: no variant named {sorted(set(rotation) - every.keys())}")
        shared = [p.stem for p in paths if any(p.stem in every[name][1] for name in rotation)]
        for place, stem in enumerate(shared):
            mine = [name for name in rotation if stem in every[name][1]]
            for k, name in enumerate(mine):
                turn[name, stem] = k == place % len(mine)
    return [pytest.param(path, *values, id=f"{path.stem}-{name}")
            for path in paths
            for name, (values, kernels) in every.items()
            if path.stem in kernels and turn.get((name, path.stem), True)]


def compile_c(source: Path, exe: Path, defines=(), extra=(), include=(KERNELS,), libs=()) -> None:
    command = [CC, *CFLAGS, *[f"-I{d}" for d in include], *defines, *extra, str(source), "-o", str(exe), *libs, "-lm"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"compilation failed: {' '.join(command)}\n{result.stderr}")


def run(exe: Path, args=(), env=None, timeout=60) -> subprocess.CompletedProcess:
    environment = dict(os.environ)
    environment.update(env or {})
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout, env=environment)


def program_output(source: Path, exe: Path, runs: tuple[str, ...] = ("",), libs: tuple[str, ...] = ()) -> str:
    """``source`` compiled (with ``libs``), and what it prints run with each of ``runs`` (arguments
    separated by spaces), one after the other; a failed run fails the test."""
    compile_c(source, exe, libs=list(libs))
    outputs = []
    for arguments in runs:
        result = run(exe, arguments.split(), timeout=60)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout)
    return "".join(outputs)


# a C function through which test programs print an array: a weighted sum, which tells a permutation or
# a wrong element from the original's values (end a program's source before its main with it)
WEIGH = """\
static double weigh(int n, const double *v)
{
    double r = 0.0;
    for (int i = 0; i < n; i++)
        r += v[i] * (i % 11 + 1);
    return r;
}

"""


def explained_regions(messages: str) -> list[str]:
    """--explain's report per region, in order."""
    return messages.split("note: region ")[1:]


# the GPU stage's time limit of the tests' runs (--codegen-timeout), unless their options give one: the
# command's 30 s is near what the slowest corpus kernels take on a loaded 2-core machine (conditions.c's
# register tiles of 7x8 took 54 s beside another suite), past which it keeps the original schedule and warns,
# so a test's result would depend on the machine's load
CODEGEN_TIMEOUT = "600"


def polypragma_argv(source: Path, outdir: Path, options=(), defines=(), include=(KERNELS,)) -> list[str]:
    """The command's arguments: the c target unless ``options`` name one, and the GPU stage's time limit
    :data:`CODEGEN_TIMEOUT` unless they give one."""
    target = [] if any(o == "--target" or o.startswith("--target=") for o in options) else ["--target", "c"]
    limit = [] if any(o.startswith("--codegen-timeout") for o in options) else ["--codegen-timeout", CODEGEN_TIMEOUT]
    return [str(source), "-o", str(outdir), *[f"-I{d}" for d in include], *target, *limit, *options, *defines]


def polypragma(source: Path, outdir: Path, options=(), defines=(), include=(KERNELS,)) -> tuple[int, str]:
    """Run the command in-process; return its exit status and what it printed on stderr."""
    stream = io.StringIO()
    with redirect_stderr(stream):
        status = polypragma_main(polypragma_argv(source, outdir, options, defines, include))
    return status, stream.getvalue()


def polypragma_process(source: Path, outdir: Path, options=(), timeout: float | None = None) -> tuple[int, str]:
    """Run the command in a process of its own, killed after ``timeout`` seconds (subprocess.TimeoutExpired):
    unlike an alarm in this process, that also stops a long call inside isl."""
    command = [sys.executable, "-m", "polypragma", *polypragma_argv(source, outdir, options)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    return result.returncode, result.stderr


# C: ``count`` elements of ``size`` bytes that end where a page the program may not touch starts (mmap,
# mprotect), so that a copy past the last one stops the program (with <stdlib.h>, <sys/mman.h>, <unistd.h>)
FENCED = """\
static void *fenced(long count, long size)
{
    long page = sysconf(_SC_PAGESIZE), bytes = count * size;
    long pages = (bytes + page - 1) / page;
    char *base = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED || mprotect(base + pages * page, page, PROT_NONE) != 0)
        exit(2);
    return base + pages * page - bytes;
}
"""

# the targets a generated program runs on here, by name: the command's options, the libraries it links
TARGETS = {"c": (("--target", "c"), ()), "openmp": (("--target", "c", "--openmp"), ("-fopenmp",)),
           "opencl": (("--target", "opencl", "--no-fp-contract"), ("-lOpenCL",))}


def generated_for(source: Path, outdir: Path, target: str) -> Path:
    """``source`` through polypragma for ``target`` (a name of TARGETS), which must say nothing; the
    generated file.  The test is skipped where opencl programs cannot run."""
    if target == "opencl" and opencl_device():
        pytest.skip(opencl_device())
    status, messages = polypragma(source, outdir, list(TARGETS[target][0]))
    assert status == 0 and messages == "", messages
    return generated_path(source, outdir)


def generated_path(source: Path, outdir: Path) -> Path:
    return outdir / (source.name[:-2] + ".polypragma.c")


_opencl_state: dict = {}


def opencl_device() -> str | None:
    """Why OpenCL programs cannot run here, or None when an OpenCL device is present."""
    if "why" not in _opencl_state:
        import tempfile

        probe = ("#define CL_TARGET_OPENCL_VERSION 120\n#include <CL/cl.h>\n"
                 "int main(void) { cl_uint n = 0; cl_platform_id p; cl_device_id d;\n"
                 "  if (clGetPlatformIDs(1, &p, &n) != CL_SUCCESS || n == 0) return 1;\n"
                 "  return clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL) != CL_SUCCESS; }\n")
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "probe.c"
            source.write_text(probe)
            built = subprocess.run([CC, str(source), "-o", f"{tmp}/probe", "-lOpenCL"], capture_output=True)
            if built.returncode != 0:
                why = "no OpenCL headers or library (install ocl-icd-opencl-dev)"
            elif subprocess.run([f"{tmp}/probe"]).returncode != 0:
                why = "no OpenCL device (install pocl-opencl-icd)"
            else:
                why = None
        _opencl_state["why"] = why
    return _opencl_state["why"]


# kernels the GPU targets leave as written, and the diagnostic that says why
LEFT_AS_WRITTEN = {
    # kernels have no _Float16: that region is left as written, the other generated
    "extended_types": "extended_types.c:15:23: warning: region left as written: value of type '_Float16'",
    # kernels have no version of a library's functions
    "external_calls": "external_calls.c:53:9: warning: region left as written: call to 'printf' is not supported",
    # a memset of a byte other than 0 into ints is no loop that stores a value: region 1 stays as written
    "memory_calls": "memory_calls.c:75:5: warning: region left as written: call to 'memset' is not supported by "
                    "the GPU targets: 'memset' is left as a call: it sets each byte of 'int' elements to '1'",
}


def assert_opencl_runs_as_original(source: Path, outdir: Path, defines, args, tolerance: float = 1e-12) -> None:
    """The program polypragma generated from ``source`` into ``outdir`` (opencl), built and run with
    ``args`` on the OpenCL device (POLYPRAGMA_DEVICE=gpu), prints what the original prints, within
    ``tolerance`` (relative and absolute)."""
    exe, original = outdir.parent / f"{outdir.name}.exe", outdir.parent / f"{outdir.name}.orig.exe"
    compile_c(generated_path(source, outdir), exe, defines, libs=["-lOpenCL"])
    compile_c(source, original, defines)
    expected = run(original, args)
    got = run(exe, args, env=opencl_run_env())
    assert got.returncode == 0, got.stderr
    assert expected.returncode == 0, expected.stderr
    assert outputs_match(expected.stdout, got.stdout, tolerance, tolerance) is None
