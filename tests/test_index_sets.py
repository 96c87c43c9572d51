"""Index set splitting (polypragma/index_sets.py): which hyperplanes a statement is cut at, that its pieces
partition its domain and keep its accesses, and the code the pieces give (Floyd-Warshall: one launch
of each piece per k instead of one per anti-diagonal; a loop in sequence kept whole where its pieces
gain nothing).  The corpus kernel tests/kernels/index_set_split.c runs the split programs on every
target against the original."""

from __future__ import annotations

import re

import islpy as isl

from harness import KERNELS, polypragma
from test_model import model, same

from polypragma import dependences, index_sets
from polypragma.schedule import ScheduleOptions, compute_schedule, configure_context, sequential_outside

FLOYD = """  int k;
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        C[i][j] = C[i][j] < C[i][k] + C[k][j] ? C[i][j] : C[i][k] + C[k][j];"""


def floyd(tmp_path):
    scop = model(tmp_path, FLOYD, "int n, double C[n][n]")
    configure_context(scop.context.get_ctx(), ScheduleOptions())
    return scop, dependences.compute(scop)


def test_floyd_is_cut_where_row_and_column_k_are_written(tmp_path):
    scop, deps = floyd(tmp_path)
    whole = compute_schedule(scop, deps, ScheduleOptions()).schedule
    # one schedule for the statement: k and a wavefront in sequence, only the diagonal's loop parallel
    assert sequential_outside(whole) == {"S_0": 2}
    cuts = index_sets.hyperplanes(scop, deps.all, {"S_0": 2})
    assert [a.to_str() for a in cuts["S_0"]] == ["[n] -> { S_0[k, i, j] -> [(-k + i)] }",
                                                 "[n] -> { S_0[k, i, j] -> [(-k + j)] }"]
    # the dependences carried by k count where k is the one loop in sequence: the row and column k + 1
    # the next iteration reads come first
    cuts = index_sets.hyperplanes(scop, deps.all, {"S_0": 1})
    assert [a.to_str() for a in cuts["S_0"]] == ["[n] -> { S_0[k, i, j] -> [(-1 - k + i)] }",
                                                 "[n] -> { S_0[k, i, j] -> [(-1 - k + j)] }"]


def test_pieces_partition_the_domain_and_keep_the_accesses(tmp_path):
    scop, deps = floyd(tmp_path)
    pieces = index_sets.pieces(scop, index_sets.hyperplanes(scop, deps.all, {"S_0": 2}))
    parts = pieces.scop.statements
    assert [s.name for s in parts] == [f"S_0_part{k}" for k in range(9)]
    assert all(pieces.origin[s.name] == "S_0" for s in parts)
    (statement,) = scop.statements
    union = isl.Set.empty(statement.domain.get_space())
    for s in parts:
        back = s.domain.set_tuple_name("S_0")
        assert back.intersect(union).is_empty()  # disjoint
        union = union.union(back)
        assert s.body is not statement.body  # each piece prints its own copy
        refs = [r for r in pieces.scop.references if r.statement == s.name]
        assert len(refs) == len([r for r in scop.references if r.statement == "S_0"])
        assert all(r.relation.domain().is_subset(s.domain) for r in refs)
        assert s.reads.domain().is_subset(isl.UnionSet.from_set(s.domain))
    assert union.is_equal(statement.domain)
    centre = pieces.scop.statement("S_0_part4")
    assert same(centre.domain, "[n] -> { S_0_part4[k, k, k] : 0 <= k < n }")
    # each piece's own schedule: k in sequence, then every piece parallel in its loops
    split_deps = dependences.compute(pieces.scop)
    schedule = compute_schedule(pieces.scop, split_deps, ScheduleOptions()).schedule
    assert pieces.by_statement(sequential_outside(schedule)) == {"S_0": 1}


