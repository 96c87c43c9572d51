"""polypragma.setuptools: examples/python_extension pip-installed into a temporary environment and its
tests run, with and without nvcc; offload() regenerates only when something it depends on changed."""

from __future__ import annotations

import io
import os
import shutil
from contextlib import redirect_stderr
from pathlib import Path

import pytest
from setuptools import Extension
from setuptools.errors import CompileError

from harness import opencl_device
from polypragma.buildtools.toolchain import architectures, gencode_flags
from polypragma.setuptools import offload
from venvs import copy_project, overlay_venv, pip_install, run_tests

TOP = Path(__file__).resolve().parent.parent
EXAMPLE = TOP / "examples" / "python_extension"


def test_example_installs_and_passes_its_tests(tmp_path):
    python = overlay_venv(tmp_path / "venv")
    project = copy_project(EXAMPLE, tmp_path / "project")
    installed = pip_install(python, project)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    expected = "cuda" if shutil.which("nvcc") else "opencl" if opencl_device() is None else None
    if expected:
        assert f"pp_blur: target {expected}" in installed.stdout + installed.stderr
    tested = run_tests(python, project)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "2 passed" in tested.stdout


@pytest.mark.skipif(opencl_device() is not None, reason="needs an OpenCL device (PoCL: .ci/run installs it)")
def test_without_nvcc_the_example_runs_its_loop_through_opencl(tmp_path):
    python = overlay_venv(tmp_path / "venv")
    project = copy_project(EXAMPLE, tmp_path / "project")
    installed = pip_install(python, project, env={"NVCC": str(tmp_path / "no-nvcc")})
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "pp_blur: target opencl (no nvcc; OpenCL headers and library found)" in installed.stdout + installed.stderr
    # POLYPRAGMA_DEVICE=gpu: the offloaded loop must run on the OpenCL device, not fall back
    tested = run_tests(python, project, env={"POLYPRAGMA_DEVICE": "gpu"})
    assert tested.returncode == 0, tested.stdout + tested.stderr


KERNEL = """\
#include "scale.h"
void scale(int n, double *x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    x[i] = FACTOR * x[i];
#pragma endscop
}
"""


def _offload(options=()):
    extension = Extension("scale", ["src/scale.c", "src/plain.c"])
    stream = io.StringIO()
    with redirect_stderr(stream):
        offload([extension], target="c", options=options)
    return extension, stream.getvalue()


def test_offload_regenerates_only_when_an_input_the_options_or_the_version_changed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "scale.h").write_text("#define FACTOR 2.0\n")
    (tmp_path / "src" / "scale.c").write_text(KERNEL)
    (tmp_path / "src" / "plain.c").write_text("int plain(void) { return 1; }\n")

    extension, said = _offload()
    generated = Path("build/polypragma/src/scale.polypragma.c")
    assert extension.sources == ["build/polypragma/src/scale.polypragma.c", "src/plain.c"]
    assert str(tmp_path / "src") in extension.include_dirs  # for #include "scale.h"
    assert "scale: target c (as requested)" in said and "(not generated yet)" in said
    assert "/* polypragma: region 0" in generated.read_text()

    def regenerated(options=()):
        before = generated.stat().st_mtime_ns
        _, said = _offload(options)
        return ("generating" in said) and generated.stat().st_mtime_ns != before, said

    assert regenerated() == (False, "polypragma: scale: target c (as requested)\n")
    future = generated.stat().st_mtime + 10
    os.utime("src/scale.h", (future, future))
    changed, said = regenerated()
    assert changed and "src/scale.h changed" in said
    changed, said = regenerated(["--no-reschedule"])
    assert changed and "the options changed" in said
    generated.write_text(generated.read_text().replace("polypragma 0", "polypragma 00", 1))
    changed, said = regenerated(["--no-reschedule"])
    assert changed and "made by another polypragma version" in said


def test_offload_stops_with_polypragma_diagnostic(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "scale.h").write_text("#define FACTOR 2.0\n")
    (tmp_path / "src" / "scale.c").write_text(KERNEL.replace("#pragma endscop\n", ""))
    (tmp_path / "src" / "plain.c").write_text("int plain(void) { return 1; }\n")
    stream = io.StringIO()
    with redirect_stderr(stream), pytest.raises(CompileError, match="polypragma failed on src/scale.c"):
        offload([Extension("scale", ["src/scale.c"])], target="c")
    assert "src/scale.c:4:1: error: '#pragma scop' is never closed" in stream.getvalue()


def test_cuda_architectures_default_to_current_gpus_with_ptx():
    assert gencode_flags(architectures(None)) == [
        "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90",
        "-gencode", "arch=compute_90,code=compute_90"]
    assert architectures("sm_75; 86") == ("75", "86")
