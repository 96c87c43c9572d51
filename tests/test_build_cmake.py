"""The CMake package: examples/cmake_project configured, built and tested with ctest, incremental
rebuilds that follow polypragma's depfile, and the error paths seen from a build."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness import opencl_device

TOP = Path(__file__).resolve().parent.parent
EXAMPLE = TOP / "examples" / "cmake_project"
POLYPRAGMA = Path(sys.executable).with_name("polypragma")

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("ninja") is None,
                                reason="cmake and ninja are needed (.ci/run installs them)")


def cmake_dir() -> str:
    return subprocess.run([sys.executable, "-m", "polypragma", "--cmake-dir"], capture_output=True, text=True,
                          check=True).stdout.strip()


def configure(source: Path, build: Path, generator: str = "Ninja", *definitions: str, env=None) -> str:
    result = subprocess.run(["cmake", "-S", str(source), "-B", str(build), "-G", generator,
                             f"-DPolyPragma_DIR={cmake_dir()}", f"-DPOLYPRAGMA_EXECUTABLE={POLYPRAGMA}",
                             *definitions], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def build(build_dir: Path, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(["cmake", "--build", str(build_dir), "--", "-v" if (build_dir / "build.ninja").exists()
                           else "VERBOSE=1"], capture_output=True, text=True, env=env)


def ctest(build_dir: Path, env=None) -> str:
    environment = dict(os.environ, **(env or {}))
    result = subprocess.run(["ctest", "--output-on-failure"], cwd=build_dir, capture_output=True, text=True,
                            env=environment)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "100% tests passed" in result.stdout
    return result.stdout


def regenerated(log: str) -> set[str]:
    """The sources polypragma ran on in a build's verbose output."""
    return {Path(m).name for m in re.findall(r"polypragma\S*\s+(\S+\.c)\s+-o", log)}


def copy_example(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    return project


def test_ninja_build_passes_ctest_and_rebuilds_exactly(tmp_path):
    project = copy_example(tmp_path)
    out = tmp_path / "build"
    messages = configure(project, out)
    default = re.search(r"PolyPragma: generating for (\w+) by default", messages).group(1)
    if shutil.which("nvcc"):
        assert default == "cuda"
    first = build(out)
    assert first.returncode == 0, first.stdout + first.stderr
    assert regenerated(first.stdout) == {"heat.c", "saxpy.c"}
    assert "warning" not in first.stdout
    ctest(out)

    # nothing changed: nothing to do
    again = subprocess.run(["ninja", "-C", str(out)], capture_output=True, text=True)
    assert "no work to do" in again.stdout
    generated = out / "polypragma" / "src"
    dependencies = (generated / "heat.polypragma.d").read_text()
    assert str(project / "src" / "heat_params.h") in dependencies and "saxpy" not in dependencies
    # a header included by heat.c only: heat.c is regenerated and recompiled, saxpy.c is not touched
    (project / "src" / "heat_params.h").write_text((project / "src" / "heat_params.h").read_text() + "\n")
    touched = build(out)
    assert touched.returncode == 0, touched.stdout + touched.stderr
    assert regenerated(touched.stdout) == {"heat.c"}
    assert not re.search(r"-c \S*saxpy\.polypragma", touched.stdout)  # not recompiled either
    # a header both include: both
    (project / "include" / "physics.h").write_text((project / "include" / "physics.h").read_text() + "\n")
    assert regenerated(build(out).stdout) == {"heat.c", "saxpy.c"}

    # a different option changes the command, hence the outputs
    kernels = generated / ("heat.polypragma.cu" if default == "cuda" else "heat.polypragma.c")
    before = kernels.read_text()
    option = "--openmp" if default == "c" else "--tile-size=4,8;--block-size=4,8"
    configure(project, out, "Ninja", f"-DPHYSICS_POLYPRAGMA_OPTIONS={option}")
    changed = build(out)
    assert changed.returncode == 0, changed.stdout + changed.stderr
    assert option.split(";")[0] in changed.stdout and regenerated(changed.stdout) == {"heat.c", "saxpy.c"}
    assert kernels.read_text() != before
    ctest(out)


def test_makefiles_without_nvcc_fall_back_to_opencl_and_run_it(tmp_path):
    """No CUDA compiler on the PATH: the default is OpenCL when it is present (else C), said in a message;
    the OpenCL build runs its kernels on the OpenCL device (PoCL here) and matches the CPU."""
    project = copy_example(tmp_path)
    out = tmp_path / "build"
    path = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep)
                           if not (Path(d) / "nvcc").exists() and "cuda" not in d)
    env = {k: v for k, v in os.environ.items() if k not in ("CUDACXX", "CUDA_PATH", "CUDA_HOME")}
    env["PATH"] = path
    messages = configure(project, out, "Unix Makefiles", env=env)
    default = re.search(r"PolyPragma: generating for (\w+) by default \(([^)]*)\)", messages)
    assert default.group(1) in ("opencl", "c") and "no CUDA compiler" in default.group(2)
    first = build(out, env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert regenerated(first.stdout) == {"heat.c", "saxpy.c"}
    if default.group(1) == "opencl" and opencl_device() is None:
        ctest(out, {"POLYPRAGMA_DEVICE": "gpu"})  # fails unless the kernels ran on the device
    else:
        ctest(out)
    (project / "src" / "heat_params.h").write_text((project / "src" / "heat_params.h").read_text() + "\n")
    touched = build(out, env=env)
    assert touched.returncode == 0 and regenerated(touched.stdout) == {"heat.c"}
    # Makefiles do not track command lines: an options file, rewritten only when it changes, does
    configure(project, out, "Unix Makefiles", "-DPHYSICS_POLYPRAGMA_OPTIONS=--no-reschedule", env=env)
    changed = build(out, env=env)
    assert changed.returncode == 0, changed.stdout + changed.stderr
    assert "--no-reschedule" in changed.stdout and regenerated(changed.stdout) == {"heat.c", "saxpy.c"}
    configure(project, out, "Unix Makefiles", "-DPHYSICS_POLYPRAGMA_OPTIONS=--no-reschedule", env=env)
    assert regenerated(build(out, env=env).stdout) == set()  # configuring again changes nothing


UNSUPPORTED = """\
#include "values.h"
int count_positive(int n, double *a)
{
  int k = 0;
#pragma scop
  while (k < n && a[k] > LIMIT) {
    switch (k % 2) { default: if (a[k] > 100.0) break; k++; }
  }
#pragma endscop
  return k;
}
"""

MAIN = """\
#include <stdio.h>
int count_positive(int n, double *a);
int main(void) { double a[4] = {3, 2, -1, 5}; printf("%d\\n", count_positive(4, a)); return 0; }
"""


def test_unsupported_region_warns_and_a_polypragma_error_fails_the_build(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "values.h").write_text("#define LIMIT 0.0\n")
    (project / "count.c").write_text(UNSUPPORTED)
    (project / "main.c").write_text(MAIN)
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(errors C)\nfind_package(PolyPragma CONFIG REQUIRED)\n"
        "add_executable(app main.c count.c)\npolypragma_target_sources(app TARGET c SOURCES count.c)\n")
    out = tmp_path / "build"
    configure(project, out, "Ninja", "-DPOLYPRAGMA_TARGET=c")
    warned = build(out)
    assert warned.returncode == 0, warned.stdout + warned.stderr
    assert re.search(r"count\.c:7:\d+: warning: region left as written: 'switch' statement", warned.stdout)
    assert subprocess.run([str(out / "app")], capture_output=True, text=True).stdout == "2\n"

    (project / "count.c").write_text(UNSUPPORTED.replace("#pragma endscop\n", ""))
    failed = build(out)
    assert failed.returncode != 0
    assert re.search(r"count\.c:5:1: error: '#pragma scop' is never closed", failed.stdout), failed.stdout


