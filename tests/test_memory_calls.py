"""memcpy, memmove and memset of whole elements are the loops they mean (polypragma/frontend/memory_calls.py): the
generated programs print what the original prints on every target, and a call that is no such copy is
left as a call, with a warning from the GPU targets that says why."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness import TARGETS, generated_for, generated_path, opencl_device, polypragma, program_output

PROLOGUE = """\
#include <stdio.h>
#include <string.h>

typedef float real;
static double S[8][4], T[8][4];

static void kernel(int n, int m, double *x, double *y, double C[n][m], double D[n][m], int I[n][m],
                   char *c, long *L, long *Ls, real *r, real *rs, int *len)
{
    int i;
#pragma scop
"""
EPILOGUE = """\
#pragma endscop
}

int main(void)
{
    int n = 37, m = 23;
    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
    double (*C)[m] = malloc(n * sizeof *C), (*D)[m] = malloc(n * sizeof *D);
    int (*I)[m] = malloc(n * sizeof *I), *len = malloc(n * sizeof(int));
    char *c = malloc(n);
    long *L = malloc(n * sizeof(long)), *Ls = malloc(n * sizeof(long));
    real *r = malloc(n * sizeof(real)), *rs = malloc(n * sizeof(real));
    unsigned s = 12345;
    for (int i = 0; i < n; i++) {
        x[i] = (s = s * 1103515245u + 12345u) % 1000 / 7.0;
        y[i] = (s = s * 1103515245u + 12345u) % 1000 / 3.0;
        c[i] = 'a' + i % 26;
        L[i] = -i;
        Ls[i] = 3L * i * i;
        r[i] = i / 4.0f;
        rs[i] = -i / 8.0f;
        len[i] = i % 5;
        for (int j = 0; j < m; j++) {
            C[i][j] = (s = s * 1103515245u + 12345u) % 1000 / 9.0;
            D[i][j] = (s = s * 1103515245u + 12345u) % 1000 / 11.0;
            I[i][j] = (int)((s = s * 1103515245u + 12345u) % 100);
        }
    }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) {
            S[i][j] = i + j / 8.0;
            T[i][j] = i - j;
        }
    kernel(n, m, x, y, C, D, I, c, L, Ls, r, rs, len);
    double sum = 0.0;
    long isum = 0;
    for (int i = 0; i < n; i++) {
        sum += (i + 1) * (x[i] + 2.0 * y[i] + 3.0 * r[i] + 5.0 * rs[i]);
        isum += (i + 1) * (c[i] + 7 * L[i] + 11 * Ls[i]);
        for (int j = 0; j < m; j++) {
            sum += (i * m + j + 1) * (C[i][j] + 0.5 * D[i][j]);
            isum += (long)(i * m + j + 1) * I[i][j];
        }
    }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            sum += (i * 4 + j + 1) * (S[i][j] + 2.0 * T[i][j]);
    printf("%.17g %ld\\n", sum, isum);
    return 0;
}
"""

# every form of whole-element copy and fill that is lowered; none of them leaves a call
LOWERED = """\
for (i = 1; i < n; i++)
    memcpy(C[i], C[i - 1], m * sizeof(double));
memcpy(x, y, n * sizeof *x);
memcpy(x + 2, y, (n - 2) * sizeof(x[0]));
for (i = 0; i < n; i++)
    memcpy(&D[i][1], &C[i][0], (m - 1) * sizeof(double));
memcpy(C, D, n * m * sizeof(double));
memcpy(S, T, sizeof S);
memcpy(T[2], S[5] + 1, 3 * sizeof(double));
memset(y, 0, n * sizeof(double));
for (i = 0; i < n && i < m; i++)
    memset(I[i] + i, 0, (m - i) * sizeof(int));
memset(c, 'z', n);
memset(c + 3, 200, (n - 3) * sizeof(char));
memcpy(L, Ls, n * sizeof(long));
memcpy(r, rs, sizeof(real) * n);
memcpy(&C[1][2], &D[3][4], sizeof(double));
for (i = 0; i < n; i++)
    x[i] += C[i][i % m] + r[i];
