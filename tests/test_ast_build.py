"""The kernel AST build's choices, in isl notation (polypragma.codegen.ast_build)."""

from __future__ import annotations

import islpy as isl
import pytest

from harness import KERNELS, compile_c, generated_path, polypragma, run
from polypragma.codegen import ast_build
from polypragma.codegen.ast_build import build_kernel_ast, partly_spanned
from polypragma.isl_helpers import maps_of

# a shallower nest fused with a deeper one, both tiled by 4 on the mapped loops: S runs in the first
# tile of the second mapped loop only
FUSED = ("[n] -> { S[i] -> [floor(i/4), 0, i - 4*floor(i/4), 0] : 0 <= i < n; "
         "T[i, j] -> [floor(i/4), floor(j/4), i - 4*floor(i/4), j - 4*floor(j/4)] : 0 <= i < n and 0 <= j < i }")

PROGRAM = """#include <stdio.h>
#include <stdlib.h>
#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define S(i) printf("S %d\\n", (i))
#define T(i, j) printf("T %d %d\\n", (i), (j))
int main(int argc, char **argv)
{
  int n = atoi(argv[1]);
  {
@CODE@
  }
  return 0;
}
"""


def test_a_tile_loop_some_statements_do_not_span_is_found():
    assert partly_spanned(isl.UnionMap(FUSED), range(2)) == [1]
    # statements that all span both loops, or all fixed on the second: none
    assert partly_spanned(isl.UnionMap("[n] -> { T[i, j] -> [floor(i/4), floor(j/4), i, j] : 0 <= j < i < n }"),
                          range(2)) == []
    assert partly_spanned(isl.UnionMap("[n] -> { S[i] -> [floor(i/4), 0, i, 0] : 0 <= i < n; "
                                       "U[i] -> [floor(i/4), 0, i, 1] : 0 <= i < n }"), range(2)) == []


@pytest.mark.parametrize("apart", [False, True], ids=["kept", "apart"])
def test_a_partly_spanned_tile_loop_runs_each_instance_once(apart, tmp_path, monkeypatch):
    """The kernel without the tile loop built apart, where it is cheap (UNSEPARATED_OPERATIONS: it cost
    differential program 4170 57-68 s); with the loop built apart in isl's default form otherwise (here
    with a bound of 1 operation).  Run as C for several sizes: every instance of the schedule, once."""
    if apart:
        monkeypatch.setattr(ast_build, "UNSEPARATED_OPERATIONS", 1)
    schedule = isl.UnionMap(FUSED)
    code = build_kernel_ast(isl.Set("[n] -> { : n >= 0 }"), schedule, "k", tile_dims=range(2)).to_C_str()
    # (built apart, the statement that runs in the first tile only has a copy of its own)
    assert code.count("S(") == (2 if apart else 1), code
    source = tmp_path / "ast.c"
    source.write_text(PROGRAM.replace("@CODE@", code))
    compile_c(source, tmp_path / "ast")
    for n in range(12):
        ran = run(tmp_path / "ast", [str(n)]).stdout.split("\n")[:-1]
        expected = [f"S {i}" for i in range(n)] + [f"T {i} {j}" for i in range(n) for j in range(i)]
        assert sorted(ran) == sorted(expected), (n, code)


def test_a_kernel_past_both_bounds_leaves_its_region_as_written(tmp_path, monkeypatch):
    """Past the bounds of both forms of isl's AST build (1 operation each here; program 3258 of the
    differential test took the default form minutes), the region is left as written with a warning
    naming the kernel, and the program still computes what it did."""
    monkeypatch.setattr(ast_build, "ATOMIC_OPERATIONS", 1)
    monkeypatch.setattr(ast_build, "DEFAULT_OPERATIONS", 1)
    source = KERNELS / "jacobi_2d.c"
    plain = ["--target", "opencl", "--no-shared-memory", "--no-private-memory"]  # (no promoted data)
    status, err = polypragma(source, tmp_path / "out", plain, defines=["-DN=13", "-DTSTEPS=3"])
    assert status == 0, err
    assert "warning: region left as written: the code of kernel 0 (statements at line(s) " in err
    assert "could not be built: isl's AST build went past 1 operations" in err
    generated = generated_path(source, tmp_path / "out")
    assert "__kernel" not in generated.read_text()
    compile_c(generated, tmp_path / "gen", ["-DN=13", "-DTSTEPS=3"])
    compile_c(source, tmp_path / "ref", ["-DN=13", "-DTSTEPS=3"])
    assert run(tmp_path / "gen", ["3"]).stdout == run(tmp_path / "ref", ["3"]).stdout
    status, err = polypragma(source, tmp_path / "strict", [*plain, "--strict"],
                             defines=["-DN=13", "-DTSTEPS=3"])
    assert status == 1 and "error: region left as written: the code of kernel 0" in err


