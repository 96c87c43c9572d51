"""The polyhedral model and the dependences of small regions, compared on isl's printed form."""

from __future__ import annotations

import islpy as isl
import pytest

from polypragma import dependences
from polypragma.diagnostics import Unsupported
from polypragma.frontend.extract import RegionExtractor
from polypragma.frontend.locate import identifiers, locate
from polypragma.frontend.preprocess import PreprocessOptions, parse
from polypragma.frontend.symbols import TypeTable, scope_at
from polypragma.scan import scan


def model(tmp_path, body: str, params: str = "int n, int m, double *A, double *B, double C[n][m], double s"):
    source = tmp_path / "k.c"
    source.write_text(f"void k({params})\n{{\n  int i, j;\n#pragma scop\n{body}\n#pragma endscop\n}}\n")
    ast = parse(str(source), PreprocessOptions())
    regions = scan(source.read_text(), str(source))
    where = locate(ast, regions, str(source))[0]
    types = TypeTable(ast)
    scope = scope_at(ast, where.function, where.path, types, where.items[0])
    return RegionExtractor(isl.Context(), regions[0], where.items, scope, types, identifiers(ast),
                           used_outside=where.used_outside, goto_targets=where.goto_targets).extract()


def same(a, b: str) -> bool:
    return a.is_equal(type(a)(b, context=a.get_ctx()))


def test_domains_and_accesses_of_a_triangular_nest(tmp_path):
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  for (j = i; j <= m - 1; j += 2)\n    C[i][j] = C[j][i] * s;")
    (statement,) = scop.statements
    assert scop.parameters == ("n", "m")
    assert same(statement.domain, "[n, m] -> { S_0[i, j] : 0 <= i < n and i <= j < m and (j - i) mod 2 = 0 }")
    assert same(statement.must_writes, "[n, m] -> { S_0[i, j] -> C[i, j] : 0 <= i < n and i <= j < m and (j - i) mod 2 = 0 }")
    assert same(statement.reads, "[n, m] -> { S_0[i, j] -> C[j, i] : 0 <= i < n and i <= j < m and (j - i) mod 2 = 0 }")
    assert scop.read_only_scalars == ("s",)


def test_loop_runs_until_its_condition_first_fails(tmp_path):
    # C stops at the first i where the condition fails: i = 3 here, although 5 <= i < 7 would pass
    scop = model(tmp_path, "for (i = 0; i < 3 || (i >= 5 && i < 7); i++)\n  A[i] = 0;")
    assert same(scop.statements[0].domain, "[n, m] -> { S_0[i] : 0 <= i <= 2 }")


def test_c_division_truncates_toward_zero(tmp_path):
    scop = model(tmp_path, "for (i = -n; i < n; i++)\n  if (i / 2 == -1)\n    A[i + n] = 0;")
    # -3 / 2 == -1 and -2 / 2 == -1 in C (floor division would put -3 and -4 there)
    assert same(scop.statements[0].domain, "[n, m] -> { S_0[i] : -3 <= i <= -2 and i >= -n }")


def test_decreasing_loop_keeps_its_order(tmp_path):
    scop = model(tmp_path, "for (i = n - 1; i >= 0; i--)\n  A[i] = A[i + 1];")
    deps = dependences.compute(scop)
    # iteration i writes A[i]; the next one, i - 1, reads it: a flow dependence, never an anti one
    assert same(deps.flow, "[n, m] -> { S_0[i] -> S_0[i - 1] : 1 <= i <= n - 1 }")
    assert deps.anti.is_empty()


def test_flat_pointer_is_delinearised(tmp_path):
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < m; j++)\n    A[i*m + j] = B[(i*m + j)];")
    arrays = {a.name: a for a in scop.arrays}
    assert arrays["A"].rank == 2 and arrays["A"].delinearised
    assert same(scop.statements[0].must_writes,
                "[n, m] -> { S_0[i, j] -> A[i, j] : 0 <= i < n and 0 <= j < m }")


def test_flat_pointer_that_leaves_its_row_touches_the_whole_array(tmp_path):
    # j runs past m: the view A[i][j] with inner extent m would be wrong
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j <= m; j++)\n    A[i*m + j] = 1.0;")
    arrays = {a.name: a for a in scop.arrays}
    assert arrays["A"].rank == 1 and not arrays["A"].delinearised
    statement = scop.statements[0]
    assert statement.must_writes.is_empty()  # a write to an unknown element is only a may-write
    assert not statement.may_writes.is_empty()


