"""Counters and pointers that step by the same amount each iteration are written as the functions of the
loop iterators they are (polypragma/frontend/induction.py): the generated programs print what the
original prints on every target, with sizes where inner loops run and where they do not, and a counter
stepped under a condition or in a triangle stays a scalar the loops carry."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import TARGETS, generated_for, generated_path, opencl_device, polypragma, program_output

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


SIZES = ("1 1 1", "9 4 0", "40 13 3")


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
        # stepped under a condition, in a triangle, in a loop a break may cut short; one of a type wider
        # than int is replaced
        kept = text.split("/* polypragma: region 1")[1]
        for step in ("k++", "w++", "b++"):
            assert step in kept, (step, kept)
        assert "wide++" not in kept, kept
    else:
        assert "counters.c:1" not in messages, messages  # the first region is generated (no warning)
    libs = ("-lOpenCL",) if target == "opencl" else ()
    assert program_output(generated_path(source, tmp_path / "out"), tmp_path / "gen", SIZES, libs) == \
        program_output(source, tmp_path / "original", SIZES)


WIDE = """\
#include <stdio.h>
#include <stdlib.h>

static void pack(int n, int m, double *A, double *B, long long *first)
{
#pragma scop
    long k = 0;
    long long q = 5;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            B[k] = 2.0 * A[i * m + j];
            k++;
            q += 3;
        }
    *first = q;
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), m = atoi(argv[2]);
    double *A = malloc((n * m + 1) * sizeof(double)), *B = calloc(n * m + 1, sizeof(double));
    long long q = 0;
    for (int e = 0; e < n * m; e++)
        A[e] = (e * 37 % 101) / 7.0;
    pack(n, m, A, B, &q);
    double sum = 0.0;
    for (int e = 0; e < n * m; e++)
        sum += (e + 1) * B[e];
    printf("%.17g %lld\\n", sum, q);
    return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp", "opencl"])
def test_counters_wider_than_int(target: str, tmp_path: Path):
    """A counter of a type wider than int is a function of the iterators computed in its type: the products
    of its value convert their first factor (they may pass int's range where the counter did not)."""
    source = tmp_path / "wide.c"
    source.write_text(WIDE)
    generated = generated_for(source, tmp_path / target, target)
    if target == "c":
        region = generated.read_text().split("/* polypragma: region 0")[1]
        assert "B[((long) c0) * m + c1] = 2.0 * A[c0 * m + c1];" in region, region
        assert "k++" not in region and "q += 3" not in region and "q = 5 + ((long long) " in region, region
    sizes = ("1 1", "7 5", "0 4", "33 20")
    assert program_output(generated, tmp_path / f"{target}.out", sizes, TARGETS[target][1]) == \
        program_output(source, tmp_path / "original", sizes)


# -- random counters ------------------------------------------------------------------------------

@st.composite
def counter_programs(draw) -> str:
    """A nest of two or three loops (bounds on the parameters, constants, now and then an outer iterator:
    a triangle), with a counter set before it and stepped at drawn places, by drawn amounts, now and then
    under a condition; its value stored at each point of the nest, and read after it."""
    depth = draw(st.integers(2, 3))
    iterators = ["i", "j", "l"][:depth]
    start = draw(st.sampled_from(["0", "3", "n", "m - 1", "-2"]))
    lines = [f"    k = {start};"]

    def bound(level: int) -> str:
        choices = ["n", "m", "3", "n - 2", "m + 1", "0"]
        if level and draw(st.integers(0, 5)) == 0:
            choices.append(iterators[level - 1])  # a triangle: left as it is
        return draw(st.sampled_from(choices))

    def step() -> str:
        amount = draw(st.sampled_from(["k++;", "k--;", "k += 2;", "k -= 3;", "k = k + m;", "++k;"]))
        return amount if draw(st.integers(0, 7)) else f"if (n > 4) {amount}"  # (a condition: left as it is)

    def body(level: int, indent: str) -> list[str]:
        out = []
        iterator = iterators[level]
        lower = draw(st.sampled_from(["0", "1", "2"]))
        out.append(f"{indent}for (int {iterator} = {lower}; {iterator} < {bound(level)}; {iterator}++) {{")
        inner = indent + "    "
        cell = " + ".join(f"{name} * {13 ** k}" for k, name in enumerate(iterators[:level + 1]))
        items = [f"{inner}V[{level}][OFF + {cell}] = k;"]
        if draw(st.booleans()):
            items.append(f"{inner}{step()}")
        if level + 1 < depth:
            items.append("NEST")
        if draw(st.booleans()):
            items.append(f"{inner}{step()}")
        items.append(f"{inner}W[{level}][OFF + {cell}] = k * 2 + 1;")
        order = draw(st.permutations(items))
        for item in order:
            out.extend(body(level + 1, inner) if item == "NEST" else [item])
        out.append(f"{indent}}}")
        return out

    lines += body(0, "    ")
    lines.append("    *final = k;")
    return "\n".join(lines)


