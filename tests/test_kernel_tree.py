"""The GPU stage's decisions on a matrix product, compared on isl's printed form: the tiling and the
block and thread congruences of the mapping, where each group of references lives, and the kernel's
schedule tree with its copy and barrier statements and the indices isl builds for them."""

from __future__ import annotations

from dataclasses import replace

import islpy as isl

from polypragma import dependences
from polypragma.codegen.copy_statements import Copy
from polypragma.codegen.kernel_tree import Barrier, KernelTree
from polypragma.gpu.memory import Placement
from polypragma.gpu.region import prepare
from polypragma.gpu.sizes import SizeOptions
from polypragma.schedule import ScheduleOptions, compute_schedule
from test_model import model

MATMUL = ("for (i = 0; i < 64; i++)\n  for (j = 0; j < 64; j++)\n    for (int k = 0; k < 64; k++)\n"
          "      C[i][j] += A[i][k] * B[k][j];")
ARRAYS = "double A[64][64], double B[64][64], double C[64][64]"


# the sizes the tests of the tree's shape are written for (the cost model would take a tile of 64x64:
# tests/test_cost.py checks its choice)
SIZES = SizeOptions(tile=(32, 32), block=(8, 32))


def matmul(tmp_path):
    scop = model(tmp_path, MATMUL, ARRAYS)
    deps = dependences.compute(scop)
    region = prepare(scop, compute_schedule(scop, deps, ScheduleOptions()).schedule, deps, SIZES, "k.c",
                     cuda=True)
    return scop, region


# the kernel's block ids
BLOCKS = "[b0, b1] -> { : 0 <= b0 < 65535 and 0 <= b1 < 65535 }"


def same(a, b: str) -> bool:
    """Whether ``a`` is ``b``, for the block ids a kernel has."""
    if isinstance(a, isl.PwMultiAff):
        a = isl.Map.from_pw_multi_aff(a)
    b = type(a)(b, context=a.get_ctx())
    blocks = isl.Set(BLOCKS, context=a.get_ctx())
    return a.intersect_params(blocks.align_params(a.get_space())).is_equal(
        b.intersect_params(blocks.align_params(b.get_space())))


def statement(domain: isl.UnionSet, name: str) -> isl.Set:
    sets = domain.get_set_list()
    (found,) = [sets.get_at(k) for k in range(sets.n_set()) if sets.get_at(k).get_tuple_name() == name]
    return found


def test_matrix_product_mapping(tmp_path):
    _, region = matmul(tmp_path)
    (kernel,) = region.mapping.kernels
    tiling = kernel.tiling
    assert (kernel.mapped, tiling.tiles, tiling.tile_sizes) == (2, 3, (32, 32, 32))  # k tiled for shared memory
    assert same(tiling.to_tiles, "{ S_0[i, j, k] -> [floor(i/32), floor(j/32), floor(k/32)] : "
                                 "0 <= i <= 63 and 0 <= j <= 63 and 0 <= k <= 63 }")
    # (two tiles along each loop, fewer than the grid's blocks: one block a tile along x; along y, where a
    # thread runs 4 points of a tile, the blocks wrap)
    assert same(tiling.block_congruence, "[b0, b1] -> { [g0, g1, g2] : (g0 - b0) mod 65535 = 0 and g1 = b1 }")
    assert same(tiling.thread_congruence, "[t0, t1] -> { [p0, p1, p2] : (p0 - t0) mod 8 = 0 and (p1 - t1) mod 32 = 0 }")


def test_matrix_product_placement(tmp_path):
    _, region = matmul(tmp_path)
    groups = {g.name: g for g in region.memory[0].groups}
    assert sorted(groups) == ["private_C", "shared_A", "shared_B"]
    a, b, c = groups["shared_A"], groups["shared_B"], groups["private_C"]
    assert (a.placement, a.sizes, b.placement, b.sizes) == (Placement.SHARED, [32, 32], Placement.SHARED, [32, 32])
    tiles = "0 <= g0 <= 1 and 0 <= g1 <= 1 and 0 <= g2 <= 1"
    assert same(a.offsets[0], f"[g0, g1, g2] -> {{ [(32g0)] : {tiles} }}")
    assert same(a.offsets[1], f"[g0, g1, g2] -> {{ [(32g2)] : {tiles} }}")
    assert same(b.offsets[0], f"[g0, g1, g2] -> {{ [(32g2)] : {tiles} }}")
    # C[i][j] by the thread of (i mod 8, j mod 32): 32 rows over 8 threads, 4 registers each
    assert (c.placement, c.counts) == (Placement.PRIVATE, [4, 1])