def test_written_scalar_is_a_zero_dimensional_array(tmp_path):
    scop = model(tmp_path, "s = 0;\nfor (i = 0; i < n; i++)\n  s += A[i];")
    arrays = {a.name: a for a in scop.arrays}
    assert arrays["s"].rank == 0
    deps = dependences.compute(scop)
    assert same(deps.flow.intersect_domain(isl.UnionSet("[n, m] -> { S_1[i] }", context=deps.flow.get_ctx())),
                "[n, m] -> { S_1[i] -> S_1[i + 1] : 0 <= i < n - 1 }")
    assert same(deps.live_in, "[n, m] -> { S_1[i] -> A[i] : 0 <= i < n }")


def test_data_dependent_condition_gives_may_writes(tmp_path):
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  if (A[i] > 0.5)\n    B[i] = A[i];")
    statement = scop.statements[0]
    assert statement.must_writes.is_empty()
    assert same(statement.may_writes, "[n, m] -> { S_0[i] -> B[i] : 0 <= i < n }")


@pytest.mark.parametrize("body, construct", [
    ("for (i = 0; i < n * m; i++) A[i] = 0;", "loop condition 'i < n * m' is not affine: product of two variables"),
    ("for (i = 0; i < n; i++) { if (i == 2) goto later; A[i] = 0; }\nlater:\nfor (j = 0; j < n; j++) {\n"
     "  if (j == 3) goto sooner; B[j] = 0; }\nsooner:\n;", None),
])
def test_unsupported_constructs_name_themselves(tmp_path, body, construct):
    from polypragma.diagnostics import Unsupported

    if construct is None:
        model(tmp_path, body)
        return
    with pytest.raises(Unsupported) as info:
        model(tmp_path, body)
    assert construct in info.value.message


def test_break_ends_the_loop_at_the_first_iteration_that_takes_it(tmp_path):
    # S_0 runs up to and including the iteration that breaks (j = i + m, or j = 0 when i + m < 0);
    # S_1 only before it
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++) {\n    A[j] += 1;\n"
                           "    if (j >= i + m)\n      break;\n    B[j] += 1;\n  }")
    first, second = scop.statements
    assert same(first.domain, "[n, m] -> { S_0[i, j] : 0 <= i < n and 0 <= j < n and (j <= i + m or j = 0) }")
    assert same(second.domain, "[n, m] -> { S_1[i, j] : 0 <= i < n and 0 <= j < n and j < i + m }")


def test_return_removes_every_later_instance(tmp_path):
    # the return is taken at (i, j = m - i) when m - i is in the inner loop's range; S_0 runs up to that
    # instance, S_1 before it (in the same i only for j < m - i), S_2 only for the rows before i
    scop = model(tmp_path, "for (i = 0; i < n; i++) {\n  for (j = 0; j < n; j++) {\n    A[j] += 1;\n"
                           "    if (i + j == m)\n      return;\n    B[j] += 1;\n  }\n  A[i] = 0;\n}")
    first, second, third = scop.statements
    taken = "exists (i0, j0 : 0 <= i0 < n and 0 <= j0 < n and i0 + j0 = m and (i0 < i or (i0 = i and j0 < j)))"
    assert same(first.domain, f"[n, m] -> {{ S_0[i, j] : 0 <= i < n and 0 <= j < n and not {taken} }}")
    # (R_1 is the return)
    assert same(second.domain, f"[n, m] -> {{ S_2[i, j] : 0 <= i < n and 0 <= j < n and i + j != m "
                               f"and not {taken} }}")
    assert same(third.domain, "[n, m] -> { S_3[i] : 0 <= i < n and (m < 0 or m > i + n - 1) }")
    # the return remains possible where some (i, j) meets its condition; nothing is returned
    ((condition, value, _),) = scop.returns
    assert same(condition, "[n, m] -> { : 0 <= m <= 2n - 2 }") and value is None


