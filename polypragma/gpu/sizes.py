"""Tile, block and grid sizes per kernel.

The defaults (256 threads a block, 32 of them along ``x`` when two or three
loops are mapped) are the cost model's first candidates: where the user sets
no tile or block size, :mod:`polypragma.gpu.cost` chooses among them and a
few others, and which mapped loop goes to ``x``.  Users set them for all kernels (``--tile-size``,
``--block-size``, ``--grid-size``) or per kernel in PPCG's notation::

    --sizes '{ kernel[0] -> tile[64,64]; kernel[i] -> block[16] : i != 4 }'

Sizes are listed outermost first, so the last entry is ``x``.  The same notation sets which loops a
kernel maps in which order (the mapped loops of its band numbered from 0, outermost first; the last
entry goes to ``x``): ``kernel[1] -> order[1,0]`` puts the band's second loop on ``y`` and its first on
``x``, as the cost model chooses for a column-wise loop nest.  ``kernel[0] -> sequential[16]`` sets the
tiles of the loops a kernel runs in sequence inside each thread for its shared-memory tiles (the further
members of a permutable band: the ``k`` of a matrix product; :data:`SEQUENTIAL_TILE` each by default,
and the cost model also tries :data:`SHORTER_SEQUENTIAL_TILES`; given alone, the model chooses the
other sizes).  ``--dump-sizes`` prints the order and these with the sizes where they are not the
defaults, so that its output given back to ``--sizes`` maps every kernel as it was.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import islpy as isl

from polypragma.isl_helpers import sets_of

DEFAULT_TILE = {1: (256,), 2: (32, 32), 3: (4, 8, 32)}
DEFAULT_BLOCK = {1: (256,), 2: (8, 32), 3: (2, 4, 32)}
# the most blocks along x, CUDA's (OpenCL has none): by default a kernel launches one block for each tile
# along x where their count is never more (gpu/mapping.py), and wraps them around 65535 blocks elsewhere
GRID_X = 2**31 - 1
DEFAULT_GRID = {1: (GRID_X,), 2: (65535, GRID_X), 3: (256, 65535, GRID_X)}
# the tile of each band member a kernel runs in sequence beyond its mapped ones (the k loop of a matrix
# product), so that the data a tile touches has a constant size and fits shared memory; the cost model
# also tries shorter ones, whose tiles take less shared memory (more blocks resident, or room for a
# second array: gesummv's A and B) for more barriers
SEQUENTIAL_TILE = 32
SHORTER_SEQUENTIAL_TILES = (16, 8)
# elements of one group a thread keeps in registers, and so the most points a thread runs as a register
# tile: past it no group of the kernel fits its registers (64 doubles are 128 of a thread's 255), and
# isl's AST of the unrolled points grows with them (a tile of 256 over blocks of 1 took 100 s of isl's
# time for one kernel, in vain: differential program 4970, opencl --block-size 1)
MAX_REGISTERS = 64


class SizeError(ValueError):
    pass


@dataclass(frozen=True)
class KernelSizes:
    tile: tuple[int, ...]
    block: tuple[int, ...]
    grid: tuple[int, ...]
    # the tiles of the members run in sequence beyond the mapped ones, outermost first; () or too few:
    # SEQUENTIAL_TILE for the others
    sequential: tuple[int, ...] = ()

    def sequential_tiles(self, members: int) -> tuple[int, ...]:
        """The tiles of a kernel's ``members`` members run in sequence (outermost first)."""
        return tuple(self.sequential[:members]) + (SEQUENTIAL_TILE,) * max(0, members - len(self.sequential))

    @property
    def thread_points(self) -> tuple[int, ...]:
        """The points of a tile each thread runs, along each mapped loop (the tile over the block, rounded
        up)."""
        return tuple(-(-tile // block) for tile, block in zip(self.tile, self.block))


def _fit(values: tuple[int, ...] | None, mapped: int, default: tuple[int, ...]) -> tuple[int, ...]:
    """``values`` (outermost first) cut or padded to ``mapped`` entries, keeping the innermost ones."""
    if not values:
        return default
    if len(values) >= mapped:
        return tuple(values[len(values) - mapped:])
    return tuple(default[: mapped - len(values)]) + tuple(values)


@dataclass(frozen=True)
class SizeOptions:
    tile: tuple[int, ...] | None = None
    block: tuple[int, ...] | None = None
    grid: tuple[int, ...] | None = None
    per_kernel: str | None = None  # PPCG's notation

    def set_by_user(self, index: int) -> bool:
        """Whether the user set a tile or block size that kernel ``index`` takes (then the GPU stage
        keeps its sizes)."""
        if self.tile or self.block:
            return True
        chosen = parse_sizes(self.per_kernel).get(index, {}) if self.per_kernel else {}
        return "tile" in chosen or "block" in chosen

    def grid_by_user(self, index: int) -> bool:
        """Whether the user set a grid size that kernel ``index`` takes."""
        if self.grid:
            return True
        return "grid" in (parse_sizes(self.per_kernel).get(index, {}) if self.per_kernel else {})

    @property
    def may_fuse(self) -> bool:
        """Whether reductions may be fused into one kernel (:mod:`polypragma.gpu.fuse`): unless the user set
        tile or block sizes for all kernels, which ask each kernel to map its parallel loops only (as
        :meth:`may_spread`).  Sizes per kernel (``--sizes``) name the kernels as fusion leaves them, so that
        the sizes ``--dump-sizes`` prints give the same kernels back."""
        return not (self.tile or self.block)

    def may_spread(self, index: int, parallel: int) -> bool:
        """Whether kernel ``index``, whose band has ``parallel`` parallel loops, may also map the reduction
        loops inside them (:func:`polypragma.gpu.spread.spread_reduction`): where the user set no tile,
        block or order for it, or set them per kernel (``--sizes``) for more loops than ``parallel``; sizes
        set for all kernels (``--tile-size``, ``--block-size``) keep it mapping its parallel loops only."""
        if self.tile or self.block:
            return False
        chosen = parse_sizes(self.per_kernel).get(index, {}) if self.per_kernel else {}
        given = [len(chosen[k]) for k in ("tile", "block", "order") if k in chosen]
        return not given or min(given) > parallel

    def order(self, index: int, mapped: int) -> tuple[int, ...] | None:
        """The order of kernel ``index``'s ``mapped`` loops the user set (``order[..]``), or None."""
        order = parse_sizes(self.per_kernel).get(index, {}).get("order") if self.per_kernel else None
        if order is not None and len(order) != mapped:
            raise SizeError(f"order {list(order)} of kernel {index} names {len(order)} loop(s); "
                            f"the kernel maps {mapped}")
        return order

    def for_kernel(self, index: int, mapped: int) -> KernelSizes:
        if mapped == 0:
            return KernelSizes((), (), ())
        tile = _fit(self.tile, mapped, DEFAULT_TILE[mapped])
        block = _fit(self.block, mapped, DEFAULT_BLOCK[mapped])
        grid = _fit(self.grid, mapped, DEFAULT_GRID[mapped])
        sequential: tuple[int, ...] = ()
        if self.per_kernel:
            chosen = parse_sizes(self.per_kernel).get(index, {})
            tile = _fit(chosen.get("tile"), mapped, tile)
            block = _fit(chosen.get("block"), mapped, block)
            grid = _fit(chosen.get("grid"), mapped, grid)
            sequential = chosen.get("sequential", ())
        for name, values in (("tile", tile), ("block", block), ("grid", grid), ("sequential", sequential)):
            if any(v <= 0 for v in values):
                raise SizeError(f"{name} sizes must be positive, got {list(values)}")
        return KernelSizes(tile, block, grid, sequential)


# the smallest tile along x the GPU stage chooses: a warp's width, so that a warp's threads still read
# consecutive elements where the mapping made x the coalesced dimension; and the fewest threads of a
# block it chooses (four warps: fewer leave the multiprocessor's schedulers idle)
WARP = 32
MIN_THREADS = 128


def warp_shape(block: tuple[int, ...]) -> list[int]:
    """The threads of one warp along each dimension of ``block``, from ``x`` outwards: ``x`` fastest, as
    CUDA numbers a block's threads, so a block 16 wide puts two rows of ``y`` threads in a warp."""
    out, left = [], WARP
    for size in reversed(block):
        out.append(min(size, left))
        left = max(1, left // out[-1])
    return out


def smaller(sizes: KernelSizes) -> KernelSizes | None:
    """The next smaller sizes to try when a tile worth staging through shared memory does not fit:
    the outermost mapped dimension longer than one halved (its block too where it exceeds the new
    tile), x last and not below a warp; None when nothing is left to halve, or the block would have
    fewer than MIN_THREADS threads."""
    tile, block = list(sizes.tile), list(sizes.block)
    for d in range(len(tile)):
        x = d == len(tile) - 1
        if (tile[d] > 1 and not x) or (x and tile[d] > WARP and tile[d] % 2 == 0):
            tile[d] = (tile[d] + 1) // 2
            block[d] = min(block[d], tile[d])
            if math.prod(block) < MIN_THREADS:
                return None
            return KernelSizes(tuple(tile), tuple(block), sizes.grid)
    return None


def parse_list(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.replace(" ", "").split(",") if v)
    except ValueError:
        raise SizeError(f"expected sizes like '32,32', got '{text}'") from None
    if not values or any(v <= 0 for v in values):
        raise SizeError(f"expected positive sizes like '32,32', got '{text}'")
    return values


def parse_sizes(text: str, kernels: int = 256) -> dict[int, dict[str, tuple[int, ...]]]:
    """``{ kernel[i] -> tile[..] ... }`` as {kernel: {"tile": (...), ...}} for kernels 0..kernels-1."""
    try:
        relation = isl.UnionMap(text)
    except isl.Error:
        # isl's message names only its own source file, not what is wrong with the text
        raise SizeError(f"cannot read sizes '{text}': expected a map in PPCG's notation, such as "
                        "'{ kernel[0] -> tile[64,64]; kernel[i] -> block[16] : i != 4 }'") from None
    result: dict[int, dict[str, tuple[int, ...]]] = {}
    for k in range(kernels):
        point = isl.UnionSet(f"{{ kernel[{k}] }}")
        image = point.apply(relation)
        if image.is_empty():
            continue
        for s in sets_of(image):
            name = s.get_tuple_name()
            if name not in ("tile", "block", "grid", "order", "sequential"):
                raise SizeError(f"unknown size kind '{name}' (tile, block, grid, sequential or order)")
            if not s.is_singleton():
                raise SizeError(f"{name} of kernel {k} is not a single point")
            values = s.sample_point()
            result.setdefault(k, {})[name] = tuple(
                int(values.get_coordinate_val(isl.dim_type.set, d).to_python()) for d in range(s.dim(isl.dim_type.set)))
            order = result[k].get("order")
            if order is not None and sorted(order) != list(range(len(order))):
                raise SizeError(f"order {list(order)} of kernel {k} is not an order of the loops "
                                f"0..{len(order) - 1}")
    return result


def dump(kernels) -> str:
    """The sizes used, in the notation ``--sizes`` reads, with the order of the mapped loops where it
    is not the band's, and the tiles of the loops run in sequence where they are not the default."""
    parts = []
    for kernel in kernels:
        if kernel.mapped:
            s = kernel.sizes
            kinds = [("tile", s.tile), ("block", s.block), ("grid", s.grid)]
            sequential = s.sequential_tiles(kernel.sequential)
            if any(n != SEQUENTIAL_TILE for n in sequential):
                kinds.append(("sequential", sequential))
            if kernel.order and tuple(kernel.order) != tuple(range(kernel.mapped)):
                kinds.append(("order", kernel.order))
            parts += [f"kernel[{kernel.index}] -> {name}[{','.join(map(str, values))}]" for name, values in kinds]
    return "{ " + "; ".join(parts) + " }"
