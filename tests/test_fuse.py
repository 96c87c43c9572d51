"""Reductions that read one matrix alike, fused into one kernel (polypragma/gpu/fuse.py) with the statements
that use it alike: which regions fuse and which keep their kernels, and the fused programs against the
original on PoCL, at sizes where the tiles are whole and where they are cut.  The corpus's bicg.c, mvt.c and
gemver.c run fused on every target too."""

from __future__ import annotations

import pytest

from harness import WEIGH, explained_regions, generated_path, opencl_device, polypragma, program_output

SOURCE = """\
#include <stdio.h>
#include <stdlib.h>

/* bicg: s = A^T r and q = A p, each sum in its own nest */
static void both(int n, int m, double A[n][m], double *r, double *p, double *s, double *q)
{
#pragma scop
    for (int j = 0; j < m; j++)
        s[j] = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s[j] += r[i] * A[i][j];
    for (int i = 0; i < n; i++) {
        q[i] = 1.0;
        for (int j = 0; j < m; j++)
            q[i] += A[i][j] * p[j];
    }
#pragma endscop
}

/* the second sum reads the first: one cannot run beside the other */
static void chained(int n, int m, double A[n][m], double *r, double *s, double *q)
{
#pragma scop
    for (int j = 0; j < m; j++) {
        s[j] = 0.0;
        for (int i = 0; i < n; i++)
            s[j] += r[i] * A[i][j];
    }
    for (int i = 0; i < n; i++) {
        q[i] = 0.0;
        for (int j = 0; j < m; j++)
            q[i] += A[i][j] * s[j];
    }
#pragma endscop
}

/* the second sum starts from a value of the first, which must be complete first */
static void started(int n, int m, double A[n][m], double *r, double *p, double *s, double *q)
{
#pragma scop
    for (int j = 0; j < m; j++)
        s[j] = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s[j] += r[i] * A[i][j];
    for (int i = 0; i < n; i++) {
        q[i] = s[0];
        for (int j = 0; j < m; j++)
            q[i] += A[i][j] * p[j];
    }
#pragma endscop
}

/* A read along its rows by one sum and down its columns by the other (mvt), and a use of both after
   them: the scheduler fuses the three into one band, which reads A[j][i] down a column */
static void transposed(int n, double A[n][n], double *y1, double *y2, double *x1, double *x2, double *u)
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x1[i] = x1[i] + A[i][j] * y1[j];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x2[i] = x2[i] + A[j][i] * y2[j];
    for (int i = 0; i < n; i++)
        u[i] = 2.0 * x1[i] - x2[i];
#pragma endscop
}

""" + WEIGH + """\
int main(int argc, char **argv)
{
    int n = atoi(argv[1]), m = atoi(argv[2]), k = n > m ? n : m;
    double (*A)[m] = malloc(sizeof(double) * n * m), (*B)[k] = malloc(sizeof(double) * k * k);
    double *r = malloc(sizeof(double) * k), *p = malloc(sizeof(double) * k), *s = malloc(sizeof(double) * k);
    double *q = malloc(sizeof(double) * k), *x1 = malloc(sizeof(double) * k), *x2 = malloc(sizeof(double) * k);
    double *u = malloc(sizeof(double) * k);
    unsigned seed = 11;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            seed = seed * 1103515245u + 12345u;
            A[i][j] = (seed >> 8) % 1000 / 8.0;
        }
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            B[i][j] = (double)((i * 7 + j * 3) % 19) - 9.0;
    for (int i = 0; i < k; i++) {
        seed = seed * 1103515245u + 12345u;
        r[i] = (double)((seed >> 8) % 9) - 4.0;
        p[i] = (double)(i % 5) - 2.0;
        x1[i] = i % 3;
        x2[i] = -(i % 4);
    }
    both(n, m, A, r, p, s, q);
    printf("both %.17g %.17g\\n", weigh(m, s), weigh(n, q));
    chained(n, m, A, r, s, q);
    printf("chained %.17g %.17g\\n", weigh(m, s), weigh(n, q));
    started(n, m, A, r, p, s, q);
    printf("started %.17g %.17g\\n", weigh(m, s), weigh(n, q));
    transposed(k, B, r, p, x1, x2, u);
    printf("transposed %.17g %.17g %.17g\\n", weigh(k, x1), weigh(k, x2), weigh(k, u));
    return 0;
}
"""


