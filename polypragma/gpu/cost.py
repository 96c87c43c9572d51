"""A cost model per kernel that chooses which loops go to ``threads.x``/``y`` and the tile and block sizes.

Each candidate mapping (an order of the kernel's mapped band members, the last on ``x``, with tile and
block sizes) gets an :class:`Estimate`, computed with isl on the access relations (PolyAST+GPU, Shirako
et al., CC 2017, section 4: distinct lines per tile; C-to-CUDA's model-driven choice of tile sizes):

* **global sectors per tile of work** (a tile of the mapped loops, times one tile of the sequential
  members of a permutable band that the shared-memory tiles follow: the ``k`` of a matrix product).  A
  reference left in global memory costs, per warp and per step of the thread's inner loops, the 32-byte
  sectors its warp touches: the elements of one warp's threads (``x`` fastest, as CUDA numbers them) for
  fixed values of every other schedule dimension, their last subscript divided by the elements a sector
  holds (floor, in isl), and the distinct values counted by isl (``count_val`` of a constant set: the
  first thread's element moved by the reference's strides, which isl finds once per reference as the
  deltas of its access between neighbouring band points; references of one array at constant offsets
  count their union, as the caches serve a stencil's neighbours once).  A group staged through shared
  memory costs the sectors of its tile's box once per tile (twice when written back); one a thread keeps
  in registers (invariant in the inner loops, as the ``C`` of a matrix product) costs its warp sectors
  once per tile of the mapped loops, read and written, which is nothing per tile of work where
  sequential members are tiled (the register tile lives across all their tiles); one that would live in
  registers but whose warp access is not coalesced is staged through shared memory where its tile fits,
  as memory.py stages it.
* **shared memory**: the bytes of the staged tiles, each dimension's extent the reach of the references'
  strides over the tile plus the spread of their offsets, the innermost padded as memory.py pads it
  against bank conflicts (:func:`polypragma.gpu.banks.bank_padding`); staged where memory.py stages
  (reuse in the tile, or the global access not coalesced) and within ``--max-shared-memory``.  Loads
  from shared memory per step are those of a register tile: a thread with 4x4 points reads the rows and
  columns of its tile (4 + 4), not every pair, since each operand is read once per step of the
  reduction loop and kept in a register for the points it serves; each load of a warp costs the
  wavefronts of its bank conflicts at that padding (a warp of blocks 16 wide reads two rows).
* **registers per thread**: :data:`BASE_REGISTERS` plus, in 4-byte words, the points a thread holds of
  each register group, the shared operands of a step and the values it reads from global memory;
* **occupancy**: resident blocks per multiprocessor under the sm_90 limits below (registers, shared
  memory with its per-block reserve, threads, blocks), as warps over the 64 an SM holds.

The **score** (lower is better) is the time-like cost of 32 points of work: global sectors plus shared
wavefronts weighed by :data:`SHARED_WAVEFRONT_COST`, multiplied by how far the occupancy falls short of
:data:`LATENCY_OCCUPANCY` (fewer resident warps hide less of the memory latency) and, for sequential
tiles shorter than 32, by their barriers (:data:`SEQUENTIAL_BARRIER_COST`).  Ties go to the
earlier candidate, the defaults first, so the choice is deterministic.

Sizes the user gives win: the kernel then keeps its loops in order and the model only estimates them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import islpy as isl

from polypragma import timing
from polypragma.gpu.banks import Moves, bank_padding
from polypragma.gpu.data import DeviceArray
from polypragma.gpu.memory import ELEMENT_SIZES, HALO, MAX_MERGE_GROUPS, MemoryOptions, halo_kept
from polypragma.gpu.sizes import (MAX_REGISTERS, SEQUENTIAL_TILE, SHORTER_SEQUENTIAL_TILES, WARP, KernelSizes, SizeOptions,
                                  warp_shape)
from polypragma.isl_helpers import bounded_operations, maps_of, single_map, union_of, variable
from polypragma.model import Scop
from polypragma.union_find import UnionFind

# sm_90 (H100) limits: CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"
SECTOR_BYTES = 32
MAX_SHARED_PER_BLOCK = 227 * 1024  # with the opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize)
SHARED_PER_SM = 228 * 1024
SHARED_RESERVED_PER_BLOCK = 1024  # the runtime's own share of each resident block
REGISTERS_PER_SM = 64 * 1024
REGISTER_UNIT = 256  # registers are allocated per warp in units of 256
MAX_REGISTERS_PER_THREAD = 255
MAX_THREADS_PER_BLOCK = 1024
MAX_THREADS_PER_SM = 2048
MAX_BLOCKS_PER_SM = 32
MAX_WARPS_PER_SM = 64
# what a thread keeps besides its data: indices, loop bounds, addresses (an estimate: nvcc reports 30-40
# for the corpus' kernels without register tiles)
BASE_REGISTERS = 32
# a 128-byte shared-memory wavefront against a 32-byte sector of HBM: an H100 moves about 33 TB/s from
# shared memory (132 SMs x 128 bytes x 1.98 GHz) and 3.35 TB/s from HBM3, so a wavefront costs about
# 0.4 of a sector
SHARED_WAVEFRONT_COST = 0.4
# the occupancy past which more resident warps no longer hide memory latency better (Volkov: about half
# the warps suffice for streaming kernels); below it the score grows as 1 / occupancy
LATENCY_OCCUPANCY = 0.5
# each tile of the members run in sequence costs a block two barriers and a wait on its copies to shared
# memory, which the sectors and wavefronts do not count: the score grows by this much for each tile more
# per point than SEQUENTIAL_TILE gives (16: 3%, 8: 9%), so that a shorter tile must gain more than its
# barriers (gesummv's two tiles at 8 fit 6 blocks of 256 threads an SM, 75% occupancy against 38%: 25%
# less; mvt's at 8 rather than 16, 2%, does not)
SEQUENTIAL_BARRIER_COST = 0.03
# isl operations one stride, offset or invariance test of a reference may take; past it the reference
# counts as moving by no constant (a sector per thread, no box: the worst case)
COUNT_OPERATIONS = 50_000

# points a thread may have of a tile, in all and along one dimension: a matrix product's 4x4 (tile 64x64,
# block 16x16) reads 4 + 4 operands from shared memory a step for 16 products, which the FP64 units
# keep up with, and costs isl 0.65 s of AST with its partial tiles padded; past 4 along a dimension (8x2,
# block 8x32) isl's AST of a kernel whose full tiles are generated apart exceeds its bound (codegen's
# MAX_AST_OPERATIONS) and the kernel loses its shared and register tiles
MAX_POINTS_PER_THREAD = 16
MAX_POINTS_PER_DIMENSION = 4
# ... and a kernel without further tiled loops inside its points, where a larger register tile reuses
# nothing and only costs compile time (isl unrolls its copies to and from registers, nvcc its loops)
MAX_POINTS_WITHOUT_REUSE = 4
# candidate sizes per number of mapped loops (outermost first, the last on x); the first is the default
CANDIDATE_TILES = {1: ((256,), (128,)), 2: ((32, 32), (64, 64)), 3: ((4, 8, 32),)}
CANDIDATE_BLOCKS = {1: ((256,), (128,)), 2: ((8, 32), (16, 16), (16, 32)), 3: ((2, 4, 32),)}
# a kernel that maps reduction loops to spread them over threads (Kernel.spread): the points a thread runs
# along each of them (its tile is the block times this), one after another, accumulating its element's
# partial value in a register before one atomic update: fewer points mean more atomic updates, more
# mean fewer threads (a 5000x5000 matrix-vector product: 5000 x 32 x 5 threads, one update in 32 atomic)
SPREAD_POINTS = 32


@dataclass(frozen=True)
class Candidate:
    """A mapping: ``order[d]`` is the band member of mapped dimension ``d`` (outermost first, the last on
    ``x``), with the tile, block and grid sizes of those dimensions."""

    order: tuple[int, ...]
    sizes: KernelSizes


@dataclass(frozen=True)
class GroupEstimate:
    """One array of the kernel under a candidate: where the model puts it and what it costs."""

    array: str
    where: str  # "registers", "shared memory" or "global memory"
    warp_sectors: int  # sectors one warp touches in one access (the most over the array's references)
    coalesced_sectors: int  # what a warp's access to consecutive elements needs
    sectors: int  # global sectors per tile of work
    shared_bytes: int = 0

    @property
    def coalesced(self) -> bool:
        return self.warp_sectors <= self.coalesced_sectors


@dataclass(frozen=True)
class Estimate:
    candidate: Candidate
    groups: tuple[GroupEstimate, ...]
    work: int  # points per tile of work
    global_sectors: int  # per tile of work
    shared_wavefronts: int  # per tile of work
    shared_bytes: int  # per block
    registers: int  # per thread
    blocks_per_sm: int
    occupancy: float  # resident warps over MAX_WARPS_PER_SM
    score: float
    sequential: tuple[int, ...] = ()  # the tiles of the members run in sequence

    def describe(self) -> str:
        """One line for --explain."""
        c = self.candidate
        axes = "xyz"
        mapped = len(c.order)
        loops = ", ".join(f"loop {c.order[d] + 1} on {axes[mapped - 1 - d]}" for d in range(mapped))
        per32 = 32 / self.work
        where: dict[str, list[str]] = {}
        for g in self.groups:
            if g.array not in where.setdefault(g.where, []):
                where[g.where].append(g.array)
        places = "; ".join(f"{', '.join(names)} in {kind}" for kind, names in where.items())
        uncoalesced = list(dict.fromkeys(
            f"{g.array} ({g.warp_sectors} sectors a warp where {g.coalesced_sectors} would do)"
            for g in self.groups if g.where != "shared memory" and not g.coalesced))
        bad = f"; not coalesced: {', '.join(uncoalesced)}" if uncoalesced else ""
        inner = f", loops in sequence tiled by {list(self.sequential)}" if self.sequential else ""
        return (f"{loops}, tile {list(c.sizes.tile)}, block {list(c.sizes.block)}{inner}: "
                f"{self.global_sectors * per32:.2f} global sectors and {self.shared_wavefronts * per32:.2f} shared "
                f"wavefronts per 32 points ({places}{bad}); {self.shared_bytes} bytes of shared memory, about "
                f"{self.registers} registers a thread, {self.blocks_per_sm} block(s) an SM (occupancy "
                f"{self.occupancy:.0%}): score {self.score:.3f}")


@dataclass(frozen=True)
class Choice:
    """The estimates of a kernel's candidates, best first; ``user``: the sizes were the user's."""

    estimates: tuple[Estimate, ...]
    user: bool = False
    tried: int = 0  # candidates estimated (the estimates leave out shorter sequential tiles that gain nothing)

    @property
    def best(self) -> Estimate:
        return self.estimates[0]

    @property
    def runner_up(self) -> Estimate | None:
        return self.estimates[1] if len(self.estimates) > 1 else None


def orders(mapped: int) -> list[tuple[int, ...]]:
    """The orders of the mapped members to try: the band's own first, then each other member on ``x``
    with the rest in the band's order (which member goes to ``y`` or ``z`` matters little)."""
    out = [tuple(range(mapped))]
    for x in reversed(range(mapped - 1)):
        out.append(tuple(d for d in range(mapped) if d != x) + (x,))
    return out


