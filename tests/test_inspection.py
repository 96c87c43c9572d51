"""Pointers without extents reached through subscripts on data (gpu/inspection.py): the GPU targets find,
on the host before each call, how many elements the subscripts reach, and copy that many; a negative one
runs the original loops.  Every array ends where a page the program may not touch starts (mmap, mprotect),
so a copy past the last element an index reaches stops the program."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import FENCED, TARGETS, generated_for, opencl_device, polypragma, program_output, run

SOURCE = """\
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* y = A x, A in compressed rows */
static void spmv(int n, const int *rowptr, const int *col, const double *val, const double *x, double *y)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        int start = rowptr[i], end = rowptr[i + 1];
        for (int j = start; j < end; j++)
            s += val[j] * x[col[j]];
        y[i] = s;
    }
#pragma endscop
}

/* a gather through a map with holes (-1), a scatter through a permutation */
static void gather_scatter(int n, const int *map, const int *perm, const double *x, double *y, double *z)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        if (map[i] >= 0)
            y[i] = 2.0 * x[map[i]];
        z[perm[i]] = y[i] + 1.0;
    }
#pragma endscop
}

static void histogram(int n, int bins, const int *v, int *h)
{
#pragma scop
    for (int b = 0; b < bins; b++)
        h[b] = 0;
    for (int i = 0; i < n; i++)
        h[v[i] % bins]++;
#pragma endscop
}

/* rows picked by a permutation, and a local holding an index */
static void rows(int n, int m, const int *perm, double (*A)[8], double *out)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        int r = perm[i];
        for (int j = 0; j < m; j++)
            out[i * 8 + j] = A[r][j] * (j + 1);
    }
#pragma endscop
}

/* a subscript on data in an inner dimension stays within its declared extent */
static void columns(int n, int nnz, const int *col, double (*A)[8], double *out)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < nnz; j++)
            s += A[i][col[j] & 7];
        out[i] = s;
    }
#pragma endscop
}

/* count elements that end where a page no one may touch starts: a copy past the last one stops the program */
@FENCED@
static unsigned seed = 7;
static unsigned draw(unsigned bound) { seed = seed * 1103515245u + 12345u; return (seed >> 8) % bound; }

