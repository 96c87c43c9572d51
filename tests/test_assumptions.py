"""Flat subscripts that are rows of a view only for some parameters (frontend/arrays.py, Scop.assumed), and
pointers to rows whose subscripts stay in the row only for some (frontend/row_bounds.py): the generated code
runs where they do, checked at run time, and the original loops elsewhere; every target prints what the
original prints on both sides of the condition, and the GPU targets copy such an array no further than its
last element the region touches."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import FENCED, TARGETS, generated_for, generated_path, opencl_device, polypragma, program_output

# the arrays end where a page the program may not touch starts (mmap, mprotect): a copy past a submatrix's
# last element, or past a row of windows, stops the program
SOURCE = """\
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void gemm_ld(int m, int n, int k, const double *A, int lda, const double *B, int ldb, double *C, int ldc)
{
    int i, j, p;
#pragma scop
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            double s = 0.0;
            for (p = 0; p < k; p++)
                s += A[i * lda + p] * B[p * ldb + j];
            C[i * ldc + j] = 0.5 * C[i * ldc + j] + s;
        }
#pragma endscop
}

static void windows(int count, int w, int s, double *y)
{
    int i, p;
#pragma scop
    for (i = 0; i < count; i++)
        for (p = 0; p < w; p++)
            y[i * s + p] = 0.5 * y[i * s + p] + i;
#pragma endscop
}

@FENCED@
static double *filled(long count, unsigned *seed)
{
    double *a = fenced(count, sizeof(double));
    for (long e = 0; e < count; e++)
        a[e] = (double)((*seed = *seed * 1103515245u + 12345u) % 1000) / 7.0;
    return a;
}

static void print(const char *name, const double *a, long count)
{
    double sum = 0.0;
    for (long e = 0; e < count; e++)
        sum += (e % 13 + 1) * a[e];
    printf("%s %.17g\\n", name, sum);
}

int main(int argc, char **argv)
{
    int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]), lda = atoi(argv[4]), ldc = atoi(argv[5]);
    int count = atoi(argv[6]), w = atoi(argv[7]), s = atoi(argv[8]);
    unsigned seed = 7;
    long ca = (long)(m - 1) * lda + k, cb = (long)k * n, cc = (long)(m - 1) * ldc + n;
    long cy = (long)(count - 1) * s + w;
    double *A = filled(ca, &seed), *B = filled(cb, &seed), *C = filled(cc, &seed), *y = filled(cy, &seed);
    @CALLS@
    print("C", C, cc);
    print("y", y, cy);
    return 0;
}
"""

SOURCE = SOURCE.replace("@FENCED@", FENCED)

CALLS = "gemm_ld(m, n, k, A, lda, B, n, C, ldc);\n    windows(count, w, s, y);"
# a data scope keeps y on the device: the first call writes it there (its windows apart where w <= s); the
# second, its windows overlapping (w > s - 1), runs the original loops, which must see the first call's values
SCOPED = """
#pragma polypragma data copy(y[0:cy])
    {
        windows(count, w, s, y);
        windows(count - 1, w, s - 1, y);
    }"""
RUNS = (
    "9 7 5 8 10 6 3 4",      # lda >= k, ldc >= n, windows apart: the generated code
    "9 7 5 3 10 6 4 2",      # lda < k: A's rows overlap: the original loops; windows overlapping too
    "9 7 5 5 6 6 3 3",      # lda == k, ldc < n
    "1 1 1 1 1 1 1 1",
    "40 33 17 20 33 50 5 5",
)


def _source(tmp_path: Path, calls: str = CALLS) -> Path:
    path = tmp_path / "assumed.c"
    path.write_text(SOURCE.replace("@CALLS@", calls))
    return path


@pytest.mark.parametrize("target", ["c", "openmp", "opencl"])
def test_both_sides_of_the_condition(target: str, tmp_path: Path):
    source = _source(tmp_path)
    generated = generated_for(source, tmp_path / target, target)
    text = generated.read_text()
    if target == "opencl":
        assert "if (!(lda >= k && ldb >= n && ldc >= n)) {" in text and "if (!(s >= w)) {" in text, text
    else:
        assert "if (lda >= k && ldb >= n && ldc >= n)\n{" in text and "if (s >= w)\n{" in text, text
    assert program_output(generated, tmp_path / f"{target}.out", RUNS, TARGETS[target][1]) == \
        program_output(source, tmp_path / "original", RUNS)


def test_original_loops_see_a_data_scope_current(tmp_path: Path):
    """A region whose condition fails inside a data scope runs its original loops on the host copy, which
    the scope's device copy (written by the call before) brings up to date first."""
    if opencl_device():
        pytest.skip(opencl_device())
    source = _source(tmp_path, SCOPED)
    runs = ("9 7 5 8 10 9 4 4", "2 2 2 2 2 12 2 2")
    expected = program_output(source, tmp_path / "original", runs)
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl", "--no-fp-contract"])
    assert status == 0 and messages == "", messages
    generated = generated_path(source, tmp_path / "opencl")
    assert program_output(generated, tmp_path / "opencl.out", runs, ("-lOpenCL",)) == expected