def spread_candidates(mapped: int, spread: int, grid: tuple[int, ...]) -> list[Candidate]:
    """The candidates of a kernel whose ``spread`` innermost mapped members are reductions spread over
    threads: every order, each block of CANDIDATE_BLOCKS whose ``x`` is a warp (so that a warp whose
    threads share an element combines them with shuffles), the tile the block along the parallel members
    (a thread has one element) and SPREAD_POINTS times it along the spread ones.  Where every member is
    spread (reductions fused over the array they read, :mod:`polypragma.gpu.fuse`), a thread runs one
    point along ``x`` and SPREAD_POINTS times the block along the others: a reduction along ``x``
    changes its element every step, whose updates the warp's threads, sharing it, combine; one along
    another member runs in the thread's register."""
    out = []
    for order in orders(mapped):
        for block in CANDIDATE_BLOCKS[mapped]:
            if block[-1] < WARP:
                continue
            if spread == mapped:
                tile = tuple(b * SPREAD_POINTS if d < mapped - 1 else b for d, b in enumerate(block))
            else:
                tile = tuple(b * SPREAD_POINTS if order[d] >= mapped - spread else b
                             for d, b in enumerate(block))
            out.append(Candidate(order, KernelSizes(tile, block, grid)))
    return out


def candidates(index: int, mapped: int, options: SizeOptions,
               extents: list[int | None] | tuple = (), most_points: int = MAX_POINTS_PER_THREAD,
               sequential: int = 0, spread: int = 0) -> tuple[list[Candidate], bool]:
    """The candidates of kernel ``index`` with ``mapped`` members, the default first; a single one, in
    the band's order, when the user set its tile or block sizes (returned True then).
    ``extents``: the constant extent of each mapped member where it has one; a tile longer than both
    it and the default tile only idles threads, and is not tried.  ``most_points``: the most points a
    thread may have.  With ``sequential`` members run in sequence beyond the mapped ones, each size is
    also tried with those tiled by each of SHORTER_SEQUENTIAL_TILES (after all the others: ties keep
    the longer tiles, with fewer barriers), unless the user set their tiles.  With ``spread`` members
    mapped to spread reductions, the candidates are :func:`spread_candidates` (in the user's order, if
    set)."""
    default = options.for_kernel(index, mapped)
    chosen = options.order(index, mapped)
    if options.set_by_user(index):
        return [Candidate(chosen or tuple(range(mapped)), default)], True
    if spread:
        found = spread_candidates(mapped, spread, default.grid)
        return [c for c in found if chosen is None or c.order == chosen], False
    sizes = [default]
    for tile in CANDIDATE_TILES[mapped]:
        for block in CANDIDATE_BLOCKS[mapped]:
            s = KernelSizes(tile, block, default.grid, default.sequential)
            points = s.thread_points
            if all(b <= t for b, t in zip(block, tile)) and math.prod(block) <= MAX_THREADS_PER_BLOCK \
                    and math.prod(points) <= most_points and max(points) <= MAX_POINTS_PER_DIMENSION \
                    and s not in sizes:
                sizes.append(s)
    if sequential and not default.sequential:  # the user's sequential tiles are kept
        sizes += [KernelSizes(s.tile, s.block, s.grid, (n,) * sequential)
                  for n in SHORTER_SEQUENTIAL_TILES for s in list(sizes)]
    out = []
    for order in [chosen] if chosen else orders(mapped):
        for s in sizes:
            long = any(d < len(extents) and extents[order[d]] is not None
                       and s.tile[d] > max(extents[order[d]], default.tile[d]) for d in range(mapped))
            if s == default or not long:
                out.append(Candidate(order, s))
    return out, False