def test_a_return_the_model_cannot_place_makes_the_region_one_statement(tmp_path):
    # a value computed from an iterator, a return in a loop run as written: the region runs as written,
    # its writes may-writes; its returns set a flag declared before the region (0 there, for the GPU
    # targets' CPU fallback), which the code after it tests; a value the enclosing function cannot return
    # as a number (this one returns void) keeps the region off the GPU targets, which are told why
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  if (i == m)\n    return i;", "int n, int m")
    (statement,) = scop.statements
    assert same(statement.domain, "[n, m] -> { S_0[] }") and scop.returns == ()
    assert "'return i'" in scop.device_unsupported[0][0]
    assert "they return only numbers from a region" in scop.device_unsupported[0][2]
    scop = model(tmp_path, "while (n > 0) { if (A[0] > 0) return; A[n] = 0; n--; }")
    (statement,) = scop.statements
    assert same(statement.may_writes, "{ S_0[] -> A[o0]; S_0[] -> n[]; S_0[] -> polypragma_region0_returned[] }")
    assert scop.data_return == ("polypragma_region0_returned", None) and scop.device_unsupported == ()
    assert scop.outer_declarations == ("int polypragma_region0_returned = 0;",)


def test_goto_skips_what_lies_between_it_and_its_label_in_the_same_outer_iterations(tmp_path):
    # the goto to the end of the body skips S_1 in the same i (a continue of the j loop's row); the one
    # out of the nest skips S_4's later instances, not S_5 after the label
    scop = model(tmp_path, "for (i = 0; i < n; i++) {\n  for (j = 0; j < n; j++) {\n    if (j == i + m)\n"
                           "      goto next;\n    A[j] += 1;\n  }\n  B[i] = 0;\nnext:\n  A[i] = 1;\n}\n"
                           "for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++) {\n    if (i + j == m) goto out;\n"
                           "    C[i][j] = 0;\n  }\nout:\nB[0] = 1;")
    first, second, third, fourth, fifth = scop.statements
    assert same(first.domain, "[n, m] -> { S_1[i, j] : 0 <= i < n and 0 <= j < n and (i + m < 0 or j < i + m) }")
    assert same(second.domain, "[n, m] -> { S_2[i] : 0 <= i < n and (i + m < 0 or i + m >= n) }")
    assert same(third.domain, "[n, m] -> { S_3[i] : 0 <= i < n }")
    taken = "exists (i0, j0 : 0 <= i0 < n and 0 <= j0 < n and i0 + j0 = m and (i0 < i or (i0 = i and j0 <= j)))"
    assert same(fourth.domain, f"[n, m] -> {{ S_5[i, j] : 0 <= i < n and 0 <= j < n and not {taken} }}")
    assert same(fifth.domain, "[n, m] -> { S_6[] }")


def test_member_through_a_pointer_is_a_member_of_its_first_element(tmp_path):
    params = "int n, struct tab { double s; double v[8]; } *t"
    scop = model(tmp_path, "for (i = 0; i < 8; i++)\n  t->v[i] = t->s * i;", params)
    (statement,) = scop.statements
    assert same(statement.must_writes, "{ S_0[i] -> t__v[0, i] : 0 <= i <= 7 }")
    assert same(statement.reads, "{ S_0[i] -> t__s[0] : 0 <= i <= 7 }")


def test_assumptions_and_kills_are_hints(tmp_path):
    # PENCIL's __pencil_assume and __pencil_kill (as pet reads them) change nothing that runs
    scop = model(tmp_path, "__pencil_assume(n > 4);\nfor (i = 0; i < n; i++)\n  A[i] = 0;\n__pencil_kill(B);",
                 "int n, double *A, double *B")
    (statement,) = scop.statements
    assert same(statement.domain, "[n] -> { S_0[i] : 0 <= i < n }")


def test_unsigned_char_iterator_wraps_around(tmp_path):
    # k = 252, 253, 254, 255, 0, 1: a counter k' from 252 to 257 whose value mod 256 is k
    scop = model(tmp_path, "for (k = 252; k != 2; ++k)\n  A[k] = 0;", "int n, double *A, unsigned char k")
    (statement,) = scop.statements
    assert same(statement.domain, "{ S_0[k] : 252 <= k <= 257 }")
    assert same(statement.must_writes, "{ S_0[k] -> A[a] : 252 <= k <= 257 and a = k mod 256 }")


