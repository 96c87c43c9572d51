"""Pointers a region declares to name a row or an element of an array are replaced by what they name
(polypragma/frontend/aliases.py): the generated programs print what the original prints, and a
pointer whose value may change, or that reaches where subscripts would not, keeps the region as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import compile_c, generated_path, opencl_device, polypragma, program_output, run

SOURCE = """\
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void kernel(int n, int m, double A[n][m], double *x, double *y, double **rows)
{{
#pragma scop
{body}
#pragma endscop
}}

int main(void)
{{
    int n = 19, m = 11;
    double (*A)[m] = malloc(n * sizeof *A);
    double *x = malloc(n * m * sizeof(double)), *y = malloc(n * m * sizeof(double));
    double **rows = malloc(n * sizeof(double *)), *flat = malloc(n * m * sizeof(double));
    unsigned s = 99;
    for (int i = 0; i < n; i++) {{
        rows[i] = flat + i * m;
        for (int j = 0; j < m; j++) {{
            A[i][j] = (s = s * 1103515245u + 12345u) % 1000 / 9.0;
            x[i * m + j] = (s = s * 1103515245u + 12345u) % 1000 / 7.0;
            y[i * m + j] = (s = s * 1103515245u + 12345u) % 1000 / 5.0;
            flat[i * m + j] = i - j;
        }}
    }}
    kernel(n, m, A, x, y, rows);
    double sum = 0.0;
    for (int i = 0; i < n * m; i++)
        sum += (i + 1) * (A[i / m][i % m] + 2.0 * x[i] + 3.0 * y[i] + 5.0 * flat[i]);
    printf("%.17g\\n", sum);
    return 0;
}}
"""

REPLACED = """\
    double *all = x;
    for (int i = 0; i < n; i++) {
        double *Ai = A[i];
        const double *yi = &y[i * m];
        double *xi = x + i * m;
        double *last = &x[i * m + m - 1];
        for (int j = 1; j < m; j++) {
            Ai[j] = Ai[j - 1] + 0.5 * yi[j] - *(xi + j);
            *last += *Ai * yi[0];
        }
        memcpy(xi, yi, (m - 1) * sizeof(double));
    }
    for (int i = 1; i < n; i++) {
        double *r = rows[i], *before = rows[i - 1];
        for (int j = 0; j < m; j++)
            r[j] += before[j] * all[i * m + j];
    }
    for (int i = 0; i < n; i++) {
        int mirror = n - 1 - i;
        const int len = m - i % 1 - 1;
        for (int j = 0; j < len; j++) {
            long at = (long)mirror * m + j;
            y[at] = 0.5 * y[at] + x[i * m + j + 1];
        }
    }
