"""Integer and pointer members of structs a region only reads are names of their own
(polypragma/frontend/member_parameters.py): loops bounded by ``g->n``, flat subscripts strided by ``g->m``
and a matrix reached through ``g->data`` run in kernels, and every target prints what the original prints;
a member the region may change stays data."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import TARGETS, generated_for, generated_path, polypragma, program_output

SOURCE = """\
#include <stdio.h>
#include <stdlib.h>

typedef struct { int n, m; long steps; double *data; } grid_t;
struct shape { unsigned rows; int cols; };

static void step(const grid_t *g, struct shape s, double *u, double *v, double *w, grid_t *h)
{
#pragma scop
@BODY@
#pragma endscop
}

int main(int argc, char **argv)
{
    grid_t g = {atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), malloc((atoi(argv[1]) * atoi(argv[2]) + 1) * sizeof(double))};
    struct shape s = {atoi(argv[4]), atoi(argv[5])};
    long size = (long)g.n * g.m + (long)s.rows * s.cols + 1;
    double *u = malloc(size * sizeof(double)), *v = malloc(size * sizeof(double));
    for (long e = 0; e < size; e++) {
        u[e] = (e * 37 % 101) / 7.0;
        v[e] = (e * 53 % 97) / 3.0;
    }
    double sum = 0;
    for (long e = 0; e < (long)g.n * g.m; e++)
        g.data[e] = (e * 29 % 89) / 5.0;
    step(&g, s, u, v, v + (long)g.n * g.m, &g);
    for (long e = 0; e < size; e++)
        sum += (e % 11 + 1) * (u[e] + 2 * v[e]);
    for (long e = 0; e < (long)g.n * g.m; e++)
        sum += (e % 7 + 1) * g.data[e];
    printf("%.17g %d\\n", sum, g.n);
    return 0;
}
"""

# a time loop over a grid's steps, a stencil bounded and strided by its members, and a shape passed by value
READ = """\
    for (long t = 0; t < g->steps; t++) {
        for (int i = 1; i < g->n - 1; i++)
            for (int j = 1; j < g->m - 1; j++)
                v[i * g->m + j] = 0.25 * (u[(i - 1) * g->m + j] + u[(i + 1) * g->m + j] + u[i * g->m + j - 1]
                                          + u[i * g->m + j + 1]);
        for (int i = 1; i < g->n - 1; i++)
            for (int j = 1; j < g->m - 1; j++)
                u[i * g->m + j] = v[i * g->m + j];
    }
    for (unsigned r = 0; r < s.rows; r++)
        for (int c = 0; c < s.cols; c++)
            w[r * s.cols + c] += 0.5 * r;
    for (int i = 0; i < g->n; i++)
        for (int j = 0; j < g->m; j++)
            g->data[i * g->m + j] = 0.5 * g->data[i * g->m + j] + u[i * g->m + j];"""
RUNS = ("10 12 3 4 5", "1 1 1 0 0", "30 17 5 6 9", "5 5 0 3 3")


@pytest.mark.parametrize("target", ["c", "openmp", "opencl"])
def test_members_read_are_parameters(target: str, tmp_path: Path):
    source = tmp_path / "members.c"
    source.write_text(SOURCE.replace("@BODY@", READ))
    generated = generated_for(source, tmp_path / target, target)
    text = generated.read_text()
    assert "long g__steps = g->steps;" in text and "int g__m = g->m;" in text and "unsigned s__rows = s.rows;" in text
    assert "double *g__data = g->data;" in text
    if target != "opencl":
        region = text.split("/* polypragma: region 0")[1]
        assert "c0 < g__steps" in region and "->" not in region.split("\n}\n")[0].split("= s.cols;")[1], region
    assert program_output(generated, tmp_path / f"{target}.out", RUNS, TARGETS[target][1]) == \
        program_output(source, tmp_path / "original", RUNS)


@pytest.mark.parametrize("change", [
    "h->n = 4;",                      # another pointer may name the same struct
    "g = h;",                         # the pointer itself
    "srand((unsigned)(size_t)g);",    # a function given it could change its members
], ids=["member-written", "pointer-assigned", "passed-to-a-call"])
def test_member_that_may_change_stays_data(change: str, tmp_path: Path):
    """Where the region may change a member, it stays data: a loop bounded by it is not affine (the GPU
    targets leave the region as written; assigning a pointer to a struct, they refuse first), and the c
    target runs it as written."""
    body = f"    {change}\n    for (int i = 0; i < g->n; i++)\n        u[i] += v[i];"
    source = tmp_path / "changed.c"
    source.write_text(SOURCE.replace("@BODY@", body).replace("const grid_t *g", "grid_t *g"))
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl"])
    assert status == 0 and "region left as written" in messages, messages
    assert "loop condition 'i < g->n' is not affine" in messages or change == "g = h;", messages
    status, messages = polypragma(source, tmp_path / "c", ["--target", "c"])
    assert status == 0, messages
    generated = generated_path(source, tmp_path / "c")
    assert "g__n" not in generated.read_text()
    assert program_output(generated, tmp_path / "c.out", RUNS) == program_output(source, tmp_path / "original", RUNS)