def test_explained(tmp_path: Path):
    source = _source(tmp_path)
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl", "--explain"])
    assert status == 0, messages
    assert "  runs where lda >= k && ldb >= n && ldc >= n (checked at each call; the original loops run elsewhere): " \
        "only there are the flat subscripts of 'A', 'B', 'C' rows of a view that do not overlap" in messages, messages
    assert "  runs where s >= w (checked at each call" in messages, messages


def test_never_in_its_row(tmp_path: Path):
    """A subscript outside its row for every parameter where it runs gets no view (``y[i * s + p]`` with ``p``
    up to ``s``): the array stays flat, its accesses touching all of it, without a condition (the GPU targets
    find how many elements they reach before each call, gpu/inspection.py)."""
    source = _source(tmp_path)
    source.write_text(source.read_text().replace("for (p = 0; p < w; p++)", "for (p = 0; p <= s; p++)"))
    runs = ("9 7 5 8 10 6 4 3", "3 3 3 3 3 4 2 1")  # (w = s + 1: y holds the last window)
    expected = program_output(source, tmp_path / "original", runs)
    for target in ("c", "opencl"):
        generated = generated_for(source, tmp_path / target, target)
        assert "s >= w" not in generated.read_text()
        assert program_output(generated, tmp_path / f"{target}.out", runs, TARGETS[target][1]) == expected


@st.composite
def strided_programs(draw) -> str:
    """Nests over two flat arrays through rows ``s`` elements apart, whose inner loops run to ``w``, ``s``, or
    one less: rows of a view for some ``(w, s)`` and not for others; reads a row away, or a row's first
    element; a write read back by the next nest."""
    nests = []
    for _ in range(draw(st.integers(1, 3))):
        lower = draw(st.sampled_from(["0", "1"]))
        upper = draw(st.sampled_from(["w", "s", "w - 1", "s - 1", "w + 1"]))
        target = draw(st.sampled_from(["y", "z"]))
        column = draw(st.sampled_from(["p", "p + 1"]))
        read = draw(st.sampled_from([f"y[i * s + {column}]", f"z[(i + 1) * s + {column}]", "y[i * s]",
                                     f"z[i * s + {column}] * y[(i + 2) * s + p]", "z[i * s + s - 1]"]))
        statement = f"{target}[i * s + {column}] = 0.5 * {target}[i * s + {column}] + {read} + i;"
        if draw(st.booleans()):  # a statement of the outer loop, before the inner one
            first = draw(st.sampled_from(["y[i * s] += z[i * s + 1];", "z[i * s + 1] = 0.25 * y[(i + 1) * s];"]))
            nests.append(f"    for (i = 0; i < n; i++) {{\n        {first}\n"
                         f"        for (p = {lower}; p < {upper}; p++)\n            {statement}\n    }}")
        else:
            nests.append(f"    for (i = 0; i < n; i++)\n        for (p = {lower}; p < {upper}; p++)\n"
                         f"            {statement}")
    return "\n".join(nests)


STRIDED_SOURCE = """\
#include <stdio.h>
#include <stdlib.h>
#define CELLS 600

static double Y[CELLS], Z[CELLS];

static void kernel(int n, int w, int s, double *y, double *z)
{
    int i, p;
#pragma scop
@BODY@
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), w = atoi(argv[2]), s = atoi(argv[3]);
    for (int c = 0; c < CELLS; c++) {
        Y[c] = (c * 37 % 101) / 8.0;
        Z[c] = (c * 53 % 97) / 4.0;
    }
    kernel(n, w, s, Y, Z);
    double sum = 0.0;
    for (int c = 0; c < CELLS; c++)
        sum += (c % 7 + 1) * Y[c] + (c % 5 + 1) * Z[c];
    printf("%.17g\\n", sum);
    return 0;
}
"""


@settings(max_examples=8, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=strided_programs())
def test_random_strides_on_the_c_target(body: str, tmp_path_factory):
    """Drawn nests print what the original prints on the c target and with --openmp, for parameters on both
    sides of their conditions (rows apart, overlapping, of one element, none)."""
    tmp_path = tmp_path_factory.mktemp("strides")
    source = tmp_path / "strides.c"
    source.write_text(STRIDED_SOURCE.replace("@BODY@", body))
    sizes = ("7 4 6", "7 6 4", "9 5 5", "6 3 1", "5 2 0", "0 3 3", "12 9 11")
    expected = program_output(source, tmp_path / "original", sizes)
    for name, options in (("c", ["--target", "c"]), ("omp", ["--target", "c", "--openmp"])):
        status, messages = polypragma(source, tmp_path / name, options)
        assert status == 0, messages
        generated = generated_path(source, tmp_path / name)
        libs = ("-fopenmp",) if name == "omp" else ()
        assert program_output(generated, tmp_path / f"{name}.exe", sizes, libs) == expected, body