# a reference's stride along a band member whose statement has no two points one apart along it
NO_STEP = ()


@dataclass(frozen=True)
class _Reference:
    array: DeviceArray
    is_write: bool
    exact: bool
    access: isl.Map  # band point -> element
    # per band dimension: how the element moves when the dimension grows by one (the deltas of the
    # access between neighbouring band points, a constant vector), NO_STEP, or None when not a constant
    strides: tuple[tuple[int, ...] | None, ...]


def _injective(access: isl.Map) -> bool:
    """Whether ``access`` gives each point its own element (False where isl cannot tell in its budget)."""
    try:
        with bounded_operations(access.get_ctx(), COUNT_OPERATIONS):
            return access.is_injective()
    except isl.Error:
        return False


class KernelModel:
    """The kernel's references as functions of its band, and the isl counts the candidates share
    (cached: candidates differ in few of them).

    Each reference's strides along the band members are found once with isl (the deltas of its
    access between neighbouring band points, as memory.py finds neighbouring threads' elements); a
    warp's sectors are then counted by isl on a constant set, the warp's threads moved by those
    strides, so that a candidate costs no isl work on the kernel's own (possibly skewed) relations."""

    def __init__(self, scop: Scop, arrays: tuple[DeviceArray, ...], band: isl.UnionMap, mapped: int,
                 sequential: int, options: MemoryOptions, one_by_one: bool = False):
        self.mapped, self.sequential, self.options = mapped, sequential, options
        # a thread runs its points one after another, not as a register tile (a kernel with reductions
        # spread over threads): an operand is held for one point at a time
        self.one_by_one = one_by_one
        by_name = {a.name: a for a in arrays}
        statements = {m.get_tuple_name(isl.dim_type.in_): m for m in maps_of(band)}
        self.space = isl.Set.from_union_set(band.range()).get_space()
        self.dims = self.space.dim(isl.dim_type.set)
        shifts = [self._shift(d) for d in range(self.dims)]
        refs: dict[str, list[_Reference]] = {}
        for ref in scop.references:
            schedule = statements.get(ref.statement)
            array = by_name.get(ref.array)
            if schedule is None or array is None:
                continue
            access = schedule.reverse().apply_range(ref.relation.intersect_domain(schedule.domain()))
            strides = tuple(_stride(access, shift) if ref.exact else None for shift in shifts)
            refs.setdefault(array.name, []).append(_Reference(array, ref.is_write, ref.exact, access, strides))
        self.references = refs
        hull = isl.Set.from_basic_set(isl.Set.from_union_set(band.range()).simple_hull())
        self.extents: list[int | None] = []  # of the mapped members, where a constant bounds them
        for d in range(min(mapped, self.dims)):
            try:
                width = hull.dim_max(d).sub(hull.dim_min(d)).max_val()
            except isl.Error:
                width = None
            self.extents.append(int(width.to_python()) + 1 if width is not None and width.is_int() else None)
        self._offsets = {name: self._find_offsets(name) for name in refs}
        self._invariant = {name: self._find_invariant(name) for name in refs}
        # in a kernel whose threads run their points one by one, an array whose references each use an
        # element at one point only is used where it is read (memory.py: the compiler keeps an element in a
        # register between the references of one point, as a copy indexed by the points would not be)
        self._apart = {name: one_by_one and all(_injective(r.access) for r in refs[name]) for name in refs}
        self._sectors: dict = {}

    # -- isl, once per kernel ------------------------------------------------------------------------

    def _shift(self, d: int) -> isl.Map:
        """``{ s -> s + e_d }`` on the band's space."""
        identity = isl.MultiAff.identity(self.space.map_from_set())
        one = isl.Val.one(self.space.get_ctx())
        return isl.Map.from_multi_aff(identity.set_aff(d, identity.get_aff(d).add_constant_val(one)))

    def _same(self, equal: int) -> isl.Map:
        """``{ s -> s' : s_k = s'_k for k < equal }``: band points that differ only deeper."""
        space = isl.Space.map_from_domain_and_range(self.space, self.space)
        relation = isl.Map.universe(space)
        local = isl.LocalSpace.from_space(space)
        one = isl.Val.one(space.get_ctx())
        for k in range(equal):
            c = isl.Constraint.equality_alloc(local).set_coefficient_val(isl.dim_type.out, k, one)
            relation = relation.add_constraint(c.set_coefficient_val(isl.dim_type.in_, k, -one))
        return relation

    def _access(self, name: str) -> isl.Map | None:
        refs = self.references[name]
        if not all(r.exact for r in refs):
            return None
        return single_map(union_of(isl.UnionMap.from_map(r.access) for r in refs))

    def _find_offsets(self, name: str) -> list[tuple[int, ...]] | None:
        """Each reference's element less the first reference's, at band points equal in the tiled
        members (a constant vector each: the stencil's ``A[i][j - 1]`` is ``(0, -1)`` from
        ``A[i][j]``); None where one is not a constant."""
        refs = self.references[name]
        if not all(r.exact for r in refs):
            return None
        same = self._same(self.mapped + self.sequential)
        out = []
        try:
            with bounded_operations(self.space.get_ctx(), COUNT_OPERATIONS):
                for r in refs:
                    deltas = refs[0].access.reverse().apply_range(same).apply_range(r.access).deltas()
                    vector = _constant(deltas)
                    if vector is None or vector is NO_STEP:
                        return None
                    out.append(vector)
        except isl.Error:
            return None
        return out

    def _find_invariant(self, name: str) -> bool:
        """Whether all references to ``name`` give the same element at band points with equal mapped
        members, and such points differ (the inner loops reuse a thread's elements: registers)."""
        access = self._access(name)
        if self.dims <= self.mapped or access is None:
            return False
        same = self._same(self.mapped)
        try:
            with bounded_operations(self.space.get_ctx(), COUNT_OPERATIONS):
                moved = _constant(access.reverse().apply_range(same).apply_range(access).deltas())
                if moved is None or any(moved):
                    return False
                domain = access.domain()
                return not same.intersect_domain(domain).intersect_range(domain).is_subset(domain.identity())
        except isl.Error:
            return False

    # -- per candidate, from the strides -------------------------------------------------------------

    def sectors(self, ref: _Reference, warp: tuple[tuple[int, int], ...]) -> int:
        """Sectors one warp touches for ``ref``: ``warp`` gives (band member, threads) from x outwards.
        The threads' elements are the first one's moved by the strides; their last subscript divided by
        the elements of a sector (rows taken to start on a sector), the distinct values counted by isl."""
        key = (id(ref), warp)
        if key not in self._sectors:
            self._sectors[key] = self._count_sectors(ref, warp)
        return self._sectors[key]

    def _count_sectors(self, ref: _Reference, warp: tuple[tuple[int, int], ...]) -> int:
        threads = math.prod(n for _, n in warp)
        strides = [ref.strides[member] for member, _ in warp]
        if any(s is None for s in strides):
            return threads
        rank = ref.access.dim(isl.dim_type.out)
        if not rank:
            return 1
        per = max(1, SECTOR_BYTES // ELEMENT_SIZES.get(ref.array.device_type, 8))
        vectors = [s if s is not NO_STEP else (0,) * rank for s in strides]
        return min(threads, _distinct_sectors([n for _, n in warp], [(vectors, (0,) * rank)], per))

    def moves(self, ref: _Reference, member: int) -> bool:
        """Whether ``ref``'s element changes along band member ``member``."""
        stride = ref.strides[member]
        return stride is None or (stride is not NO_STEP and any(stride))

    def groups(self, name: str, tile: dict[int, int]) -> list[tuple[int, ...]]:
        """The references to ``name`` that memory.py places together (by index): all of them, unless
        none writes and there are more than MAX_MERGE_GROUPS (memory.py joins references that overlap
        a write, and tries no merge past that many groups: heat_3d's ten reads of A stay apart), or
        none writes and their elements are not at constant offsets from each other (memory.py joins
        reads only where their tiles overlap: syrk's ``A[i][k]`` and ``A[j][k]`` stay apart).  Past
        MAX_MERGE_GROUPS, reads at constant offsets are joined where they are at most HALO apart along
        each dimension and the box of their union in ``tile`` is at most HALO_GROWTH times one's, as
        memory.py joins a stencil's translated references (convolution_2d's nine, not heat_3d's ten)."""
        refs, offsets = self.references[name], self._offsets[name]
        if any(r.is_write for r in refs) or (len(refs) <= MAX_MERGE_GROUPS and offsets is not None):
            return [tuple(range(len(refs)))]
        if offsets is None:
            return [(k,) for k in range(len(refs))]
        near = UnionFind(len(refs))
        for a in range(len(refs)):
            for b in range(a + 1, len(refs)):
                if all(abs(x - y) <= HALO for x, y in zip(offsets[a], offsets[b])):
                    near.join(a, b)
        def size(members: list[int]) -> int | None:
            box = self.box(name, tuple(members), tile)
            return math.prod(box) if box is not None else None

        out: list[tuple[int, ...]] = []
        for members in near.classes():
            if len(members) == 1 or halo_kept(members, size):
                out.append(tuple(members))
            else:
                out += [(k,) for k in members]
        return out

    def box(self, name: str, members: tuple[int, ...], tile: dict[int, int]) -> list[int] | None:
        """The extents of the box of the elements the references ``members`` to ``name`` touch in one
        tile (``tile``: band member -> points along it): each reference's strides over the tile, and the
        spread of their offsets; None where a reference moves along a member the tile does not bound,
        or a stride or offset is not a constant."""
        refs, offsets = self.references[name], self._offsets[name]
        rank = refs[0].access.dim(isl.dim_type.out)
        if offsets is None and len(members) == 1:
            offsets = {members[0]: (0,) * rank}  # a reference alone: no spread
        if offsets is None or not rank:
            return None
        reach = [0] * rank
        for r in (refs[k] for k in members):
            for d in range(self.dims):
                stride = r.strides[d]
                if stride is NO_STEP:
                    continue
                if stride is None or (d not in tile and any(stride)):
                    return None
                if d in tile:
                    for k in range(rank):
                        reach[k] = max(reach[k], abs(stride[k]) * (tile[d] - 1))
        return [reach[k] + max(offsets[m][k] for m in members) - min(offsets[m][k] for m in members) + 1
                for k in range(rank)]

    def reuse(self, name: str, members: tuple[int, ...], tile: dict[int, int]) -> bool:
        """Whether two points of one tile use one element through the references ``members``: one that
        stays put along a member of the tile, or two at different offsets (a stencil's)."""
        refs, offsets = self.references[name], self._offsets[name]
        if offsets is not None and len({offsets[m] for m in members}) > 1:
            return True
        return any(refs[m].strides[d] is not None and refs[m].strides[d] is not NO_STEP and not any(refs[m].strides[d])
                   for m in members for d, size in tile.items() if size > 1)

    def union_sectors(self, name: str, members: tuple[int, ...], warp: tuple[tuple[int, int], ...]) -> int:
        """Sectors one warp touches through all the references ``members`` together (their elements at
        their offsets: a stencil's neighbours share most sectors, which the caches serve once); the
        sum of each one's where an offset or stride is not a constant."""
        refs, offsets = self.references[name], self._offsets[name]
        counts = [self.sectors(refs[m], warp) for m in members]
        rank = refs[0].access.dim(isl.dim_type.out)
        strides = [[refs[m].strides[member] for member, _ in warp] for m in members]
        if len(members) == 1 or offsets is None or not rank or any(v is None for row in strides for v in row):
            return sum(counts)
        key = (name, members, warp)
        if key not in self._sectors:
            per = max(1, SECTOR_BYTES // ELEMENT_SIZES.get(refs[0].array.device_type, 8))
            translates = [([v if v is not NO_STEP else (0,) * rank for v in row], offsets[m])
                          for row, m in zip(strides, members)]
            self._sectors[key] = min(sum(counts), _distinct_sectors([n for _, n in warp], translates, per))
        return self._sectors[key]

    @staticmethod
    def warp_moves(ref: _Reference, warp: tuple[tuple[int, int], ...]) -> Moves | None:
        """How ``ref``'s element moves over one warp's threads (``warp``: (band member, threads) from
        ``x`` outwards): the stride along each member that moves it; None where a stride is not a
        constant."""
        out = []
        for member, threads in warp:
            stride = ref.strides[member]
            if stride is None:
                return None
            if stride is not NO_STEP and threads > 1:
                out.append((stride, threads))
        return out

    def invariant(self, name: str) -> bool:
        return self._invariant[name]

    def runs(self, ref: _Reference, sequential: tuple[int, ...]) -> int:
        """How many times ``ref`` runs per point of the mapped loops in one tile of the members run in
        sequence (tiled by ``sequential``): once per step along a member its statement iterates, once
        along one it does not (atax's ``tmp[i] = s`` after its ``j`` loop, inside an outer tiled loop);
        none where its statement iterates along none of them (gemm's ``C *= beta``, a product's store of
        its local sum: once for all the tiles of the members, as the copies of a register tile are)."""
        if sequential and all(ref.strides[self.mapped + k] is NO_STEP for k in range(len(sequential))):
            return 0
        return math.prod(n for k, n in enumerate(sequential) if ref.strides[self.mapped + k] is not NO_STEP)

    # -- a candidate ---------------------------------------------------------------------------------

    def estimate(self, candidate: Candidate) -> Estimate:
        order, sizes = candidate.order, candidate.sizes
        mapped = len(order)
        # the warp: 32 threads, x fastest, over the block's dimensions from x outwards
        warp = [(order[d], n) for d, n in zip(reversed(range(mapped)), warp_shape(sizes.block))]
        warp_key = tuple(warp)
        threads = math.prod(sizes.block)
        points = sizes.thread_points  # per thread, per dimension
        per_thread = math.prod(points)
        sequential = sizes.sequential_tiles(self.sequential)
        steps = math.prod(sequential)
        # points of a tile: where a member has fewer iterations than the tile, only those
        tile_points = math.prod(min(sizes.tile[d], self.extents[order[d]] or sizes.tile[d]) for d in range(mapped))
        work = tile_points * steps
        warps_per_tile = tile_points / WARP
        tile = {order[d]: min(sizes.tile[d], self.extents[order[d]] or sizes.tile[d]) for d in range(mapped)}
        tile.update({mapped + k: n for k, n in enumerate(sequential)})
        budget = self.options.max_shared if self.options.shared else 0
        groups, wavefronts, registers, shared = [], 0.0, BASE_REGISTERS, 0
        block_warps = -(-threads // WARP)
        for name, members in ((n, m) for n in sorted(self.references) for m in self.groups(n, tile)):
            refs = [self.references[name][m] for m in members]
            array = refs[0].array
            size = ELEMENT_SIZES.get(array.device_type, 8)
            words = max(1, size // 4)
            per_sector = max(1, SECTOR_BYTES // size)
            written = any(r.is_write for r in refs)
            counts = [self.sectors(r, warp_key) for r in refs]
            warp_sectors = max(counts)
            x_threads = warp[0][1]
            rows = WARP // x_threads
            # consecutive elements along x, one sector more per row for a row that starts inside a sector
            coalesced = rows * (-(-(x_threads * size) // SECTOR_BYTES) + 1)
            private = (not array.scalar and self.options.private and per_thread <= MAX_REGISTERS
                       and self.invariant(name) and not self._apart[name])
            if private and warp_sectors <= coalesced:
                # kept in registers: read (and written back) once per tile of the mapped loops, which
                # holds all the tiles of the sequential members (then counted as nothing per tile of work)
                sectors = 0 if self.sequential else round(warp_sectors * warps_per_tile * (2 if written else 1))
                groups.append(GroupEstimate(name, "registers", warp_sectors, coalesced, sectors))
                registers += per_thread * words
                continue
            box = self.box(name, members, tile) if budget and not array.scalar else None
            if box is not None:
                # a register tile: a thread reads one element per point along the members the reference
                # moves with, once per step, in the wavefronts of its warp's access (bank conflicts at
                # the padding memory.py chooses); one whose strides are not known reads a warp's elements
                # as it would in global memory
                loads = [math.prod(points[d] for d in range(mapped) if self.moves(r, order[d])) for r in refs]
                moves = [self.warp_moves(r, warp_key) for r in refs]
                known = [k for k, m in enumerate(moves) if m is not None]
                pad, fronts = bank_padding(box, [moves[k] for k in known], words, [loads[k] for k in known])
                per_load = [-(-(min(WARP, count * per_sector) * size) // 128) for count in counts]
                for k, f in zip(known, fronts):
                    per_load[k] = f
                padded = box[:-1] + [box[-1] + pad]
                bytes_ = math.prod(padded) * size
                if self.options.double_buffer and sequential and not any(
                        r.is_write for r in self.references[name]):
                    bytes_ *= 2  # (two buffers, as memory.py gives them)
                reuse = private or self.reuse(name, members, tile)
                if (reuse or warp_sectors > coalesced) and bytes_ <= budget:
                    budget -= bytes_
                    shared += bytes_
                    box_sectors = math.prod(box[:-1]) * -(-box[-1] // per_sector)
                    groups.append(GroupEstimate(name, "shared memory", warp_sectors, coalesced,
                                                box_sectors * (2 if written else 1), bytes_))
                    for r, load, front in zip(refs, loads, per_load):
                        wavefronts += block_warps * self.runs(r, sequential) * load * front
                        # an operand serving several points (it does not move along a member) stays in a
                        # register for the step; one per point is used as it is read
                        all_move = all(self.moves(r, order[d]) for d in range(mapped))
                        registers += (load if not all_move and not self.one_by_one else 1) * words
                    wavefronts += -(-math.prod(box) * size // 128) * (2 if written else 1)  # the copies
                    continue
            if private:  # in registers after all, their copies not coalesced: the tile does not fit
                sectors = round(warp_sectors * warps_per_tile * (2 if written else 1))
                groups.append(GroupEstimate(name, "registers", warp_sectors, coalesced, sectors))
                registers += per_thread * words
                continue
            reads = tuple(m for m in members if not self.references[name][m].is_write)
            writes = tuple(m for m in members if self.references[name][m].is_write)
            runs = {m: self.runs(self.references[name][m], sequential) for m in members}
            touched = sum(self.union_sectors(name, part, warp_key) * max(runs[m] for m in part)
                          for part in (reads, writes) if part)
            sectors = round(touched * warps_per_tile)
            groups.append(GroupEstimate(name, "global memory", warp_sectors, coalesced, sectors))
            # a value read is held until it is used; a value written is already in a register of its own
            # (a product's store of its local sum to C: no register more than the sum's)
            registers += len(reads) * words
        registers = min(-(-registers // 8) * 8, MAX_REGISTERS_PER_THREAD + 1)
        blocks = _blocks_per_sm(threads, registers, shared)
        warps = -(-threads // WARP)
        occupancy = blocks * warps / MAX_WARPS_PER_SM
        global_sectors = sum(g.sectors for g in groups)
        cost = (global_sectors + SHARED_WAVEFRONT_COST * wavefronts) * WARP / work
        barriers = 1 + SEQUENTIAL_BARRIER_COST * (SEQUENTIAL_TILE ** len(sequential) / steps - 1)
        score = cost * max(1.0, LATENCY_OCCUPANCY / occupancy) * barriers if occupancy else math.inf
        return Estimate(candidate, tuple(groups), work, global_sectors, round(wavefronts), shared, registers,
                        blocks, occupancy, round(score, 4), sequential)


def _stride(access: isl.Map, shift: isl.Map) -> tuple[int, ...] | None:
    """How ``access``'s element moves between band points ``shift`` apart (see :func:`_constant`)."""
    try:
        with bounded_operations(access.get_ctx(), COUNT_OPERATIONS):
            return _constant(access.reverse().apply_range(shift).apply_range(access).deltas().coalesce())
    except isl.Error:
        return None


def _constant(deltas: isl.Set) -> tuple[int, ...] | None:
    """The one vector of ``deltas``; NO_STEP when it is empty, None when it holds more than one."""
    if deltas.is_empty():
        return NO_STEP
    if not deltas.is_singleton():
        return None
    point = deltas.sample_point()
    return tuple(int(point.get_coordinate_val(isl.dim_type.set, d).to_python())
                 for d in range(deltas.dim(isl.dim_type.set)))


def _distinct_sectors(threads: list[int], translates: list[tuple[list[tuple[int, ...]], tuple[int, ...]]],
                      per: int) -> int:
    """The sectors of the union over ``translates`` (strides, offset) of ``{ offset + sum_j a_j strides_j :
    0 <= a_j < threads_j }``, the last coordinate divided by ``per`` (floor): isl counts the points of
    that constant set."""
    ctx = isl.DEFAULT_CONTEXT
    space = isl.Space.set_alloc(ctx, 0, len(threads))
    warp = isl.Set.universe(space)
    zero = variable(space, isl.dim_type.set, 0).scale_val(isl.Val.zero(ctx))
    for j, n in enumerate(threads):
        a = variable(space, isl.dim_type.set, j)
        warp = warp.intersect(a.ge_set(zero)).intersect(a.le_set(zero.add_constant_val(isl.Val(n - 1, context=ctx))))
    touched = None
    for strides, offset in translates:
        rank = len(offset)
        sectors = None
        for k in range(rank):
            element = zero.add_constant_val(isl.Val(offset[k], context=ctx))
            for j, stride in enumerate(strides):
                element = element.add(variable(space, isl.dim_type.set, j).scale_val(isl.Val(stride[k], context=ctx)))
            if k == rank - 1:
                element = element.scale_down_val(isl.Val(per, context=ctx)).floor()
            piece = isl.Map.from_pw_aff(element)
            sectors = piece if sectors is None else sectors.flat_range_product(piece)
        image = warp.apply(sectors)
        touched = image if touched is None else touched.union(image)
    return int(touched.count_val().to_python())


def _blocks_per_sm(threads: int, registers: int, shared: int) -> int:
    """Resident blocks of ``threads`` threads using ``registers`` each and ``shared`` bytes, under the
    sm_90 limits; 0 when the block cannot run at all."""
    if threads > MAX_THREADS_PER_BLOCK or registers > MAX_REGISTERS_PER_THREAD or shared > MAX_SHARED_PER_BLOCK:
        return 0
    warps = -(-threads // WARP)
    per_warp = -(-registers * WARP // REGISTER_UNIT) * REGISTER_UNIT
    limits = [MAX_BLOCKS_PER_SM, MAX_THREADS_PER_SM // threads, REGISTERS_PER_SM // (per_warp * warps)]
    if shared:
        limits.append(SHARED_PER_SM // (shared + SHARED_RESERVED_PER_BLOCK))
    return min(limits)


def choose(scop: Scop, arrays: tuple[DeviceArray, ...], index: int, band: isl.UnionMap, mapped: int,
           sequential: int, sizes: SizeOptions, options: MemoryOptions, spread: int = 0) -> Choice:
    """The estimates of kernel ``index``'s candidates, best first (``band``: its instances -> the band
    members and deeper dimensions; ``sequential``: further members of a permutable band tiled for
    shared memory)."""
    with timing.part(f"kernel {index}: cost model (mapping and sizes)"):
        model = KernelModel(scop, arrays, band, mapped, sequential, options, one_by_one=bool(spread))
        found, user = candidates(index, mapped, sizes, model.extents,
                                 MAX_POINTS_PER_THREAD if sequential else MAX_POINTS_WITHOUT_REUSE, sequential,
                                 spread)
        estimates = tried = [model.estimate(c) for c in found]
        # shorter sequential tiles only where they gain (more blocks resident, a tile that fits): a
        # twin no better than its candidates with longer ones (estimated before it) is no runner-up
        # worth naming
        best: dict = {}
        kept = []
        for e in estimates:
            twins = (e.candidate.order, replace(e.candidate.sizes, sequential=()))
            if twins not in best or e.score < best[twins]:
                kept.append(e)
            best[twins] = min(e.score, best.get(twins, math.inf))
        estimates = kept
        ranked = sorted(range(len(estimates)), key=lambda k: (estimates[k].score, k))
        return Choice(tuple(estimates[k] for k in ranked), user, len(tried))
