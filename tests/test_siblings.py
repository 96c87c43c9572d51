"""Independent parallel nests merged into one kernel (polypragma/gpu/siblings.py): which merge (two nests
that read an array in common, two one-dimensional nests) and which keep their kernels (nothing in common,
a dependence between them, --fusion min), and the merged programs against the original on PoCL, at sizes
where the tiles are whole and where they are cut.  The corpus's fdtd_2d.c and bicg.c run merged on every
target too."""

from __future__ import annotations

import pytest

from harness import WEIGH, explained_regions, generated_path, opencl_device, polypragma, program_output

SOURCE = """\
#include <stdio.h>
#include <stdlib.h>

/* fdtd-2d's step: ex and ey from hz, independent of each other, then hz from both */
static void step(int nx, int ny, double ex[nx][ny], double ey[nx][ny], double hz[nx][ny])
{
#pragma scop
    for (int i = 0; i < nx; i++)
        for (int j = 1; j < ny; j++)
            ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (int i = 1; i < nx; i++)
        for (int j = 0; j < ny; j++)
            ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (int i = 0; i < nx - 1; i++)
        for (int j = 0; j < ny - 1; j++)
            hz[i][j] = hz[i][j] - 0.25 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
#pragma endscop
}

/* two vectors of different lengths set: one launch for both */
static void starts(int n, int m, double *s, double *q)
{
#pragma scop
    for (int j = 0; j < m; j++)
        s[j] = 0.5 * j;
    for (int i = 0; i < n; i++)
        q[i] = 1.0 + i;
#pragma endscop
}

/* two matrices with nothing in common: a kernel each */
static void apart(int nx, int ny, double ex[nx][ny], double ey[nx][ny])
{
#pragma scop
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            ex[i][j] = ex[i][j] * 0.5;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            ey[i][j] = ey[i][j] + 2.0;
#pragma endscop
}

/* the second reads what the first wrote last: a kernel each */
static void chained(int nx, int ny, double ex[nx][ny], double ey[nx][ny], double hz[nx][ny])
{
#pragma scop
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            ex[i][j] = hz[i][j] * 0.5;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            ey[i][j] = hz[i][j] + ex[nx - 1][ny - 1];
#pragma endscop
}

""" + WEIGH + """\
int main(int argc, char **argv)
{
    int nx = atoi(argv[1]), ny = atoi(argv[2]);
    double (*ex)[ny] = malloc(sizeof(double) * nx * ny), (*ey)[ny] = malloc(sizeof(double) * nx * ny);
    double (*hz)[ny] = malloc(sizeof(double) * nx * ny);
    double *s = malloc(sizeof(double) * ny), *q = malloc(sizeof(double) * nx);
    unsigned seed = 5;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            seed = seed * 1103515245u + 12345u;
            ex[i][j] = (seed >> 8) % 1000 / 8.0;
            ey[i][j] = (double)((i * 7 + j * 3) % 19) - 9.0;
            hz[i][j] = (double)((i + 2 * j) % 13) / 4.0;
        }
    for (int t = 0; t < 3; t++)
        step(nx, ny, ex, ey, hz);
    printf("step %.17g %.17g %.17g\\n", weigh(nx * ny, &ex[0][0]), weigh(nx * ny, &ey[0][0]), weigh(nx * ny, &hz[0][0]));
    starts(nx, ny, s, q);
    printf("starts %.17g %.17g\\n", weigh(ny, s), weigh(nx, q));
    apart(nx, ny, ex, ey);
    printf("apart %.17g %.17g\\n", weigh(nx * ny, &ex[0][0]), weigh(nx * ny, &ey[0][0]));
    chained(nx, ny, ex, ey, hz);
    printf("chained %.17g %.17g\\n", weigh(nx * ny, &ex[0][0]), weigh(nx * ny, &ey[0][0]));
    return 0;
}
"""


def _line(statement: str) -> int:
    return next(k for k, line in enumerate(SOURCE.splitlines(), 1) if statement in line)


def test_independent_nests_that_read_one_array_run_in_one_kernel(tmp_path):
    """fdtd's ex and ey updates read hz and run in one kernel over both, whose shared tile of hz serves
    both, before hz's update; the two vectors' starts run in one launch; the nests with nothing in
    common, and those where one reads what the other wrote, keep their kernels.  Every output is the
    original's (sums of quarters and small integers: exact)."""
    if opencl_device():
        pytest.skip(opencl_device())
    source = tmp_path / "siblings.c"
    source.write_text(SOURCE)
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl", "--explain", "--no-fp-contract"])
    assert status == 0, messages
    step, starts, apart, chained = explained_regions(messages)
    ex, ey = _line("ex[i][j] = ex[i][j] - 0.5"), _line("ey[i][j] = ey[i][j] - 0.5")
    assert f"the nests of line(s) {ex}; {ey} are independent, each a band of parallel loops: they run in one " \
           f"kernel, which reads hz once" in step, step
    assert step.startswith("0: 2 kernel(s)") and f"kernel 0 (statements at line(s) {ex}, {ey})" in step, step
    assert "hz (4 reference(s), read" in step and "shared memory" in step.split("hz (4 reference(s)")[1], step
    assert "one launch instead of 2" in starts and starts.startswith("1: 1 kernel(s)"), starts
    for kept in (apart, chained):
        assert "are independent" not in kept and "2 kernel(s)" in kept, kept
    runs = ("1 1", "2 40", "33 70", "130 129")
    expected = program_output(source, tmp_path / "original", runs)
    assert program_output(generated_path(source, tmp_path / "out"), tmp_path / "merged", runs, ("-lOpenCL",)) \
        == expected
    # --fusion min: a kernel a nest
    status, messages = polypragma(source, tmp_path / "min", ["--target", "opencl", "--explain", "--fusion", "min"])
    assert status == 0 and "are independent" not in messages, messages