static double *doubles(long count)
{
    double *a = fenced(count, sizeof(double));
    for (long e = 0; e < count; e++)
        a[e] = (double)draw(1000) / 7.0;
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
    int n = atoi(argv[1]), m = atoi(argv[2]), per_row = atoi(argv[3]), offset = atoi(argv[4]);
    /* compressed rows: up to per_row entries a row, columns below m */
    int *rowptr = fenced(n + 1, sizeof(int));
    rowptr[0] = 0;
    for (int i = 0; i < n; i++)
        rowptr[i + 1] = rowptr[i] + (per_row ? (int)draw(per_row + 1) : 0);
    int nnz = rowptr[n];
    int *col = fenced(nnz, sizeof(int));
    int largest = -1;
    for (int e = 0; e < nnz; e++) {
        col[e] = (int)draw(m) + offset;
        largest = col[e] > largest ? col[e] : largest;
    }
    double *val = doubles(nnz);
    double *space = doubles(largest + 1 + 4);
    double *x = space + 4;  /* offset < 0: subscripts before x (the original loops run) */
    double *y = doubles(n);
    spmv(n, rowptr, col, val, x, y);
    print("spmv", y, n);

    int *map = fenced(n, sizeof(int)), *perm = fenced(n, sizeof(int));
    for (int i = 0; i < n; i++) {
        map[i] = draw(3) == 0 ? -1 : (int)draw(m);
        perm[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
        int k = (int)draw(i + 1), t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
    double *g = doubles(m), *z = doubles(n);
    gather_scatter(n, map, perm, g, y, z);
    print("gathered", y, n);
    print("scattered", z, n);

    int bins = m > 0 ? m : 1;
    int *v = fenced(n, sizeof(int)), *h = fenced(bins, sizeof(int));
    for (int i = 0; i < n; i++)
        v[i] = (int)draw(1000);
    histogram(n, bins, v, h);
    long total = 0;
    for (int b = 0; b < bins; b++)
        total += (long)(b + 1) * h[b];
    printf("histogram %ld\\n", total);

    int mm = m < 8 ? m : 8;
    double (*A)[8] = fenced((long)n * 8, sizeof(double));
    for (long e = 0; e < (long)n * 8; e++)
        ((double *)A)[e] = draw(100);
    double *out = doubles((long)n * 8);
    rows(n, mm, perm, A, out);
    print("rows", out, (long)n * 8);
    columns(n, nnz < 40 ? nnz : 40, col, A, out);
    print("columns", out, n);
    return 0;
}
"""

SOURCE = SOURCE.replace("@FENCED@", FENCED)

# n, m (columns, the gather's and the histogram's range), entries a row at most, the columns' offset (below
# 0: subscripts before x)
RUNS = ("50 30 5 0", "1000 200 9 0", "0 5 3 0", "7 3 0 0", "1 1 1 0", "3000 100 40 0")


@pytest.mark.parametrize("target, host_openmp", [("c", False), ("openmp", False), ("opencl", False),
                                                ("opencl", True)])
def test_irregular_programs(target: str, host_openmp: bool, tmp_path: Path):
    """(``host_openmp``: the host code built with OpenMP, where the inspections' outer loops run in parallel,
    their extents reductions.)"""
    source = tmp_path / "irregular.c"
    source.write_text(SOURCE)
    generated = generated_for(source, tmp_path / target, target)
    text = generated.read_text()
    libs = TARGETS[target][1] + (("-fopenmp",) if host_openmp else ())
    if target == "opencl":
        for array in ("col", "val", "x", "z", "h", "A"):
            assert f"size_t polypragma_extent_{array} = " in text, array
    else:  # the locals holding the row's start and end are the elements they were read from (frontend/aliases.py)
        assert "for (int j = rowptr[c0]; j < rowptr[c0 + 1]; j++)" in text, text
    assert program_output(generated, tmp_path / f"{target}.out", RUNS, libs) == \
        program_output(source, tmp_path / "original", RUNS)


def test_negative_subscript_runs_the_original_loops(tmp_path: Path):
    source = tmp_path / "irregular.c"
    source.write_text(SOURCE)
    generated = generated_for(source, tmp_path / "opencl", "opencl")
    runs = ("50 30 5 -2",)
    assert program_output(generated, tmp_path / "opencl.out", runs, TARGETS["opencl"][1]) == \
        program_output(source, tmp_path / "original", runs)
    result = run(tmp_path / "opencl.out", runs[0].split())
    assert result.stderr == f"polypragma: {source}:9: region 0: a subscript of 'x' is negative ('col[j]' at line " \
        "14); running the original loops\n", result.stderr


SCOPED = """\
#include <stdio.h>
#include <stdlib.h>

static void make(int n, int m, int k, int *idx)
{
#pragma scop
    for (int i = 0; i < n; i++)
        idx[i] = (i * k) % m;
#pragma endscop
}

static void gather(int n, const int *idx, const double *x, double *y)
{
#pragma scop
    for (int i = 0; i < n; i++)
        y[i] = x[idx[i]] + i;
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), m = atoi(argv[2]);
    int *idx = malloc(sizeof(int) * n);
    double *x = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        idx[i] = 0;
    for (int e = 0; e < m; e++)
        x[e] = e * 0.5;
#pragma polypragma data copy(idx[0:n])
    {
        make(n, m, 7, idx);
        gather(n, idx, x, y);
        make(n, m, 3, idx);
        gather(n, idx, x, y);
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (i % 7 + 1) * y[i];
    printf("%.17g %d\\n", s, idx[n - 1]);
    return 0;
}
"""


def test_index_array_a_data_scope_keeps(tmp_path: Path):
    """The index array lives on the device, written there by the call before: the inspection reads the host's
    copy, which is brought up to date first (without that, the host's zeros made x one element long, and the
    kernel read past it)."""
    source = tmp_path / "scoped.c"
    source.write_text(SCOPED)
    generated = generated_for(source, tmp_path / "opencl", "opencl")
    runs = ("100 37", "1 1", "2000 1999")
    assert program_output(generated, tmp_path / "opencl.out", runs, TARGETS["opencl"][1]) == \
        program_output(source, tmp_path / "original", runs)


REFUSED = """\
void kernel(int n, int *idx, double *x, double *y)
{
#pragma scop
@BODY@
#pragma endscop
}
"""


@pytest.mark.parametrize("body, expected", [
    # the index is written by the region: its values are not known before it runs
    ("    for (int i = 0; i < n; i++) {\n        idx[i] = (int)y[i];\n        y[i] = x[idx[i]];\n    }",
     ("subscript 'idx[i]' of 'x' depends on data", "reads 'idx[i]', which the region changes")),
    # x's extent needs x read first, which needs its extent
    ("    for (int i = 0; i < n; i++)\n        y[i] = x[(int)x[i]];",
     ("subscript '(int) x[i]' of 'x' depends on data", "finding them reads 'x', whose extent must be found first")),
    # the local's value is not the element it was read from where it is used
    ("    for (int i = 0; i < n; i++) {\n        int r = idx[i];\n        idx[i] = 0;\n        y[i] = x[r];\n"
     "    }", ("subscript 'r", "of 'x' depends on data", "which the region changes")),
], ids=["index-written", "self-indexed", "local-outlived"])
def test_refused(body: str, expected: tuple[str, ...], tmp_path: Path):
    source = tmp_path / "refused.c"
    source.write_text(REFUSED.replace("@BODY@", body))
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl"])
    assert status == 0 and "warning: region left as written: " in messages, messages
    for words in expected:
        assert words in messages, messages


def test_explained(tmp_path: Path):
    source = tmp_path / "irregular.c"
    source.write_text(SOURCE)
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl", "--explain"])
    assert status == 0, messages
    assert "  x: (size_t)(polypragma_extent_x) element(s) of double; as many elements as its subscripts on data " \
        "reach, found on the host before each call by reading 'col', 'rowptr': 'col[j]' at line 14; copied in" \
        in messages, messages


# -- drawn programs: gathers, scatters, histograms and compressed rows through pointers ------------------------

@st.composite
def indirect_programs(draw) -> str:
    """Loops over i < n whose statements reach x (m + 2 elements) through idx (n elements in [-1, m)) and
    ptr (compressed rows of idx): with idx[i] + 1 or a guard idx[i] >= 0, read, written or accumulated; a
    local holding the index; loops over a row's entries."""
    index = draw(st.sampled_from(["idx[i] + 1", "idx[n - 1 - i] + 1", "1 + idx[i / 2]", "k + 1"]))
    local = "        int k = idx[i];\n" if index == "k + 1" else ""
    statements = draw(st.lists(st.sampled_from([
        "y[i] = x[@] + i;",
        "if (idx[i] >= 0)\n            y[i] += 2.0 * x[idx[i]];",
        "x[@] += y[i];",
        "x[@] = 0.5 * x[@] + 1.0;",
        "for (int j = ptr[i]; j < ptr[i + 1]; j++)\n            y[i] += x[idx[j] + 2];",
        "y[i] = x[i % 3] - x[@];",
    ]), min_size=1, max_size=3))
    body = "".join(f"        {s.replace('@', index)}\n" for s in statements)
    return f"    for (int i = 0; i < n; i++) {{\n{local}{body}    }}"


INDIRECT = """\
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void kernel(int n, const int *idx, const int *ptr, double *x, double *y)
{
#pragma scop
@BODY@
#pragma endscop
}

@FENCED@
int main(int argc, char **argv)
{
    int n = atoi(argv[1]), m = atoi(argv[2]);
    unsigned s = (unsigned)atoi(argv[3]);
    int *idx = fenced(n, sizeof(int)), *ptr = fenced(n + 1, sizeof(int));
    double *x = fenced(m + 2, sizeof(double)), *y = fenced(n, sizeof(double));
    ptr[0] = 0;
    for (int i = 0; i < n; i++) {
        idx[i] = (int)((s = s * 1103515245u + 12345u) >> 8) % (m + 1) - 1;
        ptr[i + 1] = ptr[i] + (i < n - 1 ? (int)(s >> 20) % 3 : 0);
        if (ptr[i + 1] > n)
            ptr[i + 1] = n;
        y[i] = (int)(s >> 12) % 64 / 8.0;
    }
    for (int e = 0; e < m + 2; e++)
        x[e] = e % 17 / 4.0;
    kernel(n, idx, ptr, x, y);
    double sum = 0.0;
    for (int e = 0; e < m + 2; e++)
        sum += (e % 5 + 1) * x[e];
    for (int i = 0; i < n; i++)
        sum += (i % 3 + 1) * y[i];
    printf("%.17g\\n", sum);
    return 0;
}
"""


INDIRECT = INDIRECT.replace("@FENCED@", FENCED)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=indirect_programs())
def test_drawn_indirect_programs(body: str, tmp_path_factory):
    """On opencl, what the original prints, for n and m small and large against each other (values that are
    sums of eighths: exact in any order of the atomic updates)."""
    if opencl_device():
        pytest.skip(opencl_device())
    tmp_path = tmp_path_factory.mktemp("indirect")
    source = tmp_path / "indirect.c"
    source.write_text(INDIRECT.replace("@BODY@", body))
    status, messages = polypragma(source, tmp_path / "opencl", list(TARGETS["opencl"][0]))
    assert status == 0 and messages == "", f"{messages}\n{body}"
    runs = ("1 1 3", "40 7 5", "9 300 11", "700 700 2")
    generated = tmp_path / "opencl" / "indirect.polypragma.c"
    assert program_output(generated, tmp_path / "opencl.out", runs, TARGETS["opencl"][1]) == \
        program_output(source, tmp_path / "original", runs), body
