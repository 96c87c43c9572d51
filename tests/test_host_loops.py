"""Loops that run on the host around the rest of their region (frontend/host_loops.py): a convergence loop
(``while``, ``do``-``while``, a counted loop leaving on data) stays host code, and the statements before,
in and after it are regions of their own, whose arrays the GPU targets keep on the device until the
region ends.  Every target's output is compared with the original's, the OpenCL runs also without the
keep scope, with the copies counted, and with a failure injected into each checked call of a run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness import TARGETS, compile_c, generated_for, opencl_device, polypragma, program_output, run

SOURCE = """\
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* while on a residual computed by a reduction; a first and a last piece around the loop */
static int jacobi(int n, double tol, int most, double *u, double *v, double *total)
{
    int it = 0, i, j;
    double diff = tol + 1.0;
#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            v[i * n + j] = u[i * n + j];
    while (diff > tol && it < most) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
        diff = 0.0;
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++) {
                diff = fmax(diff, fabs(v[i * n + j] - u[i * n + j]));
                u[i * n + j] = v[i * n + j];
            }
        it++;
    }
    *total = 0.0;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            *total += u[i * n + j];
#pragma endscop
    return it;
}

/* do-while, and a counted loop leaving on data with its iterator read after the region; an inner
   convergence loop inside an outer one */
static double sweeps(int n, int most, double *a, double *b)
{
    int k, sweep, moved;
    double change = 0.0;
#pragma scop
    do {
        moved = 0;
        for (k = 1; k < n - 1; k++)
            b[k] = (a[k - 1] + a[k] + a[k + 1]) / 3.0;
        for (k = 1; k < n - 1; k++) {
            moved += fabs(b[k] - a[k]) > 1e-3;
            a[k] = b[k];
        }
    } while (moved > 0);
    for (sweep = 0; sweep < most; sweep++) {
        for (k = 0; k < n; k++)
            a[k] = 0.5 * a[k] + 0.25;
        change = 1.0;
        while (change > 1e-6) {
            change = 0.0;
            for (k = 0; k < n; k++) {
                change = fmax(change, fabs(b[k] - a[k]));
                b[k] = 0.5 * (b[k] + a[k]);
            }
        }
        if (change < 1e-8 * sweep)
            break;
    }
#pragma endscop
    return sweep + change;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), most = atoi(argv[2]);
    double *u = malloc(n * n * sizeof(double)), *v = malloc(n * n * sizeof(double)), total;
    for (int i = 0; i < n * n; i++)
        u[i] = (i % n == 0 || i < n) ? 1.0 : (i * 7 % 13) / 13.0;
    int it = jacobi(n, 1e-3, most, u, v, &total);
    printf("%d %.12g %.12g\\n", it, total, u[(n / 2) * n + n / 2]);
    double s = sweeps(n, most, u, v);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += (i + 1) * u[i] + v[i];
    printf("%.12g %.12g\\n", s, sum);
    return 0;
}
"""
RUNS = ("30 0", "30 1", "2 5", "17 40", "33 400")


@pytest.fixture()
def source(tmp_path: Path) -> Path:
    path = tmp_path / "converge.c"
    path.write_text(SOURCE)
    return path


@pytest.mark.parametrize("target", ["c", "openmp", "opencl"])
def test_convergence_loops_give_the_original_results(target: str, source: Path, tmp_path: Path):
    generated = generated_for(source, tmp_path / target, target)
    text = generated.read_text()
    # the four loops as written, on the host
    for header in ("while (diff > tol && it < most) {", "} while (moved > 0);",
                   "for (sweep = 0; sweep < most; sweep++) {", "while (change > 1e-6) {", "break;"):
        assert header in text, header
    assert program_output(generated, tmp_path / f"{target}.out", RUNS, TARGETS[target][1]) == \
        program_output(source, tmp_path / "original", RUNS)


def test_the_loops_are_explained(source: Path, tmp_path: Path):
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl", "--explain"])
    assert status == 0, messages
    for line, kind, reads in ((14, "while", "condition reads"), (41, "do-while", "condition reads"),
                              (50, "for", "exits read")):
        assert f"note: region {0 if line == 14 else 1}: the {kind} loop at line {line} runs on the host (its {reads} " \
            "data the region computes)" in messages, messages
    # the inner loop, split again inside the body of the outer one
    assert re.search(r"note: region 1_\d+: the while loop at line 54 runs on the host", messages), messages
    # the residual's loop is a parallel reduction, not a kernel on one thread
    assert "reduction diff = max(diff, ...) (line 21): its loop runs in parallel" in messages, messages
    # a count of the elements that moved: an integer reduction, whatever the comparison reads
    assert "reduction moved += ... (line 46): its loop runs in parallel" in messages, messages


def test_arrays_stay_on_the_device_across_iterations(source: Path, tmp_path: Path):
    """With the keep scope, u and v cross once each way however many iterations run; without it
    (POLYPRAGMA_DATA=copy) every call of the loop's body copies them."""
    if opencl_device():
        pytest.skip(opencl_device())
    generated = generated_for(source, tmp_path / "opencl", "opencl")
    exe = tmp_path / "converge"
    compile_c(generated, exe, libs=["-lOpenCL"])
    copied = {}
    for mode in ("", "copy"):
        got = run(exe, ["33", "400"], env={"POLYPRAGMA_PROFILE": "1", "POLYPRAGMA_DATA": mode})
        assert got.returncode == 0, got.stderr
        copied[mode] = [int(b) for b in re.findall(r"copies (?:in|out) \((\d+) bytes\)", got.stderr)]
    iterations = int(run(exe, ["33", "400"]).stdout.split()[0])
    assert iterations > 50
    array = 33 * 33 * 8
    assert all(b < 8 * array for b in copied[""]), copied  # u and v, in and out, a few times: not per iteration
    assert all(b > iterations * array for b in copied["copy"]), copied


