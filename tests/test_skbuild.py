"""examples/skbuild_extension: scikit-build-core finds polypragma's CMake package through the
cmake.root entry point (no path in the example), builds the module, and the module's tests pass."""

from __future__ import annotations

import shutil
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from venvs import copy_project, overlay_venv, pip_install, run_tests

TOP = Path(__file__).resolve().parent.parent
EXAMPLE = TOP / "examples" / "skbuild_extension"

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("ninja") is None,
                                reason="cmake and ninja are needed (.ci/run installs them)")


def test_the_entry_point_names_the_package_holding_the_cmake_config():
    (point,) = [p for p in entry_points(group="cmake.root") if p.name == "PolyPragma"]
    package = Path(point.load().__file__).parent
    assert (package / "cmake" / "PolyPragmaConfig.cmake").exists()


def test_example_installs_and_passes_its_tests(tmp_path):
    for name in ("CMakeLists.txt", "pyproject.toml"):
        assert "PolyPragma_DIR" not in (EXAMPLE / name).read_text()
    python = overlay_venv(tmp_path / "venv")
    project = copy_project(EXAMPLE, tmp_path / "project")
    installed = pip_install(python, project)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    log = installed.stdout + installed.stderr
    assert "PolyPragma: generating for" in log and "polypragma src/smooth.c" in log
    tested = run_tests(python, project)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "2 passed" in tested.stdout