def test_package_is_found_with_its_version(tmp_path):
    printed = subprocess.run([str(POLYPRAGMA), "--cmake-dir"], capture_output=True, text=True, check=True).stdout
    assert printed.strip() == cmake_dir() and (Path(cmake_dir()) / "PolyPragmaConfig.cmake").exists()
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(versions NONE)\n"
        "find_package(PolyPragma 0.1 CONFIG REQUIRED)\nmessage(STATUS \"found ${PolyPragma_VERSION}\")\n"
        "find_package(PolyPragma 999 CONFIG QUIET)\nmessage(STATUS \"999: ${PolyPragma_FOUND}\")\n")
    from polypragma import __version__

    messages = configure(tmp_path, tmp_path / "build", "Ninja", "-DPOLYPRAGMA_TARGET=c")
    assert f"found {__version__}" in messages and "999: 0" in messages


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_cuda_architectures_default_to_the_setuptools_hooks_unless_set(tmp_path):
    """CMake's own default is the compiler's oldest architecture (sm_75 with CUDA 13); the package builds
    for sm_80 and sm_90 with PTX, as the setuptools hook does, and keeps what the user sets."""
    project = copy_example(tmp_path)

    def code_flags(build_dir: Path) -> set[str]:
        return set(re.findall(r"--generate-code=(\S+)", (build_dir / "build.ninja").read_text()))

    configure(project, tmp_path / "default")
    assert code_flags(tmp_path / "default") == {"arch=compute_80,code=[sm_80]",
                                                "arch=compute_90,code=[compute_90,sm_90]"}
    configure(project, tmp_path / "chosen", "Ninja", "-DCMAKE_CUDA_ARCHITECTURES=86")
    assert code_flags(tmp_path / "chosen") == {"arch=compute_86,code=[compute_86,sm_86]"}
    environment = dict(os.environ, CUDAARCHS="89-real")
    configure(project, tmp_path / "environment", env=environment)
    assert code_flags(tmp_path / "environment") == {"arch=compute_89,code=[sm_89]"}
