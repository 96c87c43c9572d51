"""A condition on data that guards loops, moved into them (frontend/normalise.py's _sink_condition): each
iteration is then a statement of the model, the loops parallel where they are; where the condition reads
what the loops write, or a block declares a variable, the code is kept as it was.  Every target's output
is compared with the original's."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import TARGETS, generated_for, polypragma, program_output

SOURCE = """\
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 40

static double A[N][N], B[N][N], w[N];

static void kernel(int n, int m)
{
    int j;
#pragma scop
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int k = 0; k < m; k++)
            s += A[i][k] * A[i][k];
        s = sqrt(s);
        if (s > 2.0)
            for (int k = 0; k < m; k++)
                A[i][k] /= s;
    }
    for (int i = 0; i < n; i++)
        if (w[i] > 0.25) {
            B[i][0] = w[i];
            for (int k = 1; k < m; k++) {
                double t = A[i][k] * w[i];
                B[i][k] = t * t;
            }
        } else
            for (int k = 0; k < m; k++)
                B[i][k] = -A[i][k];
    for (int i = 0; i < n; i++)
        if (A[i][0] > 0.0)
            for (int k = 0; k < m; k++)
                A[i][k] -= A[i][0];
    for (int i = 0; i < n; i++)
        if (w[i] < 0.5)
            for (j = 0; j < m; j++)
                B[i][j] += w[i];
#pragma endscop
}

int main(int argc, char **argv)
{
    unsigned seed = 11;
    for (int i = 0; i < N; i++) {
        w[i] = (seed = seed * 1103515245u + 12345u) % 1000 / 1000.0;
        for (int k = 0; k < N; k++) {
            /* (256ths: the sums of squares are exact in any order, which the GPU targets' reductions may take) */
            A[i][k] = (seed = seed * 1103515245u + 12345u) % 1000 / 256.0 - 1.5;
            B[i][k] = 0.0;
        }
    }
    kernel(atoi(argv[1]), atoi(argv[2]));
    for (int i = 0; i < N; i++) {
        double a = 0.0, b = 0.0;
        for (int k = 0; k < N; k++) {
            a += (k + 1) * A[i][k];
            b += (k + 1) * B[i][k];
        }
        printf("%d %.17g %.17g\\n", i, a, b);
    }
    return 0;
}
"""
RUNS = ("40 40", "17 23", "0 5", "5 0")


@pytest.mark.parametrize("target", ["c", "openmp", "opencl"])
def test_conditions_moved_into_loops(target: str, tmp_path: Path):
    source = tmp_path / "sunk.c"
    source.write_text(SOURCE)
    generated = generated_for(source, tmp_path / target, target)
    assert program_output(generated, tmp_path / f"{target}.out", RUNS, TARGETS[target][1]) == \
        program_output(source, tmp_path / "original", RUNS)


def test_what_is_moved(tmp_path: Path):
    """The scaled rows and both branches become statements of their loops (two dimensions), the first
    nest's row loop parallel with 's' private; the condition that reads what its loop writes, and the loop
    whose iterator is declared before it (which would run without a statement, changing it), stay single
    statements run as written."""
    source = tmp_path / "sunk.c"
    source.write_text(SOURCE)
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl", "-v"])
    assert status == 0, messages
    lines = {int(line.split("(line ")[1].split(")")[0]): line.split("{ ")[1].split("[")[1].split("]")[0]
             for line in messages.splitlines() if "[frontend]   S_" in line}
    assert lines[20] == "i, k" and lines[25] == "i, k" and lines[31] == "i, k", messages  # moved
    assert lines[24] == "i" and lines[33] == "i" and lines[38] == "i", messages  # kept
    assert "s: privatised as s_private (one copy per iteration of the parallel loop(s) i)" in messages, messages


CALLS_SOURCE = """\
#include <stdio.h>
#include <stdlib.h>

static int budget[1];
static double total[1];

static void spend(int *b)
{
    if (b[0] < -1000)
        return;
    b[0] -= 7;
    total[0] += b[0];
}

static void kernel(int m)
{
#pragma scop
    if (budget[0] > 0)
        for (int k = 0; k < m; k++)
            spend(budget);
#pragma endscop
}

int main(int argc, char **argv)
{
    budget[0] = 3 * atoi(argv[1]);
    kernel(atoi(argv[1]));
    printf("%d %.17g\\n", budget[0], total[0]);
    return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_condition_kept_over_a_call(target: str, tmp_path: Path):
    """A loop calling a function that stays a call (spend returns early, so it is not inlined) keeps its
    condition outside: the call may change what the condition reads, as it does here (moved inside, the
    loop would stop spending once the budget is gone)."""
    source = tmp_path / "calls.c"
    source.write_text(CALLS_SOURCE)
    generated = generated_for(source, tmp_path / target, target)
    runs = ("0", "1", "9")
    assert program_output(generated, tmp_path / f"{target}.out", runs, TARGETS[target][1]) == \
        program_output(source, tmp_path / "original", runs)
