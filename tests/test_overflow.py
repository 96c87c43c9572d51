"""Generated integer arithmetic that may leave int: computed in long long, exactly, and only there.

isl writes the bounds of loops tied by several congruences with the inverses of their moduli
(tests/differential/regressions/statement_parts_overlap.c).  Each expression below is printed as a
kernel prints it, compiled with the undefined-behaviour sanitiser's check of signed overflow, and
evaluated over its whole domain against Python's exact arithmetic.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import islpy as isl
import pytest

from harness import compile_c, generated_path, opencl_device, polypragma, run
from polypragma.codegen.printer import CFamilyPrinter

CONTEXT = "[b, k] -> { : 0 <= b < 65535 and 0 <= k <= 100000 }"
BOUNDS = {"b": (0, 65534), "k": (0, 100000)}

# (isl's expression, the same in Python); the first three are of the kind the differential program
# 2625 needed (blocks around a grid of 65535, threads around a block of 2)
WIDE = [
    ("[b, k] -> { [(floor((2147385345 * b - 65535 * k - 2147418113) / 4294836225))] }",
     lambda b, k: (2147385345 * b - 65535 * k - 2147418113) // 4294836225),
    ("[b, k] -> { [((32767 * b + 2 * k + 65534) mod 65535)] }",
     lambda b, k: (32767 * b + 2 * k + 65534) % 65535),
    ("[b, k] -> { [(-32767 * b - 3 * k)] }", lambda b, k: -32767 * b - 3 * k),
    ("[b, k] -> { [(floor((65535 * b + 40000 * k) / 3))] }", lambda b, k: (65535 * b + 40000 * k) // 3),
]


def _printer() -> CFamilyPrinter:
    printer = CFamilyPrinter()
    for name, interval in BOUNDS.items():
        printer.ranges.bound(name, interval)
    return printer


def _expression(text: str) -> str:
    build = isl.AstBuild.from_context(isl.Set(CONTEXT))
    printer = _printer()
    printed = printer.expr(build.expr_from_pw_aff(isl.PwAff(text)))
    return "\n".join(printer.helper_lines()), printed


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_wide_expressions_are_exact_and_never_overflow(tmp_path):
    helpers, functions, calls = set(), [], []
    for k, (text, _) in enumerate(WIDE):
        lines, printed = _expression(text)
        assert "(long long)" in printed, printed
        helpers.update(lines.splitlines())
        functions.append(f"static long long e{k}(int b, int k) {{ return {printed}; }}")
        calls.append(f'printf("%lld\\n", e{k}(b, k));')
    samples_k = (0, 1, 2, 99999, 100000)
    source = "\n".join(["#include <stdio.h>", *sorted(helpers), *functions,
                        "int main(void) {",
                        "  for (int b = 0; b < 65535; b += 7)",
                        f"    for (int s = 0; s < {len(samples_k)}; s++) {{",
                        f"      static const int ks[] = {{{', '.join(map(str, samples_k))}}};",
                        "      int k = ks[s];",
                        *("      " + c for c in calls),
                        "    }",
                        "  return 0;", "}"])
    (tmp_path / "e.c").write_text(source)
    subprocess.run(["gcc", "-O1", "-fsanitize=signed-integer-overflow", "-fno-sanitize-recover=all",
                    "e.c", "-o", "e"], cwd=tmp_path, check=True)
    run = subprocess.run(["./e"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    expected = [f(b, k) for b in range(0, 65535, 7) for k in samples_k for _, f in WIDE]
    assert [int(v) for v in run.stdout.split()] == expected


def test_ordinary_expressions_are_printed_in_int():
    for text, wanted in [("[b, k] -> { [(32 * b + k)] }", "32 * b + k"),
                         ("[b, k] -> { [(floor((k + 31) / 32))] }", "(k + 31) / 32"),
                         ("[b, k] -> { [((b + 65532) mod 65535)] }", "(b + 65532) % 65535")]:
        assert _expression(text)[1] == wanted


class _LoopPrinter(CFamilyPrinter):
    def user(self, n, depth):
        return [self.pad(depth) + f"S({self.expr(n.user_get_expr().get_op_arg(1))});"]


def test_a_loop_starting_beyond_int_has_a_wide_iterator():
    domain = isl.UnionSet("[n] -> { S[i] : 3000000000 <= i <= 3000000000 + n and 0 <= n <= 100 }")
    schedule = isl.Schedule.from_domain(domain).insert_partial_schedule(
        isl.MultiUnionPwAff("[n] -> [{ S[i] -> [(i)] }]"))
    ast = isl.AstBuild.from_context(isl.Set("[n] -> { : 0 <= n <= 100 }")).node_from_schedule(schedule)
    lines = _LoopPrinter().node(ast, 0)
    assert lines[0].startswith("for (long long c0 = 3000000000;"), lines


BIG = r"""
#include <stdio.h>
#include <stdlib.h>