def test_matrix_product_kernel_tree(tmp_path):
    scop, region = matmul(tmp_path)
    tree = KernelTree(scop, replace(region.memory[0], vector_copies=False), True)  # (one element per copy)
    domain = tree.tree().get_domain()
    block = "(g0 - b0) mod 65535 = 0 and (g1 - b1) mod 65535 = 0 and 0 <= g0 <= 1 and 0 <= g1 <= 1"
    # the copy of A's tile: one instance per tile (g0, g1, g2) and element (e0, e1) of the tile
    copy_a = statement(domain, "shared_in_0")
    assert isinstance(tree.kinds["shared_in_0"], Copy)
    assert same(copy_a, f"[b0, b1] -> {{ shared_in_0[g0, g1, g2, e0, e1] : {block} and 0 <= g2 <= 1 and "
                        "32g0 <= e0 <= 32g0 + 31 and 32g2 <= e1 <= 32g2 + 31 }")
    # barriers: one per tile, the same for every thread of the block (no thread parameter)
    barriers = [statement(domain, n) for n in ("barrier_2", "barrier_3")]
    assert all(isinstance(tree.kinds[n], Barrier) for n in ("barrier_2", "barrier_3"))
    assert all(same(b, f"[b0, b1] -> {{ {n}[g0, g1, g2] : {block} and 0 <= g2 <= 1 }}")
               for b, n in zip(barriers, ("barrier_2", "barrier_3")))
    # registers: one instance per mapped tile and slot; the thread's own slots are a filter below
    assert same(statement(domain, "private_in_4"),
                f"[b0, b1] -> {{ private_in_4[g0, g1, k0, k1] : {block} and 0 <= k0 <= 3 and k1 = 0 }}")
    # indices isl builds where the statements stand: the tile's own coordinates in shared memory (the
    # function is not restricted to the copy's instances: the AST asks for it there only)
    local, element = tree.copies["shared_in_0"]
    assert same(local.intersect_domain(copy_a),
                "[b0, b1] -> { shared_in_0[g0, g1, g2, e0, e1] -> [e0 - 32g0, e1 - 32g2] : "
                f"{block} and 0 <= g2 <= 1 and 32g0 <= e0 <= 32g0 + 31 and 32g2 <= e1 <= 32g2 + 31 }}")
    references = {group.name if group else None: index for _, group, index in tree.references("S_0")}
    # (on the instances of the block's tiles)
    assert restricts(references["shared_A"], "{ S_0[i, j, k] -> [i mod 32, k mod 32] }")
    assert restricts(references["shared_B"], "{ S_0[i, j, k] -> [k mod 32, j mod 32] }")
    # a register slot: (p - t) / B along each mapped loop, p the point in the tile
    assert restricts(references["private_C"],
                     "[t0, t1] -> { S_0[i, j, k] -> [floor(((i mod 32) - t0)/8), floor(((j mod 32) - t1)/32)] }")