# pointers to rows of a declared matrix whose subscripts stay in the row only for some parameters: a helper
# inlined with a row (m <= 12), a pointer declared in the region (m <= 12), a range of a row given to a
# helper (lo >= 0 and hi <= 12, or an empty range), memset from a row's third element (m <= 12): beyond, the original loops write on into the next rows, which C's memory
# holds and the model would take for elements of this row (rows set from the last: a row's overflow is what
# the next row keeps, which the generated code, taking the rows for independent, would set first)
ROWS_SOURCE = """\
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R 10
#define C 12

static double A[R][C], B[R][C];

static void set_row(int m, double row[], double v)
{
    for (int j = 0; j < m; j++)
        row[j] = v + 0.25 * j;
}

static void scale_range(int lo, int hi, double f, double *r)
{
    for (int k = lo; k < hi; k++)
        r[k] *= f;
}

static void rows(int n, int m, int lo, int hi)
{
#pragma scop
    for (int i = n - 1; i >= 0; i--)
        set_row(m, A[i], 10.0 * i);
    for (int i = 0; i < n; i++) {
        double *row = B[i];
        for (int j = 0; j < m; j++)
            row[j] += 0.5 * A[i][j % C];
    }
    for (int i = 1; i < n; i++)
        scale_range(lo, hi, 1.0 + 0.125 * i, A[i]);
    for (int i = 0; i < n; i += 3)
        memset(&B[i][2], 0, (m - 2) * sizeof(double));
#pragma endscop
}

int main(int argc, char **argv)
{
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            B[i][j] = (i * 7 + j * 3) % 11 / 4.0;
    rows(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    for (int i = 0; i < R; i++) {
        double a = 0.0, b = 0.0;
        for (int j = 0; j < C; j++) {
            a += (j + 1) * A[i][j];
            b += (j + 1) * B[i][j];
        }
        printf("%d %.17g %.17g\\n", i, a, b);
    }
    return 0;
}
"""
ROWS_RUNS = (
    "8 12 0 12",   # every row exactly: the generated code
    "8 5 2 7",
    "8 13 0 12",   # m past the rows' end: the original loops
    "8 20 3 5",
    "8 12 2 13",   # hi past it
    "8 12 -1 4",   # lo before it
    "8 12 9 3",    # an empty range anywhere: the generated code
    "0 30 0 40",
)


@pytest.mark.parametrize("target", ["c", "opencl"])
def test_rows_through_pointers_stay_in_them_where_checked(target: str, tmp_path: Path):
    source = tmp_path / "rows.c"
    source.write_text(ROWS_SOURCE)
    status, messages = polypragma(source, tmp_path / "explain", ["--target", target, "-v"])
    assert status == 0 and "warning" not in messages, messages
    assert "(m <= 12 && lo >= 0 && hi <= 12) (checked at each call" in messages, messages
    assert "do the subscripts through 'row' of 'set_row', given the row 'A[i]', stay in that row (line 26)" \
        in messages and "do the subscripts through 'row', the row 'B[i]', stay in that row (line 28)" in messages \
        and "through 'r' of 'scale_range', given the row 'A[i]', stay in that row (line 33)" in messages \
        and "does 'memset' stay in the row of 'B' it starts in (line 35)" in messages, messages
    generated = generated_for(source, tmp_path / target, target)
    assert program_output(generated, tmp_path / f"{target}.out", ROWS_RUNS, TARGETS[target][1]) == \
        program_output(source, tmp_path / "original", ROWS_RUNS)


def test_rows_past_their_end_on_names_the_region_changes(tmp_path: Path):
    """A row's subscripts bounded by what the region changes (a loop's iterator, a scalar it writes) cannot be
    checked before it runs: the GPU targets refuse the region as before, and the c target keeps the call."""
    source = tmp_path / "rows.c"
    source.write_text(ROWS_SOURCE.replace("set_row(m, A[i], 10.0 * i);", "set_row(i + 3, A[i], 10.0 * i);"))
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl"])
    assert status == 0 and "call to 'set_row' is not supported by the GPU targets: 'set_row' cannot be inlined: " \
        "its subscripts through 'row', given the row 'A[i]', may reach past the row's end" in messages, messages
    generated = generated_for(source, tmp_path / "c", "c")
    runs = ("8 12 0 12", "10 5 -1 13")
    assert program_output(generated, tmp_path / "c.out", runs) == program_output(source, tmp_path / "original", runs)
