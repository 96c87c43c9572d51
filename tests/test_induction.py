"""Counters and pointers that step by the same amount each iteration are written as the functions of the
loop iterators they are (polypragma/frontend/induction.py): the generated programs print what the
original prints on every target, with sizes where inner loops run and where they do not, and a counter
stepped under a condition or in a triangle stays a scalar the loops carry."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import compile_c, generated_path, opencl_device, polypragma, run

SOURCE = """\
#include <stdio.h>
#include <stdlib.h>

static void counters(int n, int m, int z, double A[n][m], double *B, double *C, double *x, double *y,
                     double *rev, int *out, int *count, int *last)
{
    int k;
#pragma scop
    k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            B[k] = A[i][j];
            k++;
        }
    *count = k;
    double *p = x, *q = y;
    for (int i = 0; i < n; i++)
        *q++ = 2.0 * *p++ + 1.0;
    int row = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++)
            C[row + j] = A[i][j] * (row + 1);
        row += m;
    }
    int r = n - 1;
    for (int i = 0; i < n; i++) {
        rev[r] = x[i];
        r--;
    }
    int e = -1;
    for (int i = 0; i < n; i++)
        y[++e] += 0.5 * rev[i];
    int s = 5;
    for (int i = 2; i <= n + 1; i++) {
        out[s] += i;
        s += 3;
    }
    int t = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < z; j++)
            t++;
        out[i] += t;
    }
    *last = t + s;
#pragma endscop
}

static void kept(int n, double *A, double *B, double *T, int *count)
{
#pragma scop
    int k = 0;
    for (int i = 0; i < n; i++)
        if (A[i] > 0.5)
            B[k++] = A[i];
    *count = k;
    int w = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            T[w] = A[i] - A[j];
            w++;
        }
    long wide = 0;
    for (int i = 0; i < n; i++) {
        T[wide] += 1.0;
        wide++;
    }
    int b = 0;
    for (int i = 0; i < n; i++) {
        T[b] += 2.0;
        b++;
        if (A[i] > 0.9)
            break;
    }
    *count += 1000 * b;
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), m = atoi(argv[2]), z = atoi(argv[3]);
    double (*A)[m] = malloc(n * sizeof *A);
    double *B = malloc(n * m * sizeof(double)), *C = malloc(n * m * sizeof(double));
    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double)), *rev = malloc(n * sizeof(double));
    double *T = malloc(n * n * sizeof(double));
    int *out = calloc(3 * n + 8, sizeof(int)), count = 0, last = 0, kept_count = 0;
    unsigned seed = 7;
    for (int i = 0; i < n; i++) {
        x[i] = (seed = seed * 1103515245u + 12345u) % 1000 / 999.0;
        y[i] = (seed = seed * 1103515245u + 12345u) % 1000 / 999.0;
        for (int j = 0; j < m; j++)
            A[i][j] = (seed = seed * 1103515245u + 12345u) % 1000 / 999.0;
    }
    counters(n, m, z, A, B, C, x, y, rev, out, &count, &last);
    kept(n, x, rev, T, &kept_count);
    double sum = 0.0;
    for (int i = 0; i < n * m; i++)
        sum += (i + 1) * (B[i] + 3.0 * C[i]);
    for (int i = 0; i < n; i++)
        sum += (i + 1) * (x[i] + 2.0 * y[i] + 5.0 * rev[i]);
    for (int i = 0; i < n * (n - 1) / 2; i++)
        sum += (i + 1) * T[i];
    long isum = count + 7L * last + 11L * kept_count;
    for (int i = 0; i < 3 * n + 8; i++)
        isum += (i + 1L) * out[i];
    printf("%.17g %ld\\n", sum, isum);
    return 0;
}
"""


def _output(source: Path, exe: Path, args: list[str], libs: tuple[str, ...] = ()) -> str:
    compile_c(source, exe, libs=list(libs))
    outputs = []
    for size in args:
        result = run(exe, size.split(), timeout=60)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout)
    return "".join(outputs)


SIZES = ["1 1 1", "9 4 0", "40 13 3"]


@pytest.mark.parametrize("target", ["c", "omp", "opencl"])
def test_counters_and_pointers_on_every_target(target: str, tmp_path: Path):
    if target == "opencl" and opencl_device():
        pytest.skip(opencl_device())
    source = tmp_path / "counters.c"
    source.write_text(SOURCE)
    options = {"c": ["--target", "c"], "omp": ["--target", "c", "--openmp"],
               "opencl": ["--target", "opencl", "--no-fp-contract"]}[target]
    status, messages = polypragma(source, tmp_path / "out", options)
    assert status == 0, messages
    text = generated_path(source, tmp_path / "out").read_text()
    if target == "c":
        region = text.split("/* polypragma: region 0")[1].split("/* polypragma: region 1")[0]
        # every counter of the first region is a function of the iterators: no step is left, and the
        # packing loop writes B[i * m + j]
        for step in ("k++", "row += m", "r--", "++e", "s += 3", "t++", "q++", "p++"):
            assert step not in region, (step, region)
        assert "B[c0 * m + c1] = A[c0][c1]" in region, region
        # stepped under a condition, in a triangle, of a type wider than int, in a loop a break may cut short
        kept = text.split("/* polypragma: region 1")[1]
        for step in ("k++", "w++", "wide++", "b++"):
            assert step in kept, (step, kept)
    else:
        assert "counters.c:1" not in messages, messages  # the first region is generated (no warning)
    libs = ("-lOpenCL",) if target == "opencl" else ()
    assert _output(generated_path(source, tmp_path / "out"), tmp_path / "gen", SIZES, libs) == \
        _output(source, tmp_path / "original", SIZES)