def test_reductions_that_read_one_matrix_alike_run_in_one_kernel(tmp_path):
    """bicg's two sums fuse into one kernel that maps both loops, after the kernels of their
    initialisations; the chained and the started sums keep their own kernels (a dependence between the
    sums, and one from the first sum to the second's start); mvt's sums fuse, reading A transposed, and
    the use of both runs after them.  Every output is the original's (sums of eighths and small
    integers: exact in any order)."""
    if opencl_device():
        pytest.skip(opencl_device())
    source = tmp_path / "fused.c"
    source.write_text(SOURCE)
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl", "--explain", "--no-fp-contract"])
    assert status == 0, messages
    both, chained, started, transposed = explained_regions(messages)
    assert "the reductions of line(s) 12, 16 read A alike" in both, both
    # (the initialisations, independent one-dimensional nests, in one kernel before it: gpu/siblings.py)
    assert both.startswith("0: 2 kernel(s)") and "kernel 1 (statements at line(s) 12, 16)" in both, both
    assert "its loops carry only the reductions fused into it and are all mapped" in both, both
    assert "A (2 reference(s), read, line(s) 12, 16): global memory: no reuse within a tile but at one point" \
        in both, both
    for kept in (chained, started):
        assert "read A alike" not in kept and "fused into it" not in kept, kept
    assert "the reductions of line(s) 62, 65 read A alike" in transposed, transposed
    assert "kernel 0 (statements at line(s) 62, 65)" in transposed and "kernel 1 (statements at line(s) 67)" \
        in transposed, transposed
    runs = ("1 1", "70 3", "33 100", "600 130", "129 517")
    expected = program_output(source, tmp_path / "original", runs)
    assert program_output(generated_path(source, tmp_path / "out"), tmp_path / "fused", runs, ("-lOpenCL",)) \
        == expected


@pytest.mark.parametrize("options", [["--tile-size", "64"], ["--no-reductions"], ["--fusion", "min"], ["-DSMALL"]],
                         ids=["sizes", "no-reductions", "fusion-min", "small"])
def test_what_keeps_the_kernels_apart(tmp_path, options):
    """Sizes the user set name the kernels as they are, --no-reductions keeps the sums in order, --fusion
    min asks for no fusion, and sums over constant extents of 40 would not spread over threads: no
    fusion."""
    if opencl_device():
        pytest.skip(opencl_device())
    text = SOURCE
    if options == ["-DSMALL"]:
        text = text.replace("static void both(int n, int m,", "#define n 40\n#define m 40\nstatic void both(int nn, int mm,")
        text = text.replace("/* the second sum reads the first", "#undef n\n#undef m\n/* the second sum reads the first")
    source = tmp_path / "apart.c"
    source.write_text(text)
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl", "--explain", "--no-fp-contract",
                                                            *[o for o in options if o != "-DSMALL"]])
    assert status == 0, messages
    regions = explained_regions(messages)
    assert "read A alike" not in regions[0], regions[0]
    # (the transposed sums fuse where only the first region is made small)
    assert ("read A alike" in regions[3]) == (options == ["-DSMALL"]), regions[3]


