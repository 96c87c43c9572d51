"""Generated integer arithmetic that may leave int: computed in long long, exactly, and only there.

isl writes the bounds of loops tied by several congruences with the inverses of their moduli
(tests/differential/regressions/statement_parts_overlap.c).  Each expression below is printed as a
kernel prints it, compiled with the undefined-behaviour sanitiser's check of signed overflow, and
evaluated over its whole domain against Python's exact arithmetic.
"""

from __future__ import annotations

import shutil
import subprocess

import islpy as isl
import pytest

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
