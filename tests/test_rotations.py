"""Loops that end by rotating pointers (frontend/rotations.py): unrolled by the rotation's period, each copy
names its arrays, and the region's generated code ends with the rotations alone, so code after the region
sees the pointers (and an iterator declared before the loop) as the original leaves them.  Every target's
output is compared with the original's; the rotations that cannot be unrolled leave the region as written,
with a diagnostic saying why.  (The corpus kernel pointer_swap.c covers a swap and a rotation of three
globals on every target.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness import TARGETS, generated_for, polypragma, program_output

SOURCE = """\
#include <stdio.h>
#include <stdlib.h>

/* counting down, a rotation of four, the temporary declared before the region */
static void down(int steps, int n, double *p, double *q, double *r, double *s)
{
    double *hold;
#pragma scop
    for (int t = steps; t > 0; t--) {
        for (int i = 1; i < n; i++)
            q[i] = 0.5 * p[i - 1] + 0.25 * s[i] + t;
        hold = p;
        p = q;
        q = r;
        r = s;
        s = hold;
    }
#pragma endscop
}

/* a loop stepping by 2 from a bound, with a statement before it that reads the pointers */
static double jump(int lo, int hi, int n, double *a, double *b)
{
    double first;
#pragma scop
    first = a[0] + b[0];
    for (int t = lo; t < hi; t += 2) {
        for (int i = 0; i < n - 1; i++)
            b[i] = a[i + 1] - 0.5 * a[i];
        double *tmp = b;
        b = a;
        a = tmp;
    }
#pragma endscop
    return first + a[1] - b[1];
}

#define SWAP(x, y) do { double *t_ = (x); (x) = (y); (y) = t_; } while (0)
#define SWAP_BLOCK(x, y) { double *t_ = x; x = y; y = t_; }

/* swaps written by macros: do { } while (0), and braces followed by the call's ';' */
static void macros(int steps, int n, double *a, double *b, double *c, double *d)
{
#pragma scop
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            b[i] = a[i] - 0.125 * (a[i - 1] + a[i + 1]);
        SWAP(a, b);
    }
#pragma endscop
#pragma scop
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < n; i++)
            d[i] = 0.5 * c[n - 1 - i] + 1.0;
        SWAP_BLOCK(c, d);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), steps = atoi(argv[2]);
    double *v[4];
    for (int k = 0; k < 4; k++) {
        v[k] = malloc(n * sizeof(double));
        for (int i = 0; i < n; i++)
            v[k][i] = (i * 7 + k * 3) % 11 / 4.0;
    }
    down(steps, n, v[0], v[1], v[2], v[3]);
    double x = jump(3, 3 + steps, n, v[1], v[2]);
    macros(steps, n, v[3], v[0], v[1], v[2]);
    double sum = x;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < n; i++)
            sum += (k + 1) * (i + 1) * v[k][i];
    printf("%.17g\\n", sum);
    return 0;
}
"""
RUNS = ("30 0", "30 1", "30 2", "17 3", "40 4", "23 9")


@pytest.mark.parametrize("target", ["c", "openmp", "opencl"])
def test_rotating_loops_give_the_original_results(target: str, tmp_path: Path):
    source = tmp_path / "rotate.c"
    source.write_text(SOURCE)
    generated = generated_for(source, tmp_path / target, target)
    text = generated.read_text()
    assert text.count("/* polypragma: region") == 4, text
    assert program_output(generated, tmp_path / f"{target}.out", RUNS, TARGETS[target][1]) == \
        program_output(source, tmp_path / "original", RUNS)


def test_the_copies_name_their_arrays(tmp_path: Path):
    """Unrolled by 4, the rotation of four gives four statements, which write p, q, r and s in the kernels;
    unrolled by 2, each swap two, which write a and b (c and d); each domain holds every 4th (2nd) step."""
    source = tmp_path / "rotate.c"
    source.write_text(SOURCE)
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl", "-v"])
    assert status == 0, messages
    assert "[frontend]   the loop at line 9 rotates 'p', 'q', 'r' and 's' at its end: unrolled by 4, each copy " \
        "naming its arrays" in messages, messages
    assert "[frontend]   the loop at line 52 rotates 'c' and 'd' at its end: unrolled by 2" in messages, messages
    domains = [line for line in messages.splitlines() if "[frontend]   S_" in line]
    assert len(domains) == 4 + 1 + 2 + 2 + 2, messages
    assert sum("(-steps + t) mod 4 = 0" in d for d in domains) == 4, domains
    assert sum("(-lo + t) mod 4 = 0" in d for d in domains) == 2, domains  # (t += 2, unrolled by 2)
    generated = (tmp_path / "out" / "rotate.polypragma.c").read_text()
    # (a kernel's writes, by its tile loop or, one tile a block, its block id)
    written = set(re.findall(r"\b([pqrsabcd])\[[^\]]*\b[kb]0\b[^\]]*\] = ", generated))
    assert written == set("pqrsabcd"), written


def _warning(tmp_path: Path, body: str, after: str = "") -> str:
    source = tmp_path / "refused.c"
    source.write_text(f"""\
