"""The CUDA target's data layer (the host code every generated .cu carries: buffers from a pool, copies by
method, staging through pinned buffers) run here, without a GPU: compiled with g++ against
tests/data/cuda_mock/cuda_runtime.h, which does the runtime's calls on host memory and records the pinned
memory the code allocates and registers.  Every byte of each round trip is checked, under every copy
method, and so is the pinned memory the staged copies hold."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from polypragma.codegen import cuda_target

MOCK = Path(__file__).parent / "data" / "cuda_mock"
CXX = os.environ.get("CXX", "g++")
MIB = 1 << 20

pytestmark = pytest.mark.skipif(shutil.which(CXX) is None, reason="a C++ compiler is needed")


@pytest.fixture(scope="module")
def copies(tmp_path_factory) -> Path:
    """The round-trip program (tests/data/cuda_mock/copies.cpp) over the generated runtime."""
    work = tmp_path_factory.mktemp("cuda_runtime")
    (work / "prelude.cpp").write_text("\n".join(cuda_target.generate([], "copies.c")) + "\n")
    shutil.copy(MOCK / "copies.cpp", work / "copies.cpp")
    exe = work / "copies"
    subprocess.run([CXX, "-O1", "-std=c++17", "-Wall", "-Wno-unused-function", "-Wno-unused-variable", f"-I{MOCK}",
                    f"-I{work}", str(work / "copies.cpp"), "-o", str(exe), "-pthread"], check=True)
    return exe


def run(exe: Path, sizes, env=None, *first) -> list[tuple[int, ...]]:
    """Per size: (bytes, pinned allocations so far, pinned bytes held, largest pinned allocation,
    registrations so far)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("POLYPRAGMA_")}
    environment.update(env or {})
    result = subprocess.run([str(exe), *first, *map(str, sizes)], capture_output=True, text=True, timeout=120,
                            env=environment)
    assert result.returncode == 0, result.stdout + result.stderr
    return [tuple(int(x) for x in line.split()) for line in result.stdout.splitlines()]


# sizes about the 1M staging threshold and the chunks (and odd ones, so that chunks end anywhere)
SIZES = (1, 999, MIB - 1, MIB + 7, 3 * MIB + 1, 5 * MIB, 40 * MIB + 3, 2 * MIB, 12345)


@pytest.mark.parametrize("method", ["auto", "stage", "register", "pageable"])
@pytest.mark.parametrize("chunk", ["32M", "1M", "4097"])
def test_every_copy_method_moves_every_byte(copies, method, chunk):
    run(copies, SIZES, {"POLYPRAGMA_COPY": method, "POLYPRAGMA_STAGE_CHUNK": chunk})


def test_staging_buffers_grow_with_the_copies(copies):
    """A small staged copy page-locks 1M, not the two 32M chunks (about 25 ms on the H200 machine); the
    buffers grow to the power of two that holds each one's part of the largest copy so far, at most a
    chunk, and are reused by smaller copies."""
    rows = run(copies, (100, 5000, 3 * MIB, 40 * MIB, 1000, 40 * MIB), {"POLYPRAGMA_STAGE_MIN": "1"})
    held = {size: (allocations, pinned, largest) for size, allocations, pinned, largest, _ in rows}
    assert held[100] == (1, MIB, MIB) and held[5000] == (1, MIB, MIB)
    assert held[3 * MIB] == (2, 4 * MIB, 4 * MIB)  # buffer 0 grown: the whole copy is its part
    # 40M: buffer 0 to a chunk (32M), buffer 1 to the 8M that holds the rest
    assert held[40 * MIB] == (4, 40 * MIB, 32 * MIB)
    assert held[1000] == held[40 * MIB]  # (reused, as by the second 40M copy)
    assert rows[-1][1:4] == (4, 40 * MIB, 32 * MIB)
    # copies under the threshold (1M by default) go directly: nothing pinned
    assert {row[1] for row in run(copies, (100, MIB - 1))} == {0}
    # a chunk smaller than a megabyte bounds the buffers
    assert run(copies, (100, 10 * MIB), {"POLYPRAGMA_STAGE_MIN": "1", "POLYPRAGMA_STAGE_CHUNK": "4097"})[-1][1:4] \
        == (2, 2 * 4097, 4097)


def test_without_pinned_memory_the_copies_go_pageable(copies):
    rows = run(copies, SIZES, {"POLYPRAGMA_STAGE_MIN": "1"}, "fail-pinned")
    assert {row[1:4] for row in rows} == {(0, 0, 0)}


def test_registered_copies_pin_the_array_for_the_copy_alone(copies):
    rows = run(copies, (100, 3 * MIB), {"POLYPRAGMA_COPY": "register"})
    # (under the threshold: one cudaMemcpy; above it, registered for the upload and the download)
    assert [(row[0], row[4]) for row in rows] == [(100, 0), (3 * MIB, 2)]
    assert rows[-1][2] == 0  # nothing pinned is held after the copies


def test_a_scope_pins_its_arrays_from_the_register_threshold(copies):
    """POLYPRAGMA_REGISTER_MIN: a data scope's arrays of that many bytes or more are registered for the
    scope (polypragma_pin), and their copies go directly, with no staging buffer; smaller ones are staged."""
    rows = run(copies, (2 * MIB, 5 * MIB), {"POLYPRAGMA_REGISTER_MIN": "4M"}, "pin")
    assert [(row[0], row[1], row[4]) for row in rows] == [(2 * MIB, 1, 0), (5 * MIB, 1, 2)]
