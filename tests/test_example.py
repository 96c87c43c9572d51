"""examples/run_example.py (what scripts/example runs): the best backend for the machine, its results
checked against the original program, and polypragma's, the compilers' and the run's times apart."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness import opencl_device

TOP = Path(__file__).resolve().parent.parent
EXAMPLE = TOP / "examples" / "run_example.py"
TIMES = re.compile(r"\(polypragma [\d.]+ s, compilers [\d.]+ s; run [\d.]+ s, ")


def example(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(EXAMPLE), *arguments], capture_output=True, text=True, timeout=300)


def test_a_machine_without_gpu_gets_openmp_with_times_apart():
    result = example("60")
    assert result.returncode == 0, result.stdout + result.stderr
    backend = re.search(r"^backend: (.*?); results match the original program$", result.stdout, re.M)
    assert backend, result.stdout
    assert TIMES.search(result.stdout), result.stdout
    if "CUDA: not available here" in result.stdout and "no OpenCL GPU here" in result.stdout:
        # OpenCL on a CPU device (PoCL) spends seconds compiling the kernel at start-up: OpenMP is faster
        assert backend.group(1) == "C with OpenMP", result.stdout


@pytest.mark.skipif(opencl_device() is not None, reason="needs an OpenCL device (PoCL: .ci/run installs it)")
def test_a_backend_can_be_chosen():
    result = example("60", "--backend", "opencl")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "backend: OpenCL; results match the original program" in result.stdout
    assert "the driver's kernel compilation and transfers included" in result.stdout