RANDOM_SOURCE = """\
#include <stdio.h>
#include <stdlib.h>
#define OFF 8
#define CELLS (OFF + 2300)

static int V[3][CELLS], W[3][CELLS];

static void kernel(int n, int m, int *final)
{{
    int k;
#pragma scop
{body}
#pragma endscop
}}

int main(int argc, char **argv)
{{
    int n = argc > 1 ? atoi(argv[1]) : 5, m = argc > 2 ? atoi(argv[2]) : 4, final = 0;
    kernel(n, m, &final);
    long sum = final;
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < CELLS; c++)
            sum = (sum * 31 + V[a][c] * 7 + W[a][c]) % 1000000007L;
    printf("%ld\\n", sum);
    return 0;
}}
"""


@settings(max_examples=6, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=counter_programs())
def test_random_counters_on_the_c_target(body: str, tmp_path_factory):
    """Drawn counters keep their values at every point of the nest, and after it, on the c target and with
    --openmp (sizes where the inner loops run, and where some do not)."""
    tmp_path = tmp_path_factory.mktemp("counter")
    source = tmp_path / "counter.c"
    source.write_text(RANDOM_SOURCE.format(body=body))
    sizes = ("5 4", "2 7", "11 1", "0 3")
    expected = program_output(source, tmp_path / "original", sizes)
    for name, options in (("c", ["--target", "c"]), ("omp", ["--target", "c", "--openmp"])):
        status, messages = polypragma(source, tmp_path / name, options)
        assert status == 0, messages
        generated = generated_path(source, tmp_path / name)
        assert program_output(generated, tmp_path / f"{name}.exe", sizes) == expected, body


PARAMETERS_SOURCE = """\
#include <stdio.h>
#include <stdlib.h>

static void copy(int n, double *restrict y, const double *restrict x)
{
#pragma scop
    while (n--)
        *y++ = 2.0 * *x++ + 1.0;
#pragma endscop
}

static void reverse_add(unsigned long n, double *y, const double *x)
{
#pragma scop
    while (n-- > 0)
        y[n] += x[n] * (double)n;
#pragma endscop
}

static void axpy(int n, double a, const double *x, double *y)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        *y += a * *x;
        y++;
        x++;
    }
#pragma endscop
}

static int count_after(int n, double *y)
{
#pragma scop
    while (n-- > 0)
        y[n] += 1.0;
#pragma endscop
    return n;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double *x = malloc((n + 8) * sizeof(double)), *y = malloc((n + 8) * sizeof(double));
    for (int i = 0; i < n + 8; i++) {
        x[i] = (i * 7 % 11) / 4.0;
        y[i] = (i * 5 % 13) / 8.0;
    }
    copy(n, y + 1, x);
    reverse_add((unsigned long)n, y + 3, x + 2);
    axpy(n, 0.75, x + 4, y);
    int left = count_after(n, y + 2);
    double s = 0.0;
    for (int i = 0; i < n + 8; i++)
        s += (i % 7 + 1) * y[i];
    printf("%.17g %d\\n", s, left);
    return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp", "opencl"])
def test_pointer_parameters_stepped_and_counted_down(target: str, tmp_path: Path):
    """Pointer parameters stepped from their values at the region's start, in a loop counting a parameter
    down (``while (n--) *y++ = *x++;``): every element known, the loops parallel.  A count read after the
    loop stays a while loop, run as written (the GPU targets say why)."""
    if target == "opencl" and opencl_device():
        pytest.skip(opencl_device())
    source = tmp_path / "params.c"
    source.write_text(PARAMETERS_SOURCE)
    runs = ("0", "1", "37")
    status, messages = polypragma(source, tmp_path / target, list(TARGETS[target][0]))
    assert status == 0, messages
    if target == "opencl":
        assert messages.count("warning") == 1 and "params.c:35:" in messages, messages
    else:
        assert messages == "", messages
    generated = generated_path(source, tmp_path / target)
    text = generated.read_text()
    assert "y[n - 1 - c0] += x[n - 1 - c0] * ((double) (n - 1 - c0));" in text or target == "opencl", text
    assert program_output(generated, tmp_path / f"{target}.out", runs, TARGETS[target][1]) == \
        program_output(source, tmp_path / "original", runs)
