"""The benchmark set: corpus kernels at realistic sizes, with their work and compulsory traffic.

Each entry names a kernel of tests/kernels, the preprocessor definitions and the command-line
arguments (seed first) that give it a realistic size (at most a few hundred MB of data), the
floating-point operations of its region, and the bytes it must move at least (each array read
once and each written array written once), from which GFLOP/s and GB/s are computed.
Sizes are chosen so that the sequential CPU run stays within seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DOUBLE = 8


@dataclass(frozen=True)
class Benchmark:
    kernel: str
    args: tuple[int, ...]  # seed, then the kernel's size arguments
    flops: float
    bytes: float
    defines: tuple[str, ...] = field(default=())
    note: str = ""
    # polypragma options of the cuda build (sizes), and the label that tells this entry from the
    # kernel's default one
    gpu_options: tuple[str, ...] = field(default=())
    label: str = ""

    @property
    def name(self) -> str:
        return f"{self.kernel}_{self.label}" if self.label else self.kernel

    def size(self) -> str:
        shown = [d.removeprefix("-D") for d in self.defines] + [str(a) for a in self.args[1:]]
        return " ".join(shown)


def _suite() -> list[Benchmark]:
    out = []
    n = 2000
    out.append(Benchmark("gemm", (1, n, n, n), 2.0 * n**3, 4 * n * n * DOUBLE,
                         note="matrix product (the cost model's 4x4 points a thread: tile 64x64, block 16x16)"))
    # smaller register tiles of the same product: 4x2 and 4x1 points a thread (issue 17, item 2)
    # and larger ones, 8x4, 4x8 and 8x8 (102, 102 and 183 registers a thread, no spills: nvcc --resource-usage)
    for label, tile, block in (("tile4x2", "64,64", "16,32"), ("tile4x1", "32,32", "8,32"),
                               ("tile8x4", "128,64", "16,16"), ("tile4x8", "64,128", "16,16"),
                               ("tile8x8", "128,128", "16,16")):
        out.append(Benchmark("gemm", (1, n, n, n), 2.0 * n**3, 4 * n * n * DOUBLE,
                             note=f"matrix product, tile {tile.replace(',', 'x')}, block {block.replace(',', 'x')}",
                             gpu_options=("--tile-size", tile, "--block-size", block), label=label))
    # every tile's copies in their loops, with guards (--no-unroll-copies), which isl builds faster
    # (bench/results/unroll_copies_2026_12_01.md), against the full tiles' copies apart and unrolled (the
    # default), never timed on a GPU
    out.append(Benchmark("gemm", (1, n, n, n), 2.0 * n**3, 4 * n * n * DOUBLE, label="loop_copies",
                         note="matrix product, copies in loops", gpu_options=("--no-unroll-copies",)))
    # the loop over k within a tile step unrolled by two around the register tile's loops over slots
    # (--unroll-steps 2): the PTX nvcc made while isl unrolled the tile (1.438 ms on the H200, 2026-11-30),
    # against the loops over slots without the pragma (nvcc leaves that loop as it is: a third of the FMAs)
    out.append(Benchmark("gemm", (1, n, n, n), 2.0 * n**3, 4 * n * n * DOUBLE, label="unroll2",
                         note="matrix product, two steps of k unrolled together", gpu_options=("--unroll-steps", "2")))
    # the copies to shared memory two elements at a time (--vector-copies), which a kernel keeping sums in
    # registers copies one by one by default (1.584 -> 1.625 and 1.447 -> 1.408 ms on the H200, 2026-11-30)
    out.append(Benchmark("gemm", (1, n, n, n), 2.0 * n**3, 4 * n * n * DOUBLE, label="vector",
                         note="matrix product, vector copies", gpu_options=("--vector-copies",)))
    # the copies to shared memory asynchronous (--async-copies: off until measured); sync, the PTX loads
    # each element and stores it before the next (16 dependent loads a tile step, in 3 to 6 rounds)
    out.append(Benchmark("gemm", (1, n, n, n), 2.0 * n**3, 4 * n * n * DOUBLE, label="async",
                         note="matrix product, asynchronous copies", gpu_options=("--async-copies",)))
    # two buffers for A's and B's tiles (--double-buffer: off until measured), the next step of k copied in
    # while this one is computed, one barrier a step; steps of 16 (34 KB of shared memory, as 32 in one
    # buffer); with asynchronous copies, their loads in flight during the step (software pipelining)
    out.append(Benchmark("gemm", (1, n, n, n), 2.0 * n**3, 4 * n * n * DOUBLE, label="double",
                         note="matrix product, two buffers a tile", gpu_options=("--double-buffer",)))
    out.append(Benchmark("gemm", (1, n, n, n), 2.0 * n**3, 4 * n * n * DOUBLE, label="pipelined",
                         note="matrix product, two buffers a tile, asynchronous copies",
                         gpu_options=("--double-buffer", "--async-copies")))
    # past 48 KiB of shared memory (dynamic shared memory, opted in): two buffers of steps of 32 (66 KB), and
    # the larger register tiles, whose tiles of A and B did not both fit in 48 KiB (tile8x4's B and tile8x8's
    # A and B were read from global memory: 3.8 and 2.0 TFLOP/s on the H200)
    out.append(Benchmark("gemm", (1, n, n, n), 2.0 * n**3, 4 * n * n * DOUBLE, label="pipelined32",
                         note="matrix product, two buffers a tile, asynchronous copies, steps of 32 (66 KB)",
                         gpu_options=("--double-buffer", "--async-copies", "--max-shared-memory", "100k")))
    # ... and the pipelined copies 16 bytes at a time (cp.async.cg of two elements where both are aligned)
    out.append(Benchmark("gemm", (1, n, n, n), 2.0 * n**3, 4 * n * n * DOUBLE, label="pipelined_vector",
                         note="matrix product, two buffers a tile, asynchronous copies of 16 bytes",
                         gpu_options=("--double-buffer", "--async-copies", "--vector-copies")))
    for label, tile in (("tile8x4_dynamic", "128,64"), ("tile8x8_dynamic", "128,128")):
        out.append(Benchmark("gemm", (1, n, n, n), 2.0 * n**3, 4 * n * n * DOUBLE, label=label,
                             note=f"matrix product, tile {tile.replace(',', 'x')}, block 16x16, 100 KiB of shared memory",
                             gpu_options=("--tile-size", tile, "--block-size", "16,16", "--max-shared-memory", "100k")))
    # a sparse matrix through pointers: the host inspects the compressed rows to size col, val and x
    # (polypragma/gpu/inspection.py); two products, each reading rowptr, col and val, x, writing y
    rows, per_row = 2_000_000, 16
    nnz = rows * per_row
    out.append(Benchmark("spmv_csr", (1, rows, per_row), 2 * 2.0 * nnz,
                         2 * ((rows + 1) * 4 + nnz * (4 + DOUBLE) + 2 * rows * DOUBLE),
                         note="CSR sparse matrix times a vector, twice, through pointers (inspected extents)"))
    # the product as people write it, with a local sum (polypragma/gpu/extend.py), and a row sum
    out.append(Benchmark("local_accumulators", (1, n, n, n), 2.0 * n**3 + 2.0 * n * n, (3 * n * n + 2 * n) * DOUBLE,
                         note="C = A B with a local sum per element, and y = A x + 1"))
    # three local sums in one loop of k (nests side by side that join the parallel band together)
    out.append(Benchmark("similarity", (1, n, n, n), 6.0 * n**3 + 3.0 * n * n, 3 * n * n * DOUBLE,
                         note="S = X Y^T over the rows' norms: a dot product and two norms per element"))
    n = 1500
    out.append(Benchmark("mm2", (1, n, n, n, n), 4.0 * n**3, 6 * n * n * DOUBLE, note="two matrix products"))
    n = 2000
    out.append(Benchmark("syrk", (1, n, n), float(n) * (n + 1) * n, 3 * n * n * DOUBLE, note="symmetric rank-k update"))
    out.append(Benchmark("syrk", (1, n, n), float(n) * (n + 1) * n, 3 * n * n * DOUBLE, label="pipelined",
                         note="symmetric rank-k update, two buffers a tile, asynchronous copies",
                         gpu_options=("--double-buffer", "--async-copies")))
    n = 1500
    out.append(Benchmark("covariance", (1, n, n), float(n) * n * (n + 1) + 3.0 * n * n, 4 * n * n * DOUBLE,
                         note="covariance matrix"))
    n = 2000
    out.append(Benchmark("lu", (1, n), 2.0 * n**3 / 3, 2 * n * n * DOUBLE, note="LU factorisation"))
    n = 160
    out.append(Benchmark("doitgen", (1, n, n, n), 2.0 * n**4, 2 * n**3 * DOUBLE, note="multiresolution kernel"))
    n = 5000
    out.append(Benchmark("atax", (1,), 4.0 * n * n, n * n * DOUBLE, defines=(f"-DM={n}", f"-DN={n}"),
                         note="A^T A x"))
    out.append(Benchmark("gesummv", (1,), 4.0 * n * n, 2 * n * n * DOUBLE, defines=(f"-DN={n}",),
                         note="A x and B x (both read along rows with i on x: the cost model's j tiled by 8)"))
    out.append(Benchmark("bicg", (1, n, n), 4.0 * n * n, n * n * DOUBLE,
                         note="BiCG kernel (both sums in one kernel that reads A once)"))
    out.append(Benchmark("mvt", (1, n), 4.0 * n * n, n * n * DOUBLE,
                         note="two matrix-vector products (in one kernel that reads A once)"))
    # each sum in a kernel of its own, each reading all of A (--fusion min), as before gpu/fuse.py (for these
    # two, isl's clustering is the same either way: the same kernels as before it but for the merges' macro)
    out.append(Benchmark("bicg", (1, n, n), 4.0 * n * n, n * n * DOUBLE, label="apart",
                         note="BiCG kernel, a kernel a sum", gpu_options=("--fusion", "min")))
    out.append(Benchmark("mvt", (1, n), 4.0 * n * n, n * n * DOUBLE, label="apart",
                         note="two matrix-vector products, a kernel each", gpu_options=("--fusion", "min")))
    # the row-wise kernels with j tiled by 32, as before the cost model chose shorter tiles: 128 a block
    # (mvt, a kernel a product: --fusion min), B in global memory (gesummv)
    out.append(Benchmark("mvt", (1, n), 4.0 * n * n, n * n * DOUBLE, label="seq32",
                         note="two matrix-vector products, j tiled by 32",
                         gpu_options=("--sizes", "{ kernel[0] -> sequential[32] }", "--fusion", "min")))
    out.append(Benchmark("gesummv", (1,), 4.0 * n * n, 2 * n * n * DOUBLE, defines=(f"-DN={n}",), label="seq32",
                         note="A x and B x, j tiled by 32", gpu_options=("--sizes", "{ kernel[0] -> sequential[32] }")))
    out.append(Benchmark("gemver", (1, n), 10.0 * n * n, 2 * n * n * DOUBLE, note="vector multiplication and "
                         "matrix addition (A's update in the kernel of the sum that reads it)"))
    out.append(Benchmark("gemver", (1, n), 10.0 * n * n, 2 * n * n * DOUBLE, label="apart",
                         note="vector multiplication and matrix addition, A's update a kernel of its own",
                         gpu_options=("--fusion", "min")))
    n, t = 4_000_000, 100
    out.append(Benchmark("jacobi_1d", (1, n, t), 6.0 * n * t, 2 * n * DOUBLE * 2 * t, note="1-D stencil, 100 steps"))
    # the stencils' copies one element at a time (--no-vector-copies), against their vectors by default
    out.append(Benchmark("jacobi_1d", (1, n, t), 6.0 * n * t, 2 * n * DOUBLE * 2 * t, label="elements",
                         note="1-D stencil, 100 steps, copies of elements", gpu_options=("--no-vector-copies",)))
    n, t = 4000, 100
    out.append(Benchmark("jacobi_2d", (1,), 10.0 * n * n * t, 2 * n * n * DOUBLE * 2 * t,
                         defines=(f"-DN={n}", f"-DTSTEPS={t}"), note="2-D stencil, 100 steps"))
    out.append(Benchmark("jacobi_2d", (1,), 10.0 * n * n * t, 2 * n * n * DOUBLE * 2 * t, label="elements",
                         defines=(f"-DN={n}", f"-DTSTEPS={t}"), note="2-D stencil, 100 steps, copies of elements",
                         gpu_options=("--no-vector-copies",)))
    out.append(Benchmark("jacobi_2d", (1,), 10.0 * n * n * t, 2 * n * n * DOUBLE * 2 * t, label="async",
                         defines=(f"-DN={n}", f"-DTSTEPS={t}"), note="2-D stencil, 100 steps, asynchronous copies",
                         gpu_options=("--async-copies",)))
    out.append(Benchmark("jacobi_2d", (1,), 10.0 * n * n * t, 2 * n * n * DOUBLE * 2 * t, label="loop_copies",
                         defines=(f"-DN={n}", f"-DTSTEPS={t}"), note="2-D stencil, 100 steps, copies in loops",
                         gpu_options=("--no-unroll-copies",)))
    # the stencils' shared tiles against the caches alone: the cost model counts a warp's sectors, not
    # the L1 hits of its neighbours' rows
    out.append(Benchmark("jacobi_2d", (1,), 10.0 * n * n * t, 2 * n * n * DOUBLE * 2 * t, label="noshared",
                         defines=(f"-DN={n}", f"-DTSTEPS={t}"), note="2-D stencil, 100 steps, no shared memory",
                         gpu_options=("--no-shared-memory",)))
    # the same stencil as C programs write it, its two buffers swapped through pointers after each step
    # (frontend/rotations.py unrolls the time loop by 2: each copy a kernel, the host looping over them)
    out.append(Benchmark("pointer_swap", (1, n, t), 6.0 * n * n * t, 2 * n * n * DOUBLE * t,
                         note="2-D stencil, 100 steps, buffers swapped through pointers"))
    # convergence loops (frontend/host_loops.py): the while loop on the host, its body's loops kernels, the
    # grids kept on the device; the counts are upper bounds (the loops' caps: 500 relaxations of an n x n
    # grid, 1,000 smoothing rounds over its n * n elements, the damped sweeps negligible)
    n = 2000
    out.append(Benchmark("convergence", (1, n), 7.0 * n * n * (500 + 1000), 4 * n * n * DOUBLE * (500 + 1000),
                         note="Jacobi to a tolerance, smoothing until nothing moves: loops run on the host"))
    n, t = 256, 100
    out.append(Benchmark("heat_3d", (1, n, t), 30.0 * n**3 * t, 2 * n**3 * DOUBLE * 2 * t, note="3-D stencil, 100 steps"))
    n, t = 2000, 100
    out.append(Benchmark("fdtd_2d", (1, n, n, t), 11.0 * n * n * t, 3 * n * n * DOUBLE * 2 * t,
                         note="2-D finite differences, 100 steps (ex's and ey's updates in one kernel)"))
    out.append(Benchmark("fdtd_2d", (1, n, n, t), 11.0 * n * n * t, 3 * n * n * DOUBLE * 2 * t, label="elements",
                         note="2-D finite differences, 100 steps, copies of elements",
                         gpu_options=("--no-vector-copies",)))
    out.append(Benchmark("fdtd_2d", (1, n, n, t), 11.0 * n * n * t, 3 * n * n * DOUBLE * 2 * t, label="async",
                         note="2-D finite differences, 100 steps, asynchronous copies", gpu_options=("--async-copies",)))
    n = 4000
    out.append(Benchmark("convolution_2d", (1,), 22.0 * n * n, 3 * n * n * DOUBLE,
                         defines=(f"-DNI={n}", f"-DNJ={n}"), note="3x3 convolution and a clamp"))
    out.append(Benchmark("convolution_2d", (1,), 22.0 * n * n, 3 * n * n * DOUBLE, label="elements",
                         defines=(f"-DNI={n}", f"-DNJ={n}"), note="3x3 convolution and a clamp, copies of elements",
                         gpu_options=("--no-vector-copies",)))
    out.append(Benchmark("convolution_2d", (1,), 22.0 * n * n, 3 * n * n * DOUBLE, label="noshared",
                         defines=(f"-DNI={n}", f"-DNJ={n}"), note="3x3 convolution and a clamp, no shared memory",
                         gpu_options=("--no-shared-memory",)))
    out.append(Benchmark("transpose", (1, n, n), 6.0 * n * n, 3 * n * n * DOUBLE, note="transposed accesses"))
    # reductions on data: histograms (an atomic update each, the bins chosen by the data) and counts,
    # sums and extremes under conditions on data (per thread, then per block); floating-point
    # operations: the weighted histogram's sums and the three floating-point extremes
    n, bins, rows = 8_000_000, 256, 5
    out.append(Benchmark("reduction_data", (1,), 4.0 * n, (4 + 4 + 8 + 8 + 4 * rows) * n + 40.0 * bins,
                         defines=(f"-DN={n}", f"-DB={bins}"),
                         note="histograms and reductions under conditions on data (atomic updates)"))
    n = 2000
    out.append(Benchmark("floyd_warshall", (1,), 2.0 * n**3, 2 * n * n * 4, defines=(f"-DN={n}",),
                         note="shortest paths (integer operations)"))
    return out


SUITE = _suite()