def test_full_tiles_of_a_register_tile(tmp_path):
    # 60 rows and columns: tiles of 32 (g = 1 ends at 59); a thread runs rows t0, t0 + 8, t0 + 16, t0 + 24
    # of a tile, so the second tile of rows is full for the threads whose fourth row exists (32 + t0 + 24
    # <= 59: t0 <= 3); every column tile is full along j for its one column per thread where 32 g1 + t1 <= 59
    scop = model(tmp_path, MATMUL.replace("64", "60"), ARRAYS.replace("64", "60"))
    deps = dependences.compute(scop)
    region = prepare(scop, compute_schedule(scop, deps, ScheduleOptions()).schedule, deps, SIZES, "k.c",
                     cuda=True)
    (kernel,) = region.mapping.kernels
    assert kernel.sizes.thread_points == (4, 1) and kernel.register_tile
    tree = KernelTree(scop, region.memory[0], True)
    full = tree.full_tiles()
    threads = isl.Set("[t0, t1] -> { : 0 <= t0 < 8 and 0 <= t1 < 32 }", context=full.get_ctx())
    expected = isl.Set("[t0, t1] -> { [g0, g1, g2] : 0 <= g0 <= 1 and 0 <= g1 <= 1 and 0 <= g2 <= 1 and "
                       "32g0 + t0 + 24 <= 59 and 32g1 + t1 <= 59 }", context=full.get_ctx())
    blocks = isl.Set(BLOCKS, context=full.get_ctx())

    def within(s: isl.Set) -> isl.Set:
        tiles = tree.tiles.align_params(s.get_space())
        return s.intersect(tiles).intersect_params(threads.align_params(s.get_space())).intersect_params(
            blocks.align_params(s.get_space()))

    assert within(full).is_equal(within(expected.align_params(full.get_space())))


def restricts(pma: isl.PwMultiAff, function: str) -> bool:
    """Whether ``pma`` is ``function`` on a domain that is not empty."""
    relation = isl.Map.from_pw_multi_aff(pma)
    relation = relation.intersect_params(isl.Set(BLOCKS, context=pma.get_ctx()).align_params(relation.get_space()))
    expected = isl.Map(function, context=pma.get_ctx())
    return not relation.is_empty() and relation.is_subset(expected.align_params(relation.get_space()))


def test_a_kernel_whose_tree_ast_costs_too_much_keeps_its_data_in_global_memory(tmp_path, monkeypatch):
    # the decision is made before --explain reads the placement: no group is reported in shared
    # memory or registers when the kernel is built with its data in global memory
    import polypragma.codegen.kernel_ast as kernel_ast

    _, region = matmul(tmp_path)
    settled = kernel_ast.with_kernel_asts(region, True)
    assert settled.kernel_asts[0] is not None and settled.memory[0].tiled
    # (a bound its statements fit in, 50 000 operations, and its AST does not)
    monkeypatch.setattr(kernel_ast, "TREE_OPERATIONS", 100_000)
    settled = kernel_ast.with_kernel_asts(region, True)
    assert settled.kernel_asts == (None,)
    assert {g.placement for g in settled.memory[0].groups} == {Placement.GLOBAL}
    assert all("exceeded its bound of 100000 isl operations" in g.reason for g in settled.memory[0].groups)
    assert region.memory[0].tiled  # the GPU stage's own result is left as it was


def test_a_kernel_tree_with_too_many_existential_variables_is_not_tried(tmp_path, monkeypatch):
    # isl's eliminations on a schedule with many existential variables do not count towards the bound
    # on its operations (tests/differential/regressions/tree_existentials.c: 65 of them, 38 s a build
    # within TREE_OPERATIONS), so such a tree is not built at all; its data stays in global memory
    import polypragma.codegen.kernel_ast as kernel_ast
    import polypragma.codegen.kernel_tree as kernel_tree

    _, region = matmul(tmp_path)
    # (with vector copies, and without them, as the second try is)
    most = [KernelTree(region.scop, replace(region.memory[0], vector_copies=v), True).existentials()
            for v in (True, False)]
    assert 0 < min(most) and max(most) <= kernel_tree.TREE_EXISTENTIALS
    monkeypatch.setattr(kernel_tree, "TREE_EXISTENTIALS", min(most) - 1)
    settled = kernel_ast.with_kernel_asts(region, True)
    assert settled.kernel_asts == (None,)
    assert {g.placement for g in settled.memory[0].groups} == {Placement.GLOBAL}
    assert all("existential variables, more than" in g.reason
               for g in settled.memory[0].groups)