"""


def _source(body: str) -> str:
    return PROLOGUE.replace("#include <string.h>", "#include <stdlib.h>\n#include <string.h>") + \
        textwrap.indent(body, "    ") + EPILOGUE


def test_lowered_forms_on_every_target(tmp_path: Path):
    source = tmp_path / "copies.c"
    source.write_text(_source(LOWERED))
    expected = program_output(source, tmp_path / "original")
    for name, options in (("c", []), ("omp", ["--openmp"]), ("opencl", ["--target", "opencl", "--no-fp-contract"])):
        if name == "opencl" and opencl_device():
            continue
        outdir = tmp_path / name
        status, messages = polypragma(source, outdir, ["--target", "c", *options] if name != "opencl" else options)
        assert status == 0 and messages == "", messages  # lowered: no call for the GPU target to refuse
        generated = generated_path(source, outdir)
        if name != "opencl":  # (the GPU targets keep the calls in the original loops, their fallback)
            region = generated.read_text().split("/* polypragma: region 0")[1].split("\n}\n")[0]
            assert "memcpy(" not in region and "memset(" not in region
        libs = ("-lOpenCL",) if name == "opencl" else ()
        assert program_output(generated, tmp_path / f"{name}.out", libs=libs) == expected, name


@pytest.mark.parametrize("call, why", [
    ("memcpy(x, y, n);", "its byte count 'n' is not a count of elements times 'sizeof' of their type"),
    ("memcpy(x, y, n * sizeof(float));",
     "does not count elements of type 'double' ('sizeof(float)' is the size of 'float')"),
    ("memcpy(x, I[0], n * sizeof(double));", "it copies bytes of 'int' elements into 'double' elements"),
    ("memcpy(x, y, n * m * sizeof(double));", "its element count is a product of variables ('n * m * sizeof(double)')"),
    ("memcpy(C[0], D[0], 2 * m * sizeof(double));", "it may reach past the end of a row of 'C' ('2 * m' from '0'"),
    ("memcpy(x, y, len[0] * sizeof(double));", "its element count 'len[0]' is not a sum of names and constants"),
    ("memset(I, 255, n * m * sizeof(int));", "it sets each byte of 'int' elements to '255'"),
    ("memset(x, 0, sizeof x);", "its byte count 'sizeof(x)' is the size of a pointer or of an array of variable size"),
    ("memcpy(x, y, n * sizeof(double) + 8);", "is not a count of elements times 'sizeof' of their type"),
    ("i = n - 1;\nmemcpy(x, y, i * sizeof(double));", "its count reads 'i', which the region assigns"),
], ids=["bytes", "other-type", "int-into-double", "product", "across-rows", "count-on-data", "byte-into-int",
        "sizeof-pointer", "sum", "count-assigned"])
def test_left_as_call(call: str, why: str, tmp_path: Path):
    """A call that is no copy of whole elements stays a call: the c target runs it as written, and the GPU
    targets' warning says why, at the call."""
    text = _source(call + "\n")
    source = tmp_path / "left.c"
    source.write_text(text)
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl"])
    assert status == 0
    line = text.splitlines().index("    " + call.splitlines()[-1]) + 1
    name = call.splitlines()[-1].split("(")[0]
    assert messages.startswith(f"{source}:{line}:5: warning: region left as written: call to '{name}' is not "
                               f"supported by the GPU targets: '{name}' is left as a call: "), messages
    assert why in messages, messages
    status, messages = polypragma(source, tmp_path / "c")
    assert status == 0 and messages == "", messages
    assert program_output(generated_path(source, tmp_path / "c"), tmp_path / "c.out") == \
        program_output(source, tmp_path / "original")


# moves within one row, a constant apart: up (the loop runs down), down (up), by none, in rows of a matrix,
# and between offsets that name the final value of a loop's iterator
MOVES = """\
memmove(x + 1, x, (n - 1) * sizeof(double));
memmove(&y[0], &y[3], (n - 3) * sizeof y[0]);
for (i = 0; i < n; i++) {
    memmove(&C[i][2], &C[i][0], (m - 2) * sizeof(double));
    memmove(D[i], D[i] + 1, (m - 1) * sizeof(double));
    memmove(&I[i][1], &I[i][1], (m - 1) * sizeof(int));
}
memmove(&c[i - n + 2], &c[i - n], (n - 2) * sizeof(char));
"""


@pytest.mark.parametrize("target", ["c", "openmp", "opencl"])
def test_memmove_within_a_row(target: str, tmp_path: Path):
    """memmove copies as through a temporary: within a row, between offsets a constant apart, it is the loop
    that runs away from the overlap (down where it moves elements up)."""
    source = tmp_path / "moves.c"
    source.write_text(_source(MOVES))
    generated = generated_for(source, tmp_path / target, target)
    if target == "c":
        region = generated.read_text().split("/* polypragma: region 0")[1].split("\n}\n")[0]
        assert "memmove(" not in region, region
    assert program_output(generated, tmp_path / f"{target}.out", libs=TARGETS[target][1]) == \
        program_output(source, tmp_path / "original")


@pytest.mark.parametrize("call, why", [
    ("memmove(x, y, n * sizeof(double));", "it moves elements of 'y' into 'x', which may overlap it"),
    ("memmove(x + m, x, (n - m) * sizeof(double));", "its offsets are not a constant apart"),
    ("memmove(C[1], C[0], m * sizeof(double));", "it moves elements across rows of its array"),
    ("memmove(C, D, n * m * sizeof(double));", "it moves elements of 'D' into 'C'"),
], ids=["two-arrays", "offset-apart-by-a-variable", "rows", "whole-arrays"])
def test_memmove_left_as_call(call: str, why: str, tmp_path: Path):
    """A memmove a loop would not copy as it does stays a call to a function without a body: the GPU
    targets say why."""
    source = tmp_path / "move.c"
    source.write_text(_source(call + "\n"))
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl"])
    assert status == 0 and "call to 'memmove' is not supported by the GPU targets" in messages, messages
    assert why in messages, messages
    status, messages = polypragma(source, tmp_path / "c")
    assert status == 0 and messages == "", messages
    assert program_output(generated_path(source, tmp_path / "c"), tmp_path / "c.out") == \
        program_output(source, tmp_path / "original")
