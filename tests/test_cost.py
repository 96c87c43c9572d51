"""The cost model of polypragma/gpu/cost.py: warp sectors counted by isl, the estimate of small kernels,
and the mapping and sizes it chooses (the regions below are written as users write them; the band each
kernel maps is checked in isl notation first, so that a changed schedule fails here, not in a number)."""

from __future__ import annotations

import math

import islpy as isl

from polypragma import dependences
from polypragma.gpu.cost import (MAX_POINTS_PER_THREAD, MAX_POINTS_WITHOUT_REUSE, Candidate, KernelModel,
                                 _distinct_sectors, candidates, orders)
from polypragma.gpu.memory import MemoryOptions
from polypragma.gpu.region import prepare
from polypragma.gpu.sizes import GRID_X, KernelSizes, SizeOptions
from polypragma.schedule import ScheduleOptions, compute_schedule
from test_model import model


def region_of(tmp_path, body: str, params: str, sizes: SizeOptions = SizeOptions()):
    scop = model(tmp_path, body, params)
    deps = dependences.compute(scop)
    return scop, prepare(scop, compute_schedule(scop, deps, ScheduleOptions()).schedule, deps, sizes, "k.c", cuda=True)


def band_is(kernel, text: str) -> bool:
    return kernel.band.is_equal(isl.UnionMap(text, context=kernel.band.get_ctx()))


def by_array(estimate):
    return {g.array: g for g in estimate.groups}


def test_a_warps_sectors_are_counted_on_its_elements():
    # 32 threads on consecutive doubles (4 a sector): 8 sectors; a row apart each: 32; floats: 4; a block
    # 16 wide: two rows of 16 doubles, 8; all threads on one element: 1
    assert _distinct_sectors([32], [([(0, 1)], (0, 0))], 4) == 8
    assert _distinct_sectors([32], [([(1, 0)], (0, 0))], 4) == 32
    assert _distinct_sectors([32], [([(0, 1)], (0, 0))], 8) == 4
    assert _distinct_sectors([16, 2], [([(0, 1), (1, 0)], (0, 0))], 4) == 8
    assert _distinct_sectors([32], [([(0, 0)], (0, 0))], 4) == 1
    # a stencil's neighbours along the row share sectors: A[i][j - 1], A[i][j], A[i][j + 1] touch 10, not 27
    three = [([(0, 1)], (0, d)) for d in (-1, 0, 1)]
    assert _distinct_sectors([32], three, 4) == 10