def test_a_kernel_tree_whose_statements_exceed_the_bound_is_not_built(tmp_path, monkeypatch):
    # the statements computed past the bound (their existential variables then not counted), each form
    # would compute them again within a bound of its own and go into an AST no bound stops
    # (tests/differential/regressions/tree_statements_past_bound.c: more than five minutes); its data
    # stays in global memory
    import polypragma.codegen.kernel_ast as kernel_ast

    _, region = matmul(tmp_path)
    monkeypatch.setattr(kernel_ast, "TREE_OPERATIONS", 1000)
    settled = kernel_ast.with_kernel_asts(region, True)
    assert settled.kernel_asts == (None,)
    assert {g.placement for g in settled.memory[0].groups} == {Placement.GLOBAL}
    assert all("its statements alone took more than its bound of" in g.reason for g in settled.memory[0].groups)


def vector_tree(tmp_path, extent: str, vectors: bool = True):
    """The kernel tree of the matrix product on rows of ``extent`` elements (a constant or ``n``)."""
    body, arrays = MATMUL, ARRAYS
    if not extent.isdigit():
        arrays = "int n, " + arrays
    scop = model(tmp_path, body.replace("64", extent), arrays.replace("64", extent))
    deps = dependences.compute(scop)
    region = prepare(scop, compute_schedule(scop, deps, ScheduleOptions()).schedule, deps, SIZES, "k.c", cuda=True)
    tree = KernelTree(scop, replace(region.memory[0], vector_copies=vectors), True)
    return tree, tree.tree().get_domain()


def test_copies_move_aligned_vectors_of_a_tile_row(tmp_path):
    # rows of 64 doubles, tiles of 32x32 from even columns: every copy moves two elements at once, its
    # instances the even columns of the tile
    tree, domain = vector_tree(tmp_path, "64")
    copy = tree.kinds["shared_in_0_vector"]
    assert isinstance(copy, Copy) and copy.width == 2 and "shared_in_0" not in tree.kinds
    block = "(g0 - b0) mod 65535 = 0 and (g1 - b1) mod 65535 = 0 and 0 <= g0 <= 1 and 0 <= g1 <= 1"
    assert same(statement(domain, "shared_in_0_vector"),
                f"[b0, b1] -> {{ shared_in_0_vector[g0, g1, g2, e0, e1] : {block} and 0 <= g2 <= 1 and "
                "32g0 <= e0 <= 32g0 + 31 and 32g2 <= e1 <= 32g2 + 30 and e1 mod 2 = 0 }")
    # (the first element's indices: the vector's address)
    local, _ = tree.copies["shared_in_0_vector"]
    assert restricts(local, "{ shared_in_0_vector[g0, g1, g2, e0, e1] -> [e0 - 32g0, e1 - 32g2] }")


def test_vectors_and_the_elements_no_vector_holds(tmp_path):
    # rows of n doubles: where n is odd, the last column of a row is copied alone; the vectors and the
    # single elements copy every element of the tile once, as the copy of one element at a time does
    tree, domain = vector_tree(tmp_path, "n")
    vectors, rest = (statement(domain, name).set_tuple_name("e") for name in ("shared_in_0_vector", "shared_in_0"))
    assert tree.kinds["shared_in_0_vector"].width == 2 and tree.kinds["shared_in_0"].width == 1
    seconds = vectors.apply(isl.Map("{ e[g0, g1, g2, e0, e1] -> e[g0, g1, g2, e0, e1 + 1] }", context=tree.ctx))
    _, plain = vector_tree(tmp_path, "n", vectors=False)
    whole = isl.Set(str(statement(plain, "shared_in_0").set_tuple_name("e")), context=tree.ctx)  # (its own context)
    assert vectors.union(seconds).union(rest).is_equal(whole)
    assert vectors.intersect(seconds).is_empty() and vectors.union(seconds).intersect(rest).is_empty()
    odd = isl.Set("[n] -> { : n mod 2 = 1 }", context=tree.ctx)
    assert not rest.is_empty() and rest.params().is_subset(odd.align_params(rest.params().get_space()))


def test_no_vectors_where_every_other_row_starts_unaligned(tmp_path):
    # rows of 63 doubles: the odd rows' tiles start at odd addresses
    tree, _ = vector_tree(tmp_path, "63")
    assert tree.kinds and all(getattr(kind, "width", 1) == 1 for kind in tree.kinds.values())