def test_a_cut_needs_a_statement_with_loops_in_sequence(tmp_path):
    scop, deps = floyd(tmp_path)
    assert index_sets.hyperplanes(scop, deps.all, {"S_0": 0}) == {}
    assert index_sets.pieces(scop, {}) is None


def _launches(tmp_path, name, defines, options=()):
    status, messages = polypragma(KERNELS / f"{name}.c", tmp_path, ["--target", "cuda", "--explain", *options],
                                  defines)
    assert status == 0, messages
    unit = (tmp_path / f"{name}.polypragma.cu").read_text()
    return unit, messages


def test_floyd_warshall_launches_each_piece_once_per_k(tmp_path):
    unit, messages = _launches(tmp_path, "floyd_warshall", ["-DN=60"])
    assert "S_0: split at -k + i, -k + j = 0 into S_0_part0, " in messages  # --explain says why
    host = unit[unit.index("int polypragma_floyd_warshall_region0("):]
    # nine pieces, eight kernels: the row and column pieces before the corner, independent, in one
    # (gpu/siblings.py)
    assert len(re.findall(r"<<<grid, block>>>", host)) == 8
    assert host.count("for (int c0") == 1 and "for (int c1" not in host  # k alone on the host
    assert messages.count("inside 1 host loop(s)") == 8
    assert messages.count("are independent, each a band of parallel loops") == 1
    assert "S_0_part4" in unit  # the statement's comment names its piece
    # the corner k = i = j is a point: one thread; the row and column pieces map their loop, the rest two
    assert messages.count("no parallel loop: runs on one thread") == 1
    assert messages.count("the outer 2 parallel loop(s) of its band are tiled") == 4


def test_a_split_without_gain_is_not_kept(tmp_path):
    # lu's update S_2 is cut at k = i - 1 (its last step feeds the next row), but its pieces keep i in
    # sequence all the same: the statement stays whole
    unit, messages = _launches(tmp_path, "lu", [])
    assert not re.search(r"S_\d+_part\d", unit)  # no statement cut into pieces
    # --no-reschedule keeps the original schedule: nothing to split
    unit, messages = _launches(tmp_path / "kept", "floyd_warshall", ["-DN=60"], ["--no-reschedule"])
    assert not re.search(r"S_\d+_part\d", unit)  # no statement cut into pieces


def test_only_rows_columns_and_elements_are_cut(tmp_path):
    # x[p] is written where i = p: cut there (3 pieces: before, at and after p)
    scop = model(tmp_path, "  for (i = 0; i < n; i++)\n    x[i] = x[i] + 0.5 * x[p];", "int n, int p, double x[n]")
    deps = dependences.compute(scop)
    cuts = index_sets.hyperplanes(scop, deps.all, {"S_0": 1})
    assert [a.to_str() for a in cuts["S_0"]] == ["[n, p] -> { S_0[i] -> [(-p + i)] }"]
    # written where 2i = p: a hyperplane of every other instance, not cut (such pieces of a random
    # program's strided loops made the kernels' ASTs take isl 40 s)
    (tmp_path / "strided").mkdir()
    scop = model(tmp_path / "strided", "  for (i = 0; i < n; i++)\n    x[2 * i] = x[2 * i] + 0.5 * x[p];",
                 "int n, int p, double x[2 * n]")
    deps = dependences.compute(scop)
    assert index_sets.hyperplanes(scop, deps.all, {"S_0": 1}) == {}


def test_a_loop_with_a_step_is_not_cut(tmp_path):
    # the same x[p], every other element: the pieces would add i = p to the loop's congruence (random
    # programs' strided nests cut so took isl's scheduler 7 s and its AST generation 48 s)
    scop = model(tmp_path, "  for (i = 0; i < n; i += 2)\n    x[i] = x[i] + 0.5 * x[p];", "int n, int p, double x[n]")
    deps = dependences.compute(scop)
    assert index_sets.hyperplanes(scop, deps.all, {"S_0": 1}) == {}