UPDATES = """\
#include <stdio.h>
#include <stdlib.h>

/* gemver: A updated, then summed down its columns, then a sum that needs x complete */
static void updated(int n, double A[n][n], double *u, double *v, double *x, double *y, double *z, double *w)
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = A[i][j] + u[i] * v[j];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x[i] = x[i] + 0.5 * A[j][i] * y[j];
    for (int i = 0; i < n; i++)
        x[i] += z[i];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            w[i] = w[i] + A[i][j] * x[j];
#pragma endscop
}

/* the sum reads A before the update: at each element, the sum first */
static void summed_first(int n, double A[n][n], double *u, double *x, double *y)
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x[i] += A[i][j] * y[j];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = A[i][j] * 0.5 + u[j];
#pragma endscop
}

/* the update reads another matrix transposed: not alike, so it keeps its kernel */
static void crossed(int n, double A[n][n], double B[n][n], double *x, double *y)
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = A[i][j] + B[j][i];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x[i] += A[i][j] * y[j];
#pragma endscop
}

""" + WEIGH + """\
int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double (*A)[n] = malloc(sizeof(double) * n * n), (*B)[n] = malloc(sizeof(double) * n * n);
    double *u = malloc(sizeof(double) * n), *v = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    double *y = malloc(sizeof(double) * n), *z = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
    unsigned seed = 7;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            seed = seed * 1103515245u + 12345u;
            A[i][j] = (seed >> 8) % 1000 / 8.0;
            B[i][j] = (double)((i * 7 + j * 3) % 19) - 9.0;
        }
    for (int i = 0; i < n; i++) {
        u[i] = (double)(i % 5) - 2.0;
        v[i] = (double)(i % 3);
        x[i] = i % 3;
        y[i] = (double)(i % 7) - 3.0;
        z[i] = -(i % 4);
        w[i] = 1.0;
    }
    updated(n, A, u, v, x, y, z, w);
    printf("updated %.17g %.17g %.17g\\n", weigh(n * n, &A[0][0]), weigh(n, x), weigh(n, w));
    summed_first(n, A, u, x, y);
    printf("summed first %.17g %.17g\\n", weigh(n * n, &A[0][0]), weigh(n, x));
    crossed(n, A, B, x, y);
    printf("crossed %.17g %.17g\\n", weigh(n * n, &A[0][0]), weigh(n, x));
    return 0;
}
"""


def _line(text: str, statement: str) -> int:
    """The line of ``statement`` in ``text``."""
    return next(k for k, line in enumerate(text.splitlines(), 1) if statement in line)


def test_statements_that_use_the_matrix_alike_join_the_sums(tmp_path):
    """gemver's update of A joins the sum that reads it down its columns, and runs first at each element;
    the later sum, which needs x after a statement outside them, keeps its kernel.  A sum that reads A
    before its update runs first at each element.  An update that reads another matrix transposed keeps
    its kernel.  Every output is the original's (eighths and small integers: exact in any order)."""
    if opencl_device():
        pytest.skip(opencl_device())
    source = tmp_path / "updates.c"
    source.write_text(UPDATES)
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl", "--explain", "--no-fp-contract"])
    assert status == 0, messages
    updated, summed_first, crossed = explained_regions(messages)
    update, column_sum = _line(UPDATES, "u[i] * v[j]"), _line(UPDATES, "0.5 * A[j][i]")
    assert f"the statements of line(s) {update}, {column_sum} use A alike, one element an instance, the " \
           f"reduction(s) of line(s) {column_sum} among them" in updated, updated
    assert f"(statements at line(s) {update}, {column_sum})" in updated, updated
    assert f"(statements at line(s) {_line(UPDATES, 'A[i][j] * x[j]')})" in updated, updated
    assert f"A (3 reference(s), read and written, line(s) {update}, {column_sum}): global memory" in updated, updated
    first, scaled = _line(UPDATES, "x[i] += A[i][j] * y[j]"), _line(UPDATES, "* 0.5 + u[j]")
    assert f"the statements of line(s) {first}, {scaled} use A alike" in summed_first, summed_first
    assert "alike" not in crossed, crossed
    runs = ("1", "37", "130", "517")
    expected = program_output(source, tmp_path / "original", runs)
    assert program_output(generated_path(source, tmp_path / "out"), tmp_path / "fused", runs, ("-lOpenCL",)) \
        == expected