def test_unsigned_char_iterator_that_never_stops_is_refused(tmp_path):
    # k < 300 holds for every value an unsigned char takes: the loop runs forever
    with pytest.raises(Unsupported, match="loop 'k' with no bound"):
        model(tmp_path, "for (k = 250; k < 300; ++k)\n  A[k] = 0;", "int n, double *A, unsigned char k")


def test_whole_struct_access_is_an_access_to_each_member(tmp_path):
    # q[i] = p[i] copies every member: x exactly, the array member w whole (a may-write of it)
    params = "int n, struct pt { double x; double w[4]; } *p, struct pt *q"
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  q[i] = p[i];", params)
    (statement,) = scop.statements
    assert same(statement.must_writes, "[n] -> { S_0[i] -> q__x[i] : 0 <= i < n }")
    assert same(statement.may_writes, "[n] -> { S_0[i] -> q__w[i, k] : 0 <= i < n }")
    assert same(statement.reads, "[n] -> { S_0[i] -> p__x[i] : 0 <= i < n; S_0[i] -> p__w[i, k] : 0 <= i < n }")


def test_dereference_of_a_pointer_sum_is_a_subscript(tmp_path):
    # *(A + i) is A[i] and *B is B[0], as C defines them
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  *(A + i) = *B + *(B - 1 + i);")
    (statement,) = scop.statements
    assert same(statement.must_writes, "[n, m] -> { S_0[i] -> A[i] : 0 <= i < n }")
    assert same(statement.reads, "[n, m] -> { S_0[i] -> B[0] : 0 <= i < n; S_0[i] -> B[i - 1] : 0 <= i < n }")


def test_counted_while_loop_is_a_for_loop(tmp_path):
    scop = model(tmp_path, "i = 1;\nwhile (i < n) {\n  A[i] = A[i - 1];\n  i += 2;\n}")
    (statement,) = scop.statements
    assert same(statement.domain, "[n, m] -> { S_0[i] : 1 <= i < n and i mod 2 = 1 }")


def test_struct_members_are_arrays_of_their_own(tmp_path):
    params = "int n, struct pt { double x; double w[4]; } P[n]"
    scop = model(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < 4; j++)\n    P[i].w[j] += P[i].x;", params)
    (statement,) = scop.statements
    assert same(statement.must_writes, "[n] -> { S_0[i, j] -> P__w[i, j] : 0 <= i < n and 0 <= j <= 3 }")
    assert same(statement.reads, "[n] -> { S_0[i, j] -> P__w[i, j] : 0 <= i < n and 0 <= j <= 3; "
                                 "S_0[i, j] -> P__x[i] : 0 <= i < n and 0 <= j <= 3 }")


@pytest.mark.parametrize("latest_operations", [dependences.LATEST_OPERATIONS, 1])
def test_the_lexicographic_maximum_form_of_dataflow_is_compute_flows(monkeypatch, latest_operations):
    """The form used past compute_flow's bound gives its answer, by each writing statement's maximum first
    and (past its own bound, forced here with 1 operation) by one maximum over all writes: reads of A
    whose last writer is S, T (the later one, where both write), or the may-write U after them."""
    monkeypatch.setattr(dependences, "LATEST_OPERATIONS", latest_operations)
    sink = isl.UnionMap("[n] -> { R[i] -> A[i] : 0 <= i < n }")
    must = isl.UnionMap("[n] -> { S[i] -> A[i] : 0 <= i < n and i % 3 != 0; T[i] -> A[2 i] : 0 <= 2 i < n }")
    may = isl.UnionMap("[n] -> { U[i] -> A[i + 1] : 0 <= i < n and i % 2 = 0 }")
    domain = sink.domain().union(must.domain()).union(may.domain())
    schedule = isl.Schedule.from_domain(domain).insert_partial_schedule(isl.MultiUnionPwAff(
        "[n] -> [{ S[i] -> [0]; T[i] -> [1]; U[i] -> [2]; R[i] -> [3] }, "
        "{ S[i] -> [i]; T[i] -> [i]; U[i] -> [i]; R[i] -> [i] }]"))
    info = isl.UnionAccessInfo.from_sink(sink).set_must_source(must).set_may_source(may)
    flow = info.set_schedule(schedule).compute_flow()
    sources, no_source = dependences._flow_by_lexmax(sink, must, may.union(must), schedule)
    assert sources.is_equal(flow.get_may_dependence())
    assert no_source.is_equal(flow.get_may_no_source())