def test_candidates_default_first_and_user_sizes_win():
    found, user = candidates(0, 2, SizeOptions())
    assert not user
    assert found[0] == Candidate((0, 1), KernelSizes((32, 32), (8, 32), (65535, GRID_X)))
    assert {c.order for c in found} == {(0, 1), (1, 0)}
    assert all(-(-t // b) * -(-u // c) <= MAX_POINTS_PER_THREAD
               for cand in found for (t, u), (b, c) in [(cand.sizes.tile, cand.sizes.block)])
    # 4x2 and 4x4 points a thread (tile 64x64, blocks 16x32 and 16x16) only where a loop inside reuses them
    assert {KernelSizes((64, 64), b, (65535, GRID_X)) for b in ((16, 32), (16, 16))} <= {c.sizes for c in found}
    few, _ = candidates(0, 2, SizeOptions(), most_points=MAX_POINTS_WITHOUT_REUSE)
    assert few and all(-(-t // b) * -(-u // c) <= MAX_POINTS_WITHOUT_REUSE
                       for cand in few for (t, u), (b, c) in [(cand.sizes.tile, cand.sizes.block)])
    found, user = candidates(0, 2, SizeOptions(tile=(16, 16)))
    assert user and found == [Candidate((0, 1), KernelSizes((16, 16), (8, 32), (65535, GRID_X)))]
    assert orders(3) == [(0, 1, 2), (0, 2, 1), (1, 2, 0)]
    # an order the user sets: the model chooses only the sizes in it, or keeps the user's sizes too
    found, user = candidates(0, 2, SizeOptions(per_kernel="{ kernel[0] -> order[1,0] }"))
    assert not user and len(found) > 1 and {c.order for c in found} == {(1, 0)}
    found, user = candidates(0, 2, SizeOptions(per_kernel="{ kernel[0] -> order[1,0]; kernel[0] -> tile[16,16] }"))
    assert user and found == [Candidate((1, 0), KernelSizes((16, 16), (8, 32), (65535, GRID_X)))]
    assert candidates(1, 2, SizeOptions(per_kernel="{ kernel[0] -> order[1,0] }"))[0][0].order == (0, 1)


def test_the_transposed_access_of_mvt_is_not_coalesced(tmp_path):
    # x1[i] += A[i][j] * y1[j] with i the parallel loop: a warp's 32 threads read 32 rows of A
    scop, region = region_of(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n"
                             "    x1[i] = x1[i] + A[i][j] * y1[j];",
                             "int n, double A[n][n], double x1[n], double y1[n]")
    (kernel,) = region.mapping.kernels
    assert band_is(kernel, "[n] -> { S_0[i, j] -> [i, j] : 0 <= i < n and 0 <= j < n }")
    model_ = KernelModel(scop, region.arrays, kernel.band, 1, 1, MemoryOptions())
    wide = model_.estimate(Candidate((0,), KernelSizes((256,), (256,), (GRID_X,))))
    a = by_array(wide)["A"]
    assert (a.where, a.warp_sectors, a.coalesced_sectors, a.coalesced) == ("global memory", 32, 9, False)
    assert by_array(wide)["x1"].where == "registers" and by_array(wide)["y1"].where == "shared memory"
    # per tile of work (256 points x the 32 of j): 8 warps x 32 steps x 32 sectors of A, and y1's 32
    # elements (8 sectors) once
    assert wide.work == 256 * 32 and wide.global_sectors == 8 * 32 * 32 + 8
    # a tile of 256 with j tiled by 16 stages A's 256x16 tile (34816 bytes with the padding) and reads it
    # in rows: 6 blocks of 8 warps an SM, where the 128x32 tiles of j tiled by 32 take as many bytes for
    # half the threads (occupancy 38%)
    chosen = region.choices[0].best
    assert chosen.candidate == Candidate((0,), KernelSizes((256,), (256,), (GRID_X,), (16,)))
    a = by_array(chosen)["A"]
    assert (a.where, a.shared_bytes, a.sectors) == ("shared memory", 256 * 17 * 8, 256 * 4)
    assert (chosen.blocks_per_sm, chosen.occupancy) == (6, 0.75)
    narrow = next(e for e in region.choices[0].estimates
                  if e.candidate == Candidate((0,), KernelSizes((128,), (128,), (GRID_X,))))
    assert (by_array(narrow)["A"].shared_bytes, narrow.occupancy) == (128 * 33 * 8, 0.375)
    assert kernel.sizes.tile == (256,) and kernel.tiling.tile_sizes == (256, 16)


def test_matrix_product_takes_a_register_tile_of_4x4(tmp_path):
    scop, region = region_of(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n"
                             "    for (int k = 0; k < n; k++)\n      C[i][j] += A[i][k] * B[k][j];",
                             "int n, double A[n][n], double B[n][n], double C[n][n]")
    (kernel,) = region.mapping.kernels
    assert band_is(kernel, "[n] -> { S_0[i, j, k] -> [i, j, k] : 0 <= i < n and 0 <= j < n and 0 <= k < n }")
    choice = region.choices[0]
    best = choice.best
    assert best.candidate == Candidate((0, 1), KernelSizes((64, 64), (16, 16), (65535, GRID_X)))
    where = by_array(best)
    assert (where["A"].where, where["B"].where, where["C"].where) == ("shared memory", "shared memory", "registers")
    # A's tile 64x32 (8 sectors a row) and B's 32x64 (16) per tile of 64x64x32 points: 0.25 a warp
    assert best.global_sectors == 64 * 8 + 32 * 16 and best.work == 64 * 64 * 32
    # a warp is two rows of 16 threads: A[i][k] is read at two rows, in one bank unless A's rows are
    # padded by one; B[k][j] at 16 consecutive elements of one row, in distinct banks
    assert best.shared_bytes == (64 * 33 + 32 * 64) * 8
    # each step of k, a warp reads 4 rows of A and 4 columns of B in one wavefront each for its 16 x 32
    # points: 8 wavefronts for 512, and the copies of the tiles (16 and 16 wavefronts for 4096 points)
    assert best.shared_wavefronts * 32 / best.work == (8 * 8 * 32 + 16 * 8 + 16 * 8) * 32 / (64 * 64 * 32)
    # 4x4 points a thread: 16 of C (2 words each), 4 rows of A and 4 columns of B a step
    assert best.registers == 80 and (best.blocks_per_sm, best.occupancy) == (3, 0.375)
    # k tiled by 16 would cost the same sectors and wavefronts per point in half the shared memory, which
    # does not bound the blocks here (the registers do): its barriers make it dearer, the tiles of 32
    # stay, and no estimate names it
    short = KernelModel(scop, region.arrays, kernel.band, 2, 1, MemoryOptions()).estimate(
        Candidate((0, 1), KernelSizes((64, 64), (16, 16), (65535, GRID_X), (16,))))
    assert (short.global_sectors * 2, short.shared_wavefronts * 2, short.work * 2) == \
        (best.global_sectors, best.shared_wavefronts, best.work)
    assert short.score == round(best.score * 1.03, 4) and short.shared_bytes < best.shared_bytes
    assert short.blocks_per_sm == 3
    assert not any(e.candidate.sizes.sequential for e in choice.estimates)
    # blocks of 16x32 (4x2 points) read B's 32 consecutive doubles in two wavefronts, for half the points
    wide = next(e for e in choice.estimates if e.candidate.sizes.block == (16, 32) and not e.candidate.sizes.sequential)
    assert wide.shared_wavefronts > 1.8 * best.shared_wavefronts and wide.score > best.score
    default = next(e for e in choice.estimates if e.candidate.sizes.tile == (32, 32) and e.candidate.order == (0, 1)
                   and e.candidate.sizes.block == (8, 32))
    assert default.global_sectors * 32 / default.work == 0.5 and default.score > best.score
    assert (kernel.order, kernel.sizes.tile, kernel.sizes.block) == ((0, 1), (64, 64), (16, 16))


def test_the_coalesced_outer_loop_goes_to_x(tmp_path):
    # the row loop inside the column loop: along j (the band's outer member) a warp reads a row's
    # consecutive elements; along i, 32 rows
    scop, region = region_of(tmp_path, "for (j = 0; j < m; j++)\n  for (i = 0; i < n; i++)\n"
                             "    B[i][j] = 2.0 * A[i][j];", "int n, int m, double A[n][m], double B[n][m]")
    (kernel,) = region.mapping.kernels
    assert band_is(kernel, "[n, m] -> { S_0[j, i] -> [j, i] : 0 <= j < m and 0 <= i < n }")
    assert kernel.order == (1, 0)
    best = region.choices[0].best
    assert best.candidate.order == (1, 0) and all(g.coalesced for g in best.groups)
    band_order = next(e for e in region.choices[0].estimates if e.candidate.order == (0, 1))
    assert by_array(band_order)["A"].warp_sectors == 32 and not by_array(band_order)["A"].coalesced
    # the kernel's tiles: i's first (y), j's second (x)
    t_y, t_x = kernel.sizes.tile
    tiles = kernel.tiling.to_tiles
    instance = isl.UnionSet("[n, m] -> { S_0[j = 70, i = 40] : n = 100 and m = 100 }", context=tiles.get_ctx())
    expected = isl.UnionSet(f"[n, m] -> {{ [{40 // t_y}, {70 // t_x}] : n = 100 and m = 100 }}",
                            context=tiles.get_ctx())
    assert instance.apply(tiles).is_equal(expected)
    # with sizes the user gives, the band's order stays
    _, user = region_of(tmp_path, "for (j = 0; j < m; j++)\n  for (i = 0; i < n; i++)\n"
                        "    B[i][j] = 2.0 * A[i][j];", "int n, int m, double A[n][m], double B[n][m]",
                        SizeOptions(tile=(32, 32)))
    assert user.mapping.kernels[0].order == (0, 1) and user.choices[0].user


def test_sizes_no_block_can_hold_are_still_estimated(tmp_path):
    # a block of 32x64 threads, past the 1024 a block may have: no block fits an SM (score infinite), and
    # the kernel keeps the user's sizes (differential program 1222 of seed 6, a block of one thread with a
    # register tile of 256 points, past the registers a thread may have, found the choice left empty)
    scop, region = region_of(tmp_path, "for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n"
                             "    for (int k = 0; k < n; k++)\n      C[i][j] += A[i][k] * B[k][j];",
                             "int n, double A[n][n], double B[n][n], double C[n][n]",
                             SizeOptions(tile=(32, 64), block=(32, 64)))
    choice = region.choices[0]
    assert choice.user and choice.tried == 1 and len(choice.estimates) == 1
    assert choice.best.score == math.inf and choice.best.blocks_per_sm == 0
    assert region.mapping.kernels[0].sizes.block == (32, 64)


def test_a_thread_with_more_points_than_registers_runs_them_one_after_another(tmp_path):
    # user sizes may give a thread more points than MAX_REGISTERS: a register tile of them would keep
    # nothing in registers (its group would not fit) and cost isl's AST of the unrolled points, so the
    # thread runs them one after another, and neither the model nor the memory stage puts C in registers
    from polypragma.gpu.memory import Placement
    from polypragma.gpu.sizes import MAX_REGISTERS

    product = "for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n    for (int k = 0; k < n; k++)\n" \
              "      C[i][j] += A[i][k] * B[k][j];"
    params = "int n, double A[n][n], double B[n][n], double C[n][n]"
    for block, points, tiled in (((8, 8), 64, True), ((4, 4), 256, False)):
        _, region = region_of(tmp_path, product, params, SizeOptions(tile=(64, 64), block=block))
        (kernel,) = region.mapping.kernels
        assert math.prod(kernel.sizes.thread_points) == points and (points <= MAX_REGISTERS) == tiled
        assert kernel.register_tile == tiled
        assert (by_array(region.choices[0].best)["C"].where == "registers") == tiled
        (c,) = [g for g in region.memory[0].groups if g.array.name == "C"]
        assert (c.placement is Placement.PRIVATE) == tiled
