"""Expected-line checks of the corpus kernels (FileCheck style, tests/filecheck.py): each kernel with
``// CHECK-CUDA:``, ``// CHECK-OPENCL:`` or ``// CHECK-C:`` lines is generated for that target with the
-D options of its ``// CHECK-DEFINES:`` line, or else of its first ``// RUN:`` line, and the checks are
applied to the generated file, so that the shape of the generated code cannot change silently."""

from __future__ import annotations

import re

import pytest

from filecheck import CheckError, match, parse_checks, unknown_directives, without_directives
from harness import kernel_paths, polypragma, run_configs

DEFINES = re.compile(r"^// CHECK-DEFINES:(.*)$", re.M)

# prefix -> (target, the generated file the checks read)
OUTPUTS = {
    "CHECK-CUDA": ("cuda", ".polypragma.cu"),  # the kernels and the host function
    "CHECK-OPENCL": ("opencl", ".polypragma.c"),  # the host code, and the kernels as string literals
    "CHECK-C": ("c", ".polypragma.c"),
}

CASES = [(path, prefix) for path in kernel_paths() for prefix in OUTPUTS
         if parse_checks(path.read_text(), prefix, path.name)]


@pytest.mark.parametrize("path, prefix", CASES, ids=[f"{p.stem}-{x[6:].lower()}" for p, x in CASES])
def test_expected_lines(path, prefix, tmp_path):
    target, suffix = OUTPUTS[prefix]
    chosen = DEFINES.search(path.read_text())
    defines = chosen.group(1).split() if chosen else run_configs(path)[0].defines
    status, messages = polypragma(path, tmp_path, ["--target", target], defines)
    assert status == 0, messages
    output = tmp_path / (path.name[:-2] + suffix)
    checks = parse_checks(path.read_text(), prefix, f"tests/kernels/{path.name}")
    try:
        match(checks, without_directives(output.read_text()), f"tests/kernels/{path.name}", output.name)
    except CheckError as failure:  # FileCheck's message says it all; the matcher's traceback would not help
        pytest.fail(str(failure), pytrace=False)


def test_some_kernels_have_checks():
    assert {prefix for _, prefix in CASES} >= {"CHECK-CUDA", "CHECK-C"}


@pytest.mark.parametrize("path", kernel_paths(), ids=lambda p: p.stem)
def test_check_lines_are_spelled_right(path):
    # a misspelt directive (CHECK-CUDA-NXT:, CHECK-CL:) would check nothing, silently
    assert unknown_directives(path.read_text(), [*OUTPUTS, "CHECK-DEFINES"]) == []