static void f(int steps, int n, double *a, double *b, double *c)
{{
#pragma scop
{body}
#pragma endscop
{after}
}}
""")
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl"])
    assert status == 0, messages
    return messages


SWAP = """\
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n; i++)
            b[i] = a[i - 1];
%s        double *tmp = a;
        a = b;
        b = tmp;
    }"""


@pytest.mark.parametrize("body, why", [
    ("    for (int r = 0; r < 3; r++) {\n" + SWAP % "" + "\n    }",
     "the loop is inside another statement of the region"),
    (SWAP % "" + "\n    for (int i = 0; i < n; i++)\n        c[i] = a[i];",
     "'a' is read in the region after the loop"),
    (SWAP % "        if (a[0] > 1.0)\n            continue;\n", "the loop may leave its body before the rotation"),
    (SWAP % "        if (b[0] > 1.0)\n            return;\n",
     "the region may leave by a 'return' or 'goto' before the loop"),
    (SWAP % "        c = a;\n", "'c', rotated"),
])
def test_rotations_not_unrolled_say_why(tmp_path: Path, body: str, why: str):
    messages = _warning(tmp_path, body)
    assert "warning: region left as written: " in messages, messages
    if why == "'c', rotated":  # (not a rotation: the pointer assigned is refused as before)
        assert "rotate" not in messages, messages
    else:
        assert "warning: region left as written: rotation of 'a' and 'b' through 'tmp' at the end of a loop is " \
            "not supported here: " + why in messages, messages


def test_numbers_rotated_stay_scalars_of_the_model(tmp_path: Path):
    """A rotation of numbers (``t = x; x = y; y = t;``) is no rotation of pointers: the region is modelled as
    before, its scalars written in the loop."""
    source = tmp_path / "numbers.c"
    source.write_text("""\
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double x = 1.0, y = 2.0, t, sum = 0.0;
#pragma scop
    for (int i = 0; i < n; i++) {
        sum += x * (i + 1);
        t = x;
        x = y;
        y = t;
    }
#pragma endscop
    printf("%.17g %.17g %.17g\\n", x, y, sum);
    return 0;
}
""")
    generated = generated_for(source, tmp_path / "c", "c")
    assert "/* polypragma: region 0" in generated.read_text()
    runs = ("0", "1", "2", "7")
    assert program_output(generated, tmp_path / "c.out", runs) == program_output(source, tmp_path / "original", runs)


ROWS = """\
#include <stdio.h>
#include <stdlib.h>
#define N 40

static void run(int steps, double (*a)[N], double (*b)[N])
{
#pragma scop
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
        double (*tmp)[N] = a;
        a = b;
        b = tmp;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int steps = atoi(argv[1]);
    double (*a)[N] = malloc(sizeof(double[N][N])), (*b)[N] = malloc(sizeof(double[N][N]));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = b[i][j] = (i * 3 + j * 7) % 10;
    run(steps, a, b);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += (i + 1) * a[i][j] + (j + 2) * b[i][j];
    printf("%.17g\\n", s);
    return 0;
}
"""


def test_pointers_to_rows_rotated(tmp_path: Path):
    """Pointers to arrays of rows (``double (*a)[N]``) rotate as pointers to elements do; the kernels'
    guards hold no constant operand (printer._folded: 'if (k2 >= 1 || 1)' drew the OpenCL compiler's
    warning)."""
    source = tmp_path / "rows.c"
    source.write_text(ROWS)
    generated = generated_for(source, tmp_path / "opencl", "opencl")
    kernels = [line for line in generated.read_text().splitlines() if line.startswith('  "')]  # (the program)
    constant = re.compile(r"(?:\|\||&&) [01](?:\)| \|\|| &&)|\([01] (?:\|\||&&)")  # (an operand 0 or 1)
    assert kernels and not [k for k in kernels if constant.search(k)], kernels
    runs = ("0", "1", "4", "7")
    assert program_output(generated, tmp_path / "opencl.out", runs, TARGETS["opencl"][1]) == \
        program_output(source, tmp_path / "original", runs)