def test_a_failure_at_every_checked_call(source: Path, tmp_path: Path):
    """A failure injected into each checked call of a run in turn: the program prints what the original
    prints (the pieces fall back to their original loops, the kept arrays brought to the host first), or
    stops with status 1 where a kernel had written the only current copy of an array."""
    if opencl_device():
        pytest.skip(opencl_device())
    generated = generated_for(source, tmp_path / "opencl", "opencl")
    exe, original = tmp_path / "converge", tmp_path / "original"
    compile_c(generated, exe, libs=["-lOpenCL"])
    compile_c(source, original, libs=["-lm"])
    args = ["9", "3"]
    expected = run(original, args).stdout
    fallbacks = 0
    for n in range(1, 400, 3):
        got = run(exe, args, env={"POLYPRAGMA_DEVICE": "auto", "POLYPRAGMA_INJECT_FAILURE": str(n)})
        if "injecting a failure" not in got.stderr:
            break
        if got.returncode == 0:
            assert got.stdout == expected, (n, got.stderr)
            fallbacks += 1
        else:
            assert got.returncode == 1 and ("cannot fall back" in got.stderr or "were lost" in got.stderr), got.stderr
    assert fallbacks > 10


DECLARED = """\
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* scalars declared in the region, read by the host code and after the region; an exit in a while loop */
static double run(int n, double *a, double *b)
{
#pragma scop
    double r = 1.0;
    int k = 0;
    while (r > 1e-9) {
        for (int i = 1; i < n; i++)
            b[i] = 0.5 * (a[i] + a[i - 1]);
        r = 0.0;
        for (int i = 1; i < n; i++) {
            r += fabs(b[i] - a[i]);
            a[i] = b[i];
        }
        k = k + 1;
        if (k >= 2 * n)
            break;
    }
    double out = r + k;
#pragma endscop
    return out + r * k;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        a[i] = b[i] = (i % 3) * 0.25;
    double r = run(n, a, b);
    printf("%.17g %.17g %.17g\\n", r, a[n - 1], b[n / 2]);
    return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp", "opencl"])
def test_scalars_declared_in_the_region_stay_host_code(target: str, tmp_path: Path):
    source = tmp_path / "declared.c"
    source.write_text(DECLARED)
    generated = generated_for(source, tmp_path / target, target)
    text = generated.read_text()
    for line in ("    double r = 1.0;", "    int k = 0;", "        k = k + 1;", "    double out = r + k;"):
        assert f"\n{line}\n" in text, line  # (as written, on the host)
    runs = ("1", "2", "5", "40")
    assert program_output(generated, tmp_path / f"{target}.out", runs, TARGETS[target][1]) == \
        program_output(source, tmp_path / "original", runs, ("-lm",))


def _compiled(tmp_path: Path, body: str) -> tuple[str, str]:
    source = tmp_path / "kept.c"
    source.write_text(f"""\
#include <math.h>
double g(int n);
double f(int n, double *a, double *b)
{{
    double d = 1.0;
    int k;
#pragma scop
{body}
#pragma endscop
    return d;
}}
""")
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl", "--explain"])
    assert status == 0, messages
    return messages, (tmp_path / "out" / "kept.polypragma.c").read_text()


_HALVE = "        d = 0.0;\n        for (k = 0; k < n; k++) {\n            d += a[k];\n            a[k] *= 0.5;\n        }\n"


@pytest.mark.parametrize("body,on_host", [
    # scalars only in the host code: split
    (f"    while (d > 1e-3) {{\n{_HALVE}        d = d * (1.0 + n);\n    }}", True),
    # a counted loop's header without its parts is a while loop
    (f"    for (; d > 1e-3; ) {{\n{_HALVE}    }}", True),
    # the condition reads an array, whose current copy may be the device's
    (f"    while (a[0] > 1e-3) {{\n{_HALVE}    }}", False),
    # a function the host code would call may read one
    (f"    while (d > 1e-3) {{\n{_HALVE}        d = d * g(n);\n    }}", False),
    # the closing brace shares its line with the next statement
    (f"    while (d > 1e-3) {{\n{_HALVE}    }} b[0] = d;", False),
])
def test_loops_the_host_cannot_run_stay_in_the_model(tmp_path: Path, body: str, on_host: bool):
    messages, text = _compiled(tmp_path, body)
    assert ("runs on the host" in messages) == on_host, messages
    assert ("keep_enter" in text) == on_host, text
