"""The CMake package: a project replaces a target's source with polypragma's output."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness import KERNELS, compile_c, run

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("ninja") is None,
                                reason="cmake and ninja are needed (.ci/run installs them)")

PROJECT = """\
cmake_minimum_required(VERSION 3.20)
project(demo C)
find_package(PolyPragma CONFIG REQUIRED)
add_executable(gemm src/gemm.c)
target_include_directories(gemm PRIVATE src)
target_link_libraries(gemm PRIVATE m)
polypragma_target_sources(gemm SOURCES src/gemm.c)
"""


def test_cmake_function_builds_the_generated_source(tmp_path):
    (tmp_path / "src").mkdir()
    for name in ("gemm.c", "kernels.h"):
        shutil.copy(KERNELS / name, tmp_path / "src" / name)
    (tmp_path / "CMakeLists.txt").write_text(PROJECT)
    executable = Path(sys.executable).with_name("polypragma")
    cmake_dir = subprocess.run([sys.executable, "-m", "polypragma", "--cmake-dir"], capture_output=True, text=True,
                               check=True).stdout.strip()
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(build), "-G", "Ninja", f"-DPolyPragma_DIR={cmake_dir}",
                    f"-DPOLYPRAGMA_EXECUTABLE={executable}"], check=True, capture_output=True)
    result = subprocess.run(["ninja", "-C", str(build)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    generated = build / "polypragma" / "src" / "gemm.polypragma.c"
    assert generated.read_text().count("/* polypragma: region ") == 1
    compile_c(tmp_path / "src" / "gemm.c", tmp_path / "original")
    args = ["3", "13", "11", "17"]
    assert run(build / "gemm", args).stdout == run(tmp_path / "original", args).stdout
    # nothing to do when nothing changed; the source changing regenerates
    assert "no work to do" in subprocess.run(["ninja", "-C", str(build)], capture_output=True, text=True).stdout
    (tmp_path / "src" / "gemm.c").write_text((tmp_path / "src" / "gemm.c").read_text() + "\n")
    rebuilt = subprocess.run(["ninja", "-C", str(build), "-v"], capture_output=True, text=True).stdout
    assert "polypragma" in rebuilt and "gemm.polypragma.c" in rebuilt
