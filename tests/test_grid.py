"""Blocks wrap around a kernel's tiles only where the tiles may be more than the grid, or a thread runs
several points of a tile (polypragma.gpu.mapping): the count of tiles along each mapped loop, for every
value the parameters' C types allow, against the grid; and programs whose blocks do and do not wrap, run on the OpenCL device
with more tiles along x than 65535 blocks."""

from __future__ import annotations

import pytest

from harness import assert_opencl_runs_as_original, opencl_device, polypragma

from polypragma import dependences
from polypragma.gpu.mapping import MOST_WRAPPED
from polypragma.gpu.region import prepare
from polypragma.gpu.sizes import GRID_X, SizeOptions
from polypragma.model import integer_range
from polypragma.schedule import ScheduleOptions, compute_schedule
from test_model import model, same

SCALE = "for (i = 0; i < n; i++)\n  for (j = 0; j < m; j++)\n    C[i][j] = C[i][j] * s;"


def kernel(tmp_path, params: str, sizes: SizeOptions = SizeOptions(tile=(32, 32), block=(32, 32))):
    scop = model(tmp_path, SCALE, f"{params}, double C[n][m], double s")
    deps = dependences.compute(scop)
    region = prepare(scop, compute_schedule(scop, deps, ScheduleOptions()).schedule, deps, sizes, "k.c")
    (found,) = region.mapping.kernels
    return found


def test_the_ranges_of_c_integer_types():
    assert integer_range("int") == (-2**31, 2**31 - 1)
    assert integer_range("unsigned") == integer_range("unsigned int") == (0, 2**32 - 1)
    assert integer_range("long long int") == integer_range("long") == (-2**63, 2**63 - 1)
    assert integer_range("unsigned short") == (0, 65535)
    assert integer_range("char") == (-128, 255)  # signed or not, as the platform has it
    assert integer_range("signed char") == (-128, 127)
    for other in ("double", "enum e", "struct s *", ""):
        assert integer_range(other) is None


def test_the_parameters_within_their_types(tmp_path):
    scop = model(tmp_path, SCALE, "int n, unsigned short m, double C[n][m], double s")
    assert same(scop.parameter_ranges(), "[n, m] -> { : 0 <= n <= 2147483647 and 0 <= m <= 65535 }")


def test_int_extents_wrap_along_y_only(tmp_path):
    # along x, at most 2**31 / 32 tiles: one block each; along y as many, more than 65535 blocks
    found = kernel(tmp_path, "int n, int m")
    assert found.wrapped == (True, False) and found.grid == (65535, GRID_X)
    assert same(found.tiling.block_congruence,
                "[b0, b1] -> { [g0, g1] : (g0 - b0) mod 65535 = 0 and g1 = b1 }")


def test_long_extents_wrap_along_both(tmp_path):
    # no bound: the blocks wrap along x too, around 65535 of them rather than CUDA's most
    found = kernel(tmp_path, "long n, long m")
    assert found.wrapped == (True, True) and found.grid == (65535, MOST_WRAPPED)


def test_short_extents_and_a_grid_the_user_set(tmp_path):
    # at most 2048 tiles either way: within the grid
    assert kernel(tmp_path, "unsigned short n, unsigned short m").wrapped == (False, False)
    # a grid of 2048 x 2047 blocks the user set: y fits, x may have one tile more, and wraps around 2047
    # blocks (a grid the user set is kept, however large)
    found = kernel(tmp_path, "unsigned short n, unsigned short m",
                   SizeOptions(tile=(32, 32), block=(32, 32), grid=(2048, 2047)))
    assert found.wrapped == (False, True) and found.grid == (2048, 2047)


def test_register_tiles_wrap(tmp_path):
    # 4 points of a tile a thread along y: the blocks wrap there, however few the tiles
    found = kernel(tmp_path, "unsigned short n, unsigned short m", SizeOptions(tile=(32, 32), block=(8, 32)))
    assert found.wrapped == (True, False)


COPY = """\
#include <stdio.h>
#include <stdlib.h>

static void scale(INDEX n, double *a, const double *b)
{
    INDEX i;
#pragma scop
    for (i = 0; i < n; i++)
        a[i] = 2.0 * b[i] + (double)(i % 7);
#pragma endscop
}

int main(int argc, char **argv)
{
    INDEX n = atol(argv[1]), i;
    double *a = calloc(n, sizeof *a), *b = malloc(n * sizeof *b);
    double sum = 0;
    for (i = 0; i < n; i++)
        b[i] = (double)((i * 37) % 101);
    scale(n, a, b);
    for (i = 0; i < n; i++)
        sum += a[i] * (double)(i % 13 + 1);
    printf("%.1f %.1f %.1f\\n", sum, a[0], a[n - 1]);
    return 0;
}
"""


@pytest.mark.parametrize("index, wrapped", [("int", False), ("long", True)])
def test_more_tiles_than_65535_blocks_run_once_each(index, wrapped, tmp_path):
    """A tile of one element a block: 70001 tiles along x, each its own block for an int extent, and
    wrapped around 65535 blocks for a long one (where the first 4466 blocks run two tiles)."""
    if opencl_device():
        pytest.skip(opencl_device())
    source = tmp_path / "copy.c"
    source.write_text(COPY)
    defines = [f"-DINDEX={index}"]
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl", "--no-fp-contract",
                                                             "--tile-size", "1", "--block-size", "1", "--explain"],
                                  defines)
    assert status == 0, messages
    along = "blocks wrap around the tiles along x" if wrapped else "one block a tile along x"
    assert along in messages, messages
    assert_opencl_runs_as_original(source, tmp_path / "out", defines, ["70001"])