def test_existential_variables_become_divisions_and_every_instance_runs_once(tmp_path, monkeypatch):
    """A kernel schedule's existential variables (two alike here, as a host loop's values left them in
    program 4080 of the differential test) are written as integer divisions before isl's default form
    is built (the atomic form past its bound here); the schedule is the same set, and its code runs
    every instance once."""
    monkeypatch.setattr(ast_build, "ATOMIC_OPERATIONS", 1)
    schedule = isl.UnionMap("[n] -> { S[i] -> [i, 0] : 0 <= i < n and exists (e, f: 2e > i and 5e <= 3i - 4 and "
                            "2f > i and 5f <= 3i - 4); T[i, j] -> [i, 1] : 0 <= i < n and j = 0 and "
                            "exists (e: 3e <= i + n and 4e >= i + 2) }")
    known = ast_build._known_divisions(schedule)
    assert known.is_equal(schedule)
    assert all(m.remove_unknown_divs().plain_is_equal(m) for m in maps_of(known)), known
    assert not all(m.remove_unknown_divs().plain_is_equal(m) for m in maps_of(schedule))
    code = build_kernel_ast(isl.Set("[n] -> { : n >= 0 }"), schedule, "k").to_C_str()
    source = tmp_path / "ast.c"
    source.write_text(PROGRAM.replace("@CODE@", code))
    compile_c(source, tmp_path / "ast")
    for n in range(30):
        ran = run(tmp_path / "ast", [str(n)]).stdout.split("\n")[:-1]
        expected = [f"S {i}" for i in range(n) if any(2 * e > i and 5 * e <= 3 * i - 4 for e in range(-40, 40))]
        expected += [f"T {i} 0" for i in range(n) if any(3 * e <= i + n and 4 * e >= i + 2 for e in range(-40, 40))]
        assert sorted(ran) == sorted(expected), (n, code)


def test_a_wrapped_loop_must_start_at_its_blocks_residue():
    """A loop stepping by the grid's size starts at its block's residue: an expression that is the block
    index modulo the step (``b1 + 2 floor(...)``) does; one that is not linear modulo the step
    (``k0 + floor(.../7)``, as isl's atomic form wrote for differential program 4706) does not count."""
    build = isl.AstBuild.from_context(isl.Set("[b1, k0, t] -> { : }"))

    def terms(text):
        return ast_build._linear_modulo(build.expr_from_pw_aff(isl.PwAff(text)), 2)

    assert terms("[b1, k0, t] -> { [(b1 + 2 * floor(t / 14))] }") == {"b1": 1}
    assert terms("[b1, k0, t] -> { [(-b1 + 4 * t + 6)] }") == {"b1": 1}
    assert terms("[b1, k0, t] -> { [(b1 + 1)] }") == {"b1": 1, "": 1}
    assert terms("[b1, k0, t] -> { [(max(b1, b1 + 2 * floor(t / 14) + 2))] }") == {"b1": 1}
    assert terms("[b1, k0, t] -> { [(max(b1, -((t + 13) mod 8) + t + 5 + b1))] }") == {"b1": 1}
    assert terms("[b1, k0, t] -> { [(k0 + floor((t - 6) / 7))] }") is None
    assert terms("[b1, k0, t] -> { [(max(b1, k0))] }") is None
    schedule = isl.UnionMap("[b1] -> { S[i] -> [o] : 0 <= i < 100 and o = floor(i / 7) and (o - b1) mod 2 = 0 }")
    assert ast_build._residue(schedule, 0, 2) == {"b1": 1}
    assert ast_build._residue(isl.UnionMap("[b1] -> { S[i] -> [i] : 0 <= i < 100 }"), 0, 2) is None


def test_a_loop_whose_parallelism_test_fails_is_sequential(tmp_path, monkeypatch):
    """An exception must not cross isl's callback (islpy ignores it, and isl goes on from a broken
    state): the c target's test of a loop's parallelism failing in isl, the loop is sequential."""
    def failing(schedule, dependences):
        raise isl.Error("as an isl operation past its bound")

    source = KERNELS / "jacobi_2d.c"
    defines = ["-DN=13", "-DTSTEPS=3"]
    status, err = polypragma(source, tmp_path / "omp", ["--target", "c", "--openmp"], defines=defines)
    assert status == 0, err
    assert "#pragma omp parallel for" in generated_path(source, tmp_path / "omp").read_text()
    monkeypatch.setattr(ast_build, "carries_no_dependence", failing)
    status, err = polypragma(source, tmp_path / "out", ["--target", "c", "--openmp"], defines=defines)
    assert status == 0 and "warning" not in err, err
    generated = generated_path(source, tmp_path / "out")
    assert "#pragma omp" not in generated.read_text()
    compile_c(generated, tmp_path / "gen", defines)
    compile_c(source, tmp_path / "ref", defines)
    assert run(tmp_path / "gen", ["3"]).stdout == run(tmp_path / "ref", ["3"]).stdout
