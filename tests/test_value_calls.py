"""Calls to functions of the file that return a value and read or write through pointer parameters
(frontend/normalise.py's _value_calls, functions.inline_call with a result): inlined before their
statement where C evaluates them in any case, else left as calls (run by the c target as written; the GPU
targets' warning says why).  Every program's output is compared with the original's."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import TARGETS, generated_for, polypragma, program_output

SOURCE = """\
#include <math.h>
#include <stdio.h>

#define N 24

static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += a[k] * b[k];
    return s;
}

static int count_above(int n, const double *a, double t)
{
    int c = 0;
    for (int k = 0; k < n; k++)
        if (a[k] > t)
            c++;
    return c;
}

static double capped(int n, const double *a)
{
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += a[k];
    if (s > 40.0)
        return 40.0;
    return s;
}

static double last_square(int n, double *a)
{
    double v = a[n - 1];
    a[n - 1] = v * v;
}

static void kernel(int n, double A[N][N], double *x, double *y)
{
#pragma scop
@BODY@
#pragma endscop
}

int main(void)
{
    static double A[N][N], x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = (i * 7 % 5) / 2.0 - 0.5;
        y[i] = i % 3;
        for (int j = 0; j < N; j++)
            A[i][j] = ((i + 2 * j) % 9) / 4.0 - 1.0;
    }
    kernel(N - 2, A, x, y);
    for (int i = 0; i < N; i++)
        printf("%d %.17g\\n", i, y[i]);
    return 0;
}
"""

INLINED = [
    "for (int i = 0; i < n; i++)\n    y[i] = dot(n, A[i], x);",
    "for (int i = 0; i < n; i++) {\n    double t = dot(n, A[i], x) - 0.5;\n    y[i] = t * t + count_above(n, A[i], t);\n}",
    "for (int i = 0; i < n; i++)\n    y[i] = dot(n, A[i], x) > 0.0 ? 1.0 : -1.0;",
    "for (int i = 1; i < n; i++)\n    y[i] = dot(n, A[i], A[i - 1]) > 0.0 && y[i] > 1.0;",
    "for (int i = 0; i < n; i++)\n    y[i] = fabs(dot(n, A[i], x)) + count_above(n, A[i], fmin(dot(n, A[i], A[i]), 1.0));",
]


@pytest.mark.parametrize("body", INLINED, ids=["assigned", "initialiser-and-sum", "condition", "left-of-and",
                                               "arguments"])
@pytest.mark.parametrize("target", ["c", "opencl"])
def test_inlined_calls(target: str, body: str, tmp_path: Path):
    source = tmp_path / "calls.c"
    source.write_text(SOURCE.replace("@BODY@", "    " + body.replace("\n", "\n    ")))
    status, messages = polypragma(source, tmp_path / "opencl-check", ["--target", "opencl"])
    assert status == 0 and messages == "", messages
    generated = generated_for(source, tmp_path / target, target)
    assert "dot_value" in generated.read_text()
    assert program_output(generated, tmp_path / f"{target}.out", ("",), TARGETS[target][1]) == \
        program_output(source, tmp_path / "original")


KEPT = [
    ("for (int i = 0; i < n; i++)\n    y[i] = y[i] > 1.0 || dot(n, A[i], x) > 0.0;",
     "call to 'dot' is not supported by the GPU targets: 'dot' is not inlined where it is called right of '||', "
     "where C may not evaluate it"),
    ("for (int i = 0; i < n; i++)\n    y[i] = (y[i] > 1.0 ? dot(n, A[i], x) : 0.0);",
     "call to 'dot' is not supported by the GPU targets: 'dot' is not inlined where it is called in a branch of "
     "'?:', which C may not evaluate"),
    ("for (int i = 0; i < n; i++)\n    y[i] = capped(n, A[i]);",
     "call to 'capped' is not supported by the GPU targets: 'capped' cannot be inlined: it returns early or uses "
     "goto"),
    ("for (int i = 0; i < n; i++)\n    y[i] += last_square(n, A[i]) * 0.0;",
     "call to 'last_square' is not supported by the GPU targets: 'last_square' cannot be inlined: its last "
     "statement is not the 'return' of its value"),
]


@pytest.mark.parametrize("body, why", KEPT, ids=["right-of-or", "branch", "early-return", "no-return"])
def test_calls_kept(body: str, why: str, tmp_path: Path):
    """A call C may not evaluate (the right operand of ||, a branch of ?:), or a function that returns early or
    not at its end, stays a call: the GPU targets leave the region as written, saying why; the c target runs
    it."""
    source = tmp_path / "calls.c"
    source.write_text(SOURCE.replace("@BODY@", "    " + body.replace("\n", "\n    ")))
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl"])
    assert status == 0 and why in messages, messages
    if "last_square" in body:
        return  # (the original reads a value the function never returns)
    generated = generated_for(source, tmp_path / "c", "c")
    assert program_output(generated, tmp_path / "c.out") == program_output(source, tmp_path / "original")