/* the last 2x3 elements of B and C, whatever their size */
static void corner(int n, int m, char B[n][m], char C[n][m])
{
#pragma scop
  for (int i = n - 2; i < n; i++)
    for (int j = m - 3; j < m; j++)
      B[i][j] = C[i][j] + (char)(i - j);
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = atoi(argv[1]), m = atoi(argv[2]);
  char (*B)[m] = calloc((size_t)n * m, 1), (*C)[m] = calloc((size_t)n * m, 1);  /* (untouched pages cost nothing) */
  if (!B || !C)
    return 2;
  for (int i = n - 2; i < n; i++)
    for (int j = m - 3; j < m; j++)
      C[i][j] = (char)(3 * i + j);
  corner(n, m, B, C);
  long sum = 0;
  for (int i = n - 2; i < n; i++)
    for (int j = m - 3; j < m; j++)
      sum = 31 * sum + B[i][j];
  printf("%ld\n", sum);
  return 0;
}
"""


def _corner(n: int, m: int) -> int:
    total = 0
    for i in range(n - 2, n):
        for j in range(m - 3, m):
            value = ((3 * i + j) % 256 + (i - j) % 256) % 256
            total = 31 * total + (value - 256 if value > 127 else value)
    return total


def test_an_array_beyond_the_kernels_int_indices_runs_the_original_loops(tmp_path):
    """B and C have n * m elements, a parameter: past 2**31 - 1 the kernels' flat indices ((i) * m + j, in
    int) would wrap around, so the region runs its original loops and says why; below, its kernel."""
    why = opencl_device()
    if why:
        pytest.skip(why)
    source = tmp_path / "big.c"
    source.write_text(BIG)
    status, err = polypragma(source, tmp_path / "out", ["--target", "opencl"])
    assert status == 0, err
    exe = tmp_path / "big"
    compile_c(generated_path(source, tmp_path / "out"), exe, libs=["-lOpenCL"])
    for n, m, warned in [(50000, 50000, True), (300, 200, False)]:
        result = run(exe, [str(n), str(m)])
        assert result.returncode == 0, result.stderr
        assert int(result.stdout) == _corner(n, m)
        assert ("array 'B' has 2500000000 elements, more than the kernels' int indices reach; running the "
                "original loops" in result.stderr) == warned, result.stderr


def test_a_constant_array_beyond_int_is_indexed_in_long_long(tmp_path):
    """An array of 50000 x 50000 elements: the kernel's flat index is computed in long long from its row."""
    source = tmp_path / "static.c"
    source.write_text("static double A[50000][50000];\nvoid f(int n)\n{\n#pragma scop\n"
                      "  for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++)\n      A[i][j] = 2.0 * A[i][j];\n"
                      "#pragma endscop\n}\n")
    status, err = polypragma(source, tmp_path / "out", ["--target", "opencl"])
    assert status == 0, err
    kernel = generated_path(source, tmp_path / "out").read_text()
    assert re.search(r"A\[\(long\)\([^]]*\) \* 50000 \+ ", kernel), kernel


def test_logical_operations_with_a_constant_operand_are_folded():
    """A guard known to hold may reach the printer as the constant 1 (a kernel printed 'if (k2 >= 1 || 1)',
    which the OpenCL compiler warned of): ``x || 1`` is 1, ``x && 1`` is x, ``x || 0`` is x, ``x && 0`` is 0
    (an ``if`` on a constant is then the branch it takes, as a block: test_rotations.py's arrays of rows)."""
    ctx = isl.DEFAULT_CONTEXT
    k = isl.AstExpr.from_id(isl.Id("k", context=ctx))
    test = k.ge(isl.AstExpr.from_val(isl.Val.int_from_si(ctx, 1)))
    one, zero = (isl.AstExpr.from_val(isl.Val.int_from_si(ctx, v)) for v in (1, 0))
    printer = _printer()
    assert printer.expr(test.or_(one)) == "1" and printer.expr(one.or_else(test)) == "1"
    assert printer.expr(test.and_(one)) == "k >= 1" and printer.expr(one.and_then(test)) == "k >= 1"
    assert printer.expr(test.or_(zero)) == "k >= 1" and printer.expr(zero.and_(test)) == "0"
    assert printer.expr(one.and_(zero)) == "0" and printer.expr(test.or_(test)) == "k >= 1 || k >= 1"