"""


def test_pointers_replaced_on_every_target(tmp_path: Path):
    source = tmp_path / "aliases.c"
    source.write_text(SOURCE.format(body=REPLACED))
    expected = program_output(source, tmp_path / "original")
    for name, options in (("c", ["--target", "c"]), ("opencl", ["--target", "opencl", "--no-fp-contract"])):
        if name == "opencl" and opencl_device():
            continue
        status, messages = polypragma(source, tmp_path / name, options)
        assert status == 0 and messages == "", messages
        generated = generated_path(source, tmp_path / name)
        if name == "c":
            region = generated.read_text().split("/* polypragma: region 0")[1].split("\n}\n")[0]
            assert "Ai" not in region and "xi" not in region and "A[c0][c1]" in region, region
            assert "mirror" not in region and "len" not in region and "at" not in region.split(), region
        libs = ("-lOpenCL",) if name == "opencl" else ()
        assert program_output(generated, tmp_path / f"{name}.out", libs=libs) == expected, name


@pytest.mark.parametrize("body", [
    # the pointer changes, but for a step each iteration (frontend/induction.py): under a condition, or
    # read after the loop (a pointer assignment)
    "double *p = x;\nfor (int i = 0; i < n; i++) {\n    p[0] += y[i];\n    if (y[i] > 100.0)\n        p++;\n}",
    "double *p = x;\nfor (int i = 0; i < n; i++)\n    *p++ = y[i];\np[0] = 1.0;",
    "double *p = A[0];\nfor (int i = 0; i < n; i++) {\n    p[1] = y[i];\n    p = A[i];\n}",
    # what its value read changes
    "int k = 0;\ndouble *p = &x[k];\nk = 3;\nfor (int i = 0; i < n; i++)\n    p[i] = y[i];",
    # the bytes of an element of a row reach the next rows, where subscripts would not
    "double *p = &A[1][2];\nfor (int i = 0; i < n; i++)\n    p[i] = y[i];",
    # a row walked past its end, as a flat array
    "double *p = A[0];\nfor (int i = 0; i < 3 * m; i++)\n    p[i] = y[i];\nfor (int i = 0; i < n; i++)\n"
    "    x[i] = A[i][0];",
    # its subscript reads memory (C evaluates it once, at the declaration)
    "double *p = &x[(int)y[0] % 3];\ny[0] = 7.0;\nfor (int i = 0; i < n; i++)\n    p[i] = y[i];",
], ids=["stepped-under-a-condition", "read-after-stepping", "assigned", "value-read-changes", "element-of-a-row",
        "row-walked-past-its-end", "subscript-on-data"])
def test_pointer_kept(body: str, tmp_path: Path):
    source = tmp_path / "kept.c"
    source.write_text(SOURCE.format(body="    " + body.replace("\n", "\n    ")))
    status, messages = polypragma(source, tmp_path / "c", ["--target", "c"])
    assert status == 0 and "warning: region left as written: pointer 'p' declared in the region" in messages, \
        messages
    assert program_output(generated_path(source, tmp_path / "c"), tmp_path / "c.out") == \
        program_output(source, tmp_path / "original")


@pytest.mark.parametrize("body", [
    "for (int i = 0; i < n; i++) {\n    int j = i;\n    j += 1;\n    y[j % n] = x[i];\n}",
    "for (int i = 0; i < n; i++) {\n    int j = (int)x[0] % 3 + i;\n    y[j] = x[i];\n}",
    "for (int i = 0; i < n; i++) {\n    unsigned j = n - 1 - i;\n    y[j] = x[i];\n}",
    "int k = 2;\nfor (int i = 0; i < n; i++) {\n    int j = k + i;\n    k = 1;\n    y[j] = x[i];\n}",
], ids=["assigned", "reads-memory", "unsigned", "reads-what-changes"])
def test_integer_kept(body: str, tmp_path: Path):
    """An integer whose value is not its expression everywhere after it stays a scalar of the region: the c
    target runs it as written."""
    source = tmp_path / "kept.c"
    source.write_text(SOURCE.format(body="    " + body.replace("\n", "\n    ")))
    status, messages = polypragma(source, tmp_path / "c", ["--target", "c"])
    assert status == 0 and messages == "", messages
    region = generated_path(source, tmp_path / "c").read_text().split("/* polypragma: region 0")[1]
    assert "y[j" in region, region
    assert program_output(generated_path(source, tmp_path / "c"), tmp_path / "c.out") == \
        program_output(source, tmp_path / "original")


def test_row_given_to_a_function_that_walks_past_its_end(tmp_path: Path):
    """A function given a row (inlined: its pointer parameter is the row) that walks past the row's end stays
    a call: inlined, its writes past the end were taken for elements of that row, and a later read of the
    next rows was scheduled before them."""
    definition = "static void fill(int len, double *p, double v)\n{\n    for (int k = 0; k < len; k++)\n" \
        "        p[k] = v * k;\n}\n\n"
    body = ("    for (int i = 0; i < n; i++)\n        for (int j = 0; j < m; j++)\n            x[i * m + j] = A[i][j];\n"
            "    for (int i = 0; i < n; i++)\n        fill(m, A[i], 0.5 * i);\n    fill(2 * m, A[0], 3.0);\n"
            "    for (int i = 0; i < n; i++)\n        for (int j = 0; j < m; j++)\n            y[i * m + j] += A[i][j];")
    source = tmp_path / "walk.c"
    source.write_text(SOURCE.format(body=body).replace("static void kernel(", definition + "static void kernel("))
    status, messages = polypragma(source, tmp_path / "opencl", ["--target", "opencl"])
    assert "'fill' cannot be inlined: its subscripts through 'p', given the row 'A[0]', may reach past the row's end" \
        in messages, messages
    status, messages = polypragma(source, tmp_path / "c", ["--target", "c"])
    assert status == 0 and messages == "", messages
    assert program_output(generated_path(source, tmp_path / "c"), tmp_path / "c.out") == \
        program_output(source, tmp_path / "original")


def test_locals_of_two_inlined_bodies_in_kernels(tmp_path: Path):
    """Two calls of a function with a local, inlined: the second body's local is hoisted under another name
    (s_1), which each kernel's statements read through its buffer, in the original order too (the kernel
    read 's', which it did not declare: the OpenCL build failed)."""
    if opencl_device():
        pytest.skip(opencl_device())
    definition = ("static void rowsum(int n, const double *a, double *out)\n{\n    double s = 0.0;\n"
                  "    for (int k = 0; k < n; k++)\n        s += a[k];\n    *out = s;\n}\n\n")
    body = ("    for (int i = 0; i < n; i++)\n        rowsum(m, A[i], &x[i]);\n"
            "    for (int i = 0; i < n; i++)\n        rowsum(m, A[i], &y[i + 1]);")
    source = tmp_path / "sums.c"
    source.write_text(SOURCE.format(body=body).replace("static void kernel(", definition + "static void kernel("))
    expected = program_output(source, tmp_path / "original")
    for options in ([], ["--no-reschedule"]):
        outdir = tmp_path / f"opencl{len(options)}"
        status, messages = polypragma(source, outdir, ["--target", "opencl", *options])
        assert status == 0 and messages == "", messages
        generated = generated_path(source, outdir)
        compile_c(generated, outdir / "gen", libs=["-lOpenCL"])
        result = run(outdir / "gen", env={"POLYPRAGMA_DEVICE": "gpu"})
        assert result.returncode == 0 and result.stdout == expected, result.stderr
