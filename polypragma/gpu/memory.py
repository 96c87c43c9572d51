"""Where each kernel keeps its data: reference groups and their promotion.

Per kernel, the references to one array form groups (PPCG, TACO 2013, section 7.2): references
that touch common elements within a tile, at least one of them a write, go together; then two
groups merge when one tile of their union is smaller than their two tiles apart.  Each group is
placed (Algorithm 1 of the same paper, with the additions of C-to-CUDA and Texturizing PPCG):

* **registers** (private memory) when, for a tile of the mapped loops, the access is a bijection
  from the thread's points and an element is used more than once: each thread keeps its elements
  in a small array indexed by ``(p - t) / B``, copied in before the tile and out after it;
* **shared memory** otherwise, when the elements a tile touches fit a box of constant size (offset:
  the best lower bound of each dimension) and there is reuse inside the tile or the global access
  is not coalesced (consecutive ``x`` threads not on consecutive elements), within the budget
  (``--max-shared-memory``, over all groups of the kernel).  The innermost dimension is padded
  against bank conflicts;
* **constant memory** for arrays the region only reads, whose index is the same for all threads
  of a kernel, and whose size is known and fits the 64 KiB constant bank;
* **texture** (``--texture``, cuda) for arrays a kernel only reads: the Texturizing PPCG check
  that no kernel reads what it writes holds since the kernel does not write them;
* **global memory** otherwise (read-only arrays through the read-only data cache).

Everything is decided with isl on the kernel's :class:`polypragma.gpu.mapping.Tiling`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import Enum

import islpy as isl

from polypragma import timing
from polypragma.gpu.banks import bank_padding
from polypragma.gpu.boxes import tile_box
from polypragma.gpu.data import DeviceArray, referenced_array
from polypragma.gpu.mapping import Kernel
from polypragma.gpu.sizes import MAX_REGISTERS, warp_shape
from polypragma.isl_helpers import bounded_operations, coalesced, maps_of, range_dims, set_named, single_map
from polypragma.model import Reference, Scop
from polypragma.union_find import UnionFind

# bytes of shared memory a CUDA kernel may declare statically; past them (--max-shared-memory above 48k),
# its tiles are in dynamic shared memory, which the host opts in to before each launch
# (cudaFuncAttributeMaxDynamicSharedMemorySize: up to 227 KiB a block on sm_90; codegen/gpu.py)
STATIC_SHARED_BYTES = 48 * 1024
DEFAULT_MAX_SHARED_MEMORY = STATIC_SHARED_BYTES  # over all groups of a kernel: what it declares statically
CONSTANT_BANK = 64 * 1024
MAX_OPERATIONS = 3_000_000  # isl operations the analysis of one kernel may take; past it, data stays global
MAX_MERGE_GROUPS = 6  # groups of one array past which no merge is tried (each try computes boxes)
HALO = 4  # farthest apart, along a dimension, that a stencil's translated references are joined first
# and only where the box of their union is at most this much larger than one's: convolution_2d's 34x34
# for its 32x32 tile (1.13), not heat_3d's 6x10x34 for 4x8x32 (2.0), which copied twice the elements it
# computes on; its ten reads stay apart, in global memory (and the L1 cache)
HALO_GROWTH = 1.25

# the sizes of the elements an asynchronous copy (cp.async) moves (16 bytes too, which no element has)
ASYNC_COPY_SIZES = (4, 8)
ELEMENT_SIZES = {
    "char": 1, "signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2, "int": 4,
    "unsigned int": 4, "unsigned": 4, "float": 4, "long": 8, "unsigned long": 8, "long long": 8,
    "unsigned long long": 8, "double": 8, "size_t": 8, "int32_t": 4, "uint32_t": 4, "int64_t": 8,
    "uint64_t": 8,
}
TEXTURE_TYPES = ("float", "int", "unsigned int", "double")
# a shared copy's vectors: elements by element type (two: 16 bytes of doubles, 8 of floats or ints; the
# remainders of vectors of four floats, up to three elements a row, made gemm's AST of floats exceed its
# bound).  The copies are made by codegen/copy_statements.py; the tiles are laid out for them here
# (_aligned_for_vectors)
VECTOR_ELEMENTS = {"double": 2, "float": 2, "int": 2}


@dataclass(frozen=True)
class MemoryOptions:
    shared: bool = True
    private: bool = True
    constant: bool = True
    texture: bool = False
    max_shared: int = DEFAULT_MAX_SHARED_MEMORY
    # unroll the thread's loops over its register tile, so register indices are constants (None: the
    # target decides: cuda yes; opencl no, since PoCL's default work-group method miscompiles
    # unrolled register tiles between barriers; its 'workitemrepl' method runs them right)
    unroll: bool | None = None
    # copy vectors of two elements between global and shared memory where a tile's rows are aligned; None:
    # in the kernels that keep no tile of sums in registers (KernelMemory.with_vector_copies)
    vector_copies: bool | None = None
    # cuda: copy tiles into shared memory with asynchronous copies (cp.async, sm_80 on), which a thread issues
    # without waiting for each load, then waits for all at the barrier (off until measured on a GPU)
    async_copies: bool = False
    # two buffers for each shared tile that a kernel's loops in sequence copy in and that the kernel does not
    # write: the next tile is copied in while this one is computed, one barrier a step (off until measured
    # on a GPU: twice the shared memory, which gemm's tiles of 32 steps of k exceed)
    double_buffer: bool = False
    # copy a shared tile's full tiles apart from its partial ones, unrolled and without guards, where a thread
    # makes few copies of a tile (codegen/copy_statements.py, MAX_UNROLLED_COPIES); off: one loop with its
    # guards for every tile, an AST isl builds faster (bench/results/unroll_copies_2026_12_01.md)
    unroll_copies: bool = True
    # the steps of the loop around a register tile's computations that the device compiler unrolls together
    # (#pragma unroll N before it, where the tile's slots are loops it unrolls: cuda, --unroll-registers);
    # 0: no pragma, the device compiler's choice (nvcc unrolled gemm's loop over k by two while isl unrolled
    # the tile, and not once the tile became loops over its slots: bench/results/register_slots_2026_12_01.md)
    unroll_steps: int = 0


class Placement(Enum):
    """Where a group of references lives (PPCG's ``ppcg_access_global/shared/private``, with the
    constant memory of C-to-CUDA and the textures of Texturizing PPCG); the value is --explain's word."""

    GLOBAL = "global memory"
    SHARED = "shared memory"
    PRIVATE = "registers"
    CONSTANT = "constant memory"
    TEXTURE = "texture"


@dataclass(frozen=True)
class Group:
    """References to one array in one kernel that are placed together; each decision on it
    (:func:`_try_private`, :func:`_try_shared`) returns a new group."""

    array: DeviceArray
    references: list[Reference]  # relations restricted to the kernel's instances
    relations: list[isl.Map]
    placement: Placement = Placement.GLOBAL
    reason: str = ""
    # shared memory: the box, over the tile parameters
    offsets: list[isl.PwAff] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    padding: int = 0
    # registers: elements per mapped member, and { [g_mapped, p_mapped] -> element }
    counts: list[int] = field(default_factory=list)
    function: isl.Map | None = None
    name: str = ""  # the variable in the kernel
    needed_bytes: int = 0  # shared memory it was worth staging through but did not fit in (its padded tile)
    # reads translated from each other by a few elements (a stencil's neighbours, _translates_joined):
    # their tile is copied in as the box (codegen/kernel_ast.py), not as the exact union of their elements
    stencil: bool = False
    # shared memory: 2 where the tile has two buffers (MemoryOptions.double_buffer), indexed by the parity of
    # the innermost tile of the loops in sequence: the next tile's copy-in fills one while the other is read
    buffers: int = 1
    # shared memory: elements added in front of each row of the box, before the first the references use, so
    # that the rows start at a multiple of a vector (_aligned_for_vectors)
    aligned: int = 0

    @property
    def writes(self) -> bool:
        return any(r.is_write for r in self.references)

    def relation(self, which: str = "all") -> isl.UnionMap:
        """The group's access relation: all references, the ``read`` ones (reads and writes that
        may leave an element unwritten, whose old value must be there), or the ``write`` ones."""
        result = None
        for ref, rel in zip(self.references, self.relations):
            if which == "read" and ref.is_write and ref.must:
                continue
            if which == "write" and not ref.is_write:
                continue
            piece = isl.UnionMap.from_map(rel)
            result = piece if result is None else result.union(piece)
        return result if result is not None else isl.UnionMap.empty(self.relations[0].get_space().params())

    def shape(self) -> list[int]:
        """The extents of the shared array's index, its buffers first where it has two (unpadded)."""
        return ([self.buffers] if self.buffers > 1 else []) + list(self.sizes)

    def declared(self) -> list[int]:
        """The shared array's declared extents: :meth:`shape`, the innermost padded."""
        widths = self.shape()
        widths[-1] += self.padding
        return widths

    def shared_bytes(self) -> int:
        return math.prod(self.declared()) * ELEMENT_SIZES[self.array.device_type]


# the fewest elements a thread of a group of sums in registers keeps for its kernel's copies to stay one
# element at a time by default (KernelMemory.with_vector_copies): a register tile, not one running sum
SUM_TILE = 4


@dataclass(frozen=True)
class KernelMemory:
    kernel: Kernel
    groups: tuple[Group, ...]
    tile_params: tuple[str, ...]  # names of the tile coordinates inside the kernel
    unroll: bool = False  # unroll the thread's mapped point loops (register indices become constants)
    vector_copies: bool = False  # shared copies move vectors where they can (MemoryOptions)
    async_copies: bool = False  # cuda: copies into shared memory are asynchronous (MemoryOptions)
    unroll_copies: bool = True  # full tiles' copies apart and unrolled (MemoryOptions)
    unroll_steps: int = 0  # steps of the loop around the register tile's slots unrolled together (MemoryOptions)
    sizes_note: str = ""  # why the kernel's sizes are not the defaults, when the GPU stage chose others
    copies_note: str = ""  # why its shared copies move one element at a time, where the GPU stage chose so
    # the arrays its blocks update in copies of their own in shared memory, with their elements (gpu/block_copies.py):
    # decided once, where the data is placed, so that the grid, the kernel's code and --explain agree
    block_copies: tuple[tuple[str, int], ...] = ()

    @property
    def block_copy_elements(self) -> dict[str, int]:
        """The elements of each array its blocks update in copies of their own (``block_copies``)."""
        return dict(self.block_copies)

    def copied_async(self, group: Group) -> bool:
        """Whether the copies of elements into ``group``'s tile are asynchronous (``async_copies``: a shared
        tile whose elements are words a cp.async moves)."""
        return self.async_copies and group.placement is Placement.SHARED \
            and ELEMENT_SIZES.get(group.array.device_type) in ASYNC_COPY_SIZES

    @property
    def tiled(self) -> bool:
        return any(g.placement in (Placement.SHARED, Placement.PRIVATE) for g in self.groups)

    def placed(self, kind: Placement) -> list[Group]:
        return [g for g in self.groups if g.placement is kind]

    def shared_bytes(self) -> int:
        """The bytes of the kernel's shared tiles, all together."""
        return sum(g.shared_bytes() for g in self.placed(Placement.SHARED))

    def registers_outside(self, registers_across_barriers: bool) -> bool:
        """Whether the thread's register arrays are declared once, around all the kernel's tiles (the
        target keeps registers live across barriers, or the kernel has none), not around each further
        tile between two barriers."""
        return not self.placed(Placement.SHARED) or registers_across_barriers

    @property
    def unfitted(self) -> list[Group]:
        """The groups worth staging through shared memory whose tile did not fit."""
        return [g for g in self.groups if g.needed_bytes]

    def with_vector_copies(self, option: bool | None) -> KernelMemory:
        """This placement with its shared copies moving vectors or not (``option``, MemoryOptions.vector_copies).
        None chooses: vectors unless the kernel keeps a tile of sums in registers (a group in registers that
        it writes, of at least :data:`SUM_TILE` elements a thread: a matrix product's).  There the copies are
        a small part of the kernel's work, and their vectors' loads in flight take registers the tile needs
        (ptxas: gemm 64 -> 92 a thread, 4 -> 2 blocks an SM; bench/results/resource_usage_vector_copies_2026_12_01.md);
        on an H200 they gained gemm nothing (1.584 -> 1.625 ms and 1.447 -> 1.408 ms in two runs).  A
        stencil's copies are most of its work, and gained: jacobi_2d 19.1 -> 16.2 ms and 18.9 -> 15.7 ms,
        jacobi_1d 4.9 -> 4.7 and 4.7 -> 4.5 (bench/results/gpu_run_2026_11_30_a.json and
        gpu_run_2026_11_30_b_before.json, the two runs)."""
        if option is not None:
            return replace(self, vector_copies=option)
        sums = sorted({g.array.name for g in self.placed(Placement.PRIVATE)
                       if g.writes and math.prod(g.counts) >= SUM_TILE})
        if not sums or not self.placed(Placement.SHARED):
            return replace(self, vector_copies=not sums)
        return replace(self, vector_copies=False,
                       copies_note=f"copies one element at a time: the kernel keeps a tile of sums in registers "
                                   f"({', '.join(sums)}), whose registers the loads of vector copies in flight "
                                   f"would take (--vector-copies: vectors anyway)")

    def in_global_memory(self, reason: str) -> KernelMemory:
        """This placement with the groups of shared memory and registers left in global memory,
        each saying ``reason`` (the block copies stay: they fitted beside the tiles, and the grid was
        chosen for them)."""
        groups = tuple(replace(g, placement=Placement.GLOBAL, reason=reason, name="")
                       if g.placement in (Placement.SHARED, Placement.PRIVATE) else g for g in self.groups)
        return replace(self, groups=groups)


def _step(kernel: Kernel, dim: int) -> isl.UnionMap:
    """Pairs of instances of one statement of ``kernel`` one apart along mapped member ``dim`` (same
    tile, the point one further, the rest equal): neighbouring threads.  Pairs of two statements are
    left out: every use compares a reference with itself, and composing every statement with every
    other took minutes on fused kernels with wrapped tiles (program 1516 of the differential test)."""
    tiling = kernel.tiling
    full = tiling.to_tiles.flat_range_product(tiling.to_points) if tiling.to_tiles.n_map() else tiling.to_tiles
    result = isl.UnionMap.empty(kernel.domain.get_space())
    for placed in maps_of(full.intersect_domain(kernel.domain)):
        shift = isl.MultiAff.identity(placed.get_space().range().map_from_set())
        position = tiling.tiles + dim
        shift = isl.Map.from_multi_aff(shift.set_aff(position, shift.get_aff(position).add_constant_val(
            isl.Val.one(placed.get_ctx()))))
        result = result.union(isl.UnionMap.from_map(placed.apply_range(shift).apply_range(placed.reverse())))
    return result


def _deltas(relation: isl.Map, step: isl.UnionMap) -> isl.Set | None:
    """How the element of ``relation`` changes between neighbouring instances; None if no pair.  Coalesced:
    the callers ask whether it is one vector, and isl's ``is_singleton`` on the set as ``deltas`` leaves
    it (disjuncts with many divisions) took 4.5 s where the coalesced set took 2 ms (conditions.c's
    register tiles, --tile-size 7,8 --block-size 2,4)."""
    moved = isl.UnionMap.from_map(relation).reverse().apply_range(step).apply_range(isl.UnionMap.from_map(relation))
    m = single_map(moved)
    if m is None or m.is_empty():
        return None
    return m.deltas().coalesce()


def _is_zero(s: isl.Set, allowed_last: tuple[int, ...] = (0,)) -> bool:
    n = s.dim(isl.dim_type.set)
    ctx = s.get_ctx()
    allowed = None
    for last in allowed_last:
        point = isl.Set.universe(s.get_space())
        for d in range(n):
            point = point.fix_val(isl.dim_type.set, d, isl.Val(str(last if d == n - 1 else 0), context=ctx))
        allowed = point if allowed is None else allowed.union(point)
    return s.params().is_empty() or s.is_subset(allowed)


def _sharing(relation: isl.UnionMap) -> isl.UnionMap:
    """The pairs of different instances that use one element."""
    return relation.apply_range(relation.reverse()).subtract(relation.domain().identity())


def _reuse(relation: isl.UnionMap, same: isl.UnionMap | None) -> bool:
    """Whether two different instances (in the same tile, given ``same``) use one element."""
    pairs = _sharing(relation)
    return not (pairs if same is None else pairs.intersect(same)).is_empty()


def _sizeof(array: DeviceArray) -> int | None:
    return ELEMENT_SIZES.get(array.device_type)


class _Translates:
    """Answers about groups of one statement's references, found again for a group whose access is
    one of theirs moved by a constant vector (the same instances, each instance's element the
    other's plus one vector: ``A[i - 1][j + 1]`` and ``A[i][j]``).  A tile's elements are then the
    other's moved: they have a box of constant size exactly where the other's have one, and are a
    one-to-one function of a thread's points, reused, exactly where the other's are.  The nine
    references of Gauss-Seidel's stencil, nine groups, took nine searches for a box (0.1 s each, none
    found) and nine register tests where one of each tells."""

    def __init__(self):
        self.known: list[tuple[isl.Map, object]] = []

    def add(self, group: Group, answer) -> None:
        relation = _one_statement(group)
        if relation is not None:
            self.known.append((relation, answer))

    def find(self, group: Group):
        """The answer for a group that ``group`` is a translate of, or None."""
        relation = _one_statement(group) if self.known else None
        if relation is None:
            return None
        for other, answer in self.known:
            if _translate(relation, other):
                return answer
        return None


def _one_statement(group: Group) -> isl.Map | None:
    """The access relation of ``group`` as one map where its references are of one statement."""
    maps = maps_of(group.relation())
    return maps[0] if len(maps) == 1 else None


def _translate(relation: isl.Map, other: isl.Map) -> bool:
    """Whether ``relation`` is ``other`` moved by a constant vector (see :class:`_Translates`): on the
    same instances, every pair of an element of one and an element of the other at one instance is
    one apart by the same vector (so each has one element per instance)."""
    if not relation.get_space().is_equal(other.get_space()) or not relation.domain().is_equal(other.domain()):
        return False
    return other.reverse().apply_range(relation).deltas().coalesce().is_singleton()  # (coalesced: see _deltas)


def _padding(group: Group, steps: list[isl.UnionMap], block: tuple[int, ...], multiple: int = 1) -> int:
    """The padding of the innermost dimension that minimises bank conflicts over the group's
    references (:func:`bank_padding`, among equals one that makes a row a ``multiple`` of elements):
    a warp is 32 threads, ``x`` fastest, over the block's dimensions from ``x`` outwards (a block 16
    wide holds two rows of ``y`` threads), and each reference moves by its constant strides along
    ``steps``, the neighbouring threads of each mapped member, ``x`` last."""
    if len(group.sizes) < 2 or not steps:
        return 0
    dims = min(len(steps), len(block))
    warp = list(zip(reversed(range(dims)), warp_shape(block[:dims])))
    moves = []
    for rel in group.relations:
        found = []
        for d, threads in warp:
            deltas = _deltas(rel, steps[d]) if threads > 1 else None
            if deltas is not None and deltas.is_singleton():
                point = deltas.sample_point()
                found.append((tuple(int(point.get_coordinate_val(isl.dim_type.set, k).to_python())
                                    for k in range(deltas.dim(isl.dim_type.set))), threads))
        if found:
            moves.append(found)
    if not moves:
        return 0
    words = max(1, (ELEMENT_SIZES[group.array.device_type] + 3) // 4)
    return bank_padding(list(group.sizes), moves, words, multiple=multiple)[0]


def _read_alike(scop: Scop, array: DeviceArray, kernels) -> bool:
    """Whether neighbouring threads of every kernel read the same element of ``array`` at every reference;
    it stops at the first that does not (each test took 10 s on differential program 6856's 3-D tiles)."""
    for kernel in kernels:
        if not kernel.mapped or kernel.tiling is None:
            continue
        steps = [_step(kernel, d) for d in range(kernel.mapped)]
        for ref in scop.references:
            if ref.array != array.name or ref.statement not in kernel.statements:
                continue
            rel = ref.relation.intersect_domain(set_named(kernel.domain, ref.statement))
            for step in steps:
                deltas = _deltas(rel, step)
                if deltas is not None and not _is_zero(deltas):
                    return False
    return True


def constant_arrays(scop: Scop, arrays: tuple[DeviceArray, ...], kernels, options: MemoryOptions) -> dict[str, str]:
    """Arrays for constant memory, with the reason: read-only in the region, of known size within
    the constant bank, and read alike by all threads of every kernel."""
    if not options.constant:
        return {}
    chosen: dict[str, str] = {}
    used = 0
    for array in arrays:
        if (array.written or array.local or array.scalar or array.constant_elements is None or array.aggregate
                or array.rows):  # (constant memory is filled from one host array, not row by row)
            continue
        size = _sizeof(array)
        if size is None:
            continue
        bytes_ = array.constant_elements * size
        if used + bytes_ > CONSTANT_BANK:
            continue
        if _read_alike(scop, array, kernels):
            used += bytes_
            chosen[array.name] = (f"read-only, {bytes_} bytes, and every thread of a warp reads the same element: "
                                  "the constant cache broadcasts it")
    return chosen


def kernel_memory(scop: Scop, arrays: tuple[DeviceArray, ...], kernel: Kernel, options: MemoryOptions,
                  constant: dict[str, str], tile_prefix: str, private_prefix: str, texture: bool,
                  unroll: bool) -> KernelMemory:
    """Groups of the references of ``kernel`` and where each goes; within a bound on isl's work,
    past which every array stays in global memory (said by --explain)."""
    with timing.part(f"kernel {kernel.index}: memory (reference groups, shared memory, registers)"):
        return _bounded_kernel_memory(scop, arrays, kernel, options, constant, tile_prefix, private_prefix, texture,
                                      unroll)


def _bounded_kernel_memory(scop: Scop, arrays: tuple[DeviceArray, ...], kernel: Kernel, options: MemoryOptions,
                           constant: dict[str, str], tile_prefix: str, private_prefix: str, texture: bool,
                           unroll: bool) -> KernelMemory:
    try:
        with bounded_operations(kernel.domain.get_ctx(), MAX_OPERATIONS):
            return _kernel_memory(scop, arrays, kernel, options, constant, tile_prefix, private_prefix, texture,
                                  unroll)
    except isl.Error:
        without = MemoryOptions(shared=False, private=False, constant=options.constant, texture=False,
                                vector_copies=options.vector_copies)
        memory = _kernel_memory(scop, arrays, kernel, without, constant, tile_prefix, private_prefix, False, False)
        why = f"the analysis for shared memory and registers exceeded its bound of {MAX_OPERATIONS} isl operations"
        return replace(memory, groups=tuple(replace(g, reason=why) if g.placement is Placement.GLOBAL else g
                                            for g in memory.groups))


def _kernel_memory(scop: Scop, arrays: tuple[DeviceArray, ...], kernel: Kernel, options: MemoryOptions,
                   constant: dict[str, str], tile_prefix: str, private_prefix: str, texture: bool,
                   unroll: bool) -> KernelMemory:
    tile_params = tuple(f"{tile_prefix}{d}" for d in range(kernel.tiling.tiles if kernel.tiling else 0))
    by_name = {a.name: a for a in arrays}
    groups: list[Group] = []
    references: dict[str, list[Reference]] = {}
    for ref in scop.references:
        if ref.statement in kernel.statements and ref.array in by_name:
            references.setdefault(ref.array, []).append(ref)
    tiling = kernel.tiling
    steps = [_step(kernel, d) for d in range(kernel.mapped)] if tiling else []
    written_here = {ref.array for refs in references.values() for ref in refs if ref.is_write}

    def buffers(group: Group) -> int:
        """Two for the tile of an array the kernel does not write, copied in by loops in sequence
        (MemoryOptions.double_buffer): reading the next tile ahead reads what it would have read."""
        ahead = options.double_buffer and tiling is not None and tiling.tiles > tiling.mapped
        return 2 if ahead and group.array.name not in written_here else 1
    reduced = {r.reduction.array for r in kernel.reductions}  # updated by several threads: atomics in global memory
    for name in sorted(references):
        array = by_name[name]
        refs = references[name]
        relations = [ref.relation.intersect_domain(set_named(kernel.domain, ref.statement)) for ref in refs]
        if name in constant:
            groups.append(Group(array, refs, relations, Placement.CONSTANT, constant[name]))
            continue
        whole = array.member is not None and any(referenced_array(r.node) != name for r in refs)
        if array.scalar or tiling is None or not all(r.exact for r in refs) or whole or name in reduced:
            why = ("a scalar" if array.scalar else "the kernel runs on one thread" if tiling is None
                   else "a subscript is not affine" if not all(r.exact for r in refs)
                   else f"a member of '{array.buffer}' that a statement reads or writes with the whole struct"
                   if whole else "threads update it together (a reduction)")
            groups.append(Group(array, refs, relations, Placement.GLOBAL, why))
            continue
        if options.shared or options.private:
            groups += _group(array, refs, relations, kernel)
        else:
            groups.append(Group(array, refs, relations, Placement.GLOBAL))
    # placement, group by group, in a fixed order
    budget = options.max_shared
    # a group whose access is another's moved by a constant vector gets its answers where they do not
    # depend on where the elements lie: not in registers, and no box for shared memory
    not_private, boxless = _Translates(), _Translates()
    for k, group in enumerate(groups):
        if group.placement is not Placement.GLOBAL or tiling is None or group.reason:
            continue
        unplaced = group
        if options.private:
            why = not_private.find(group)
            if why is not None:
                group = replace(group, reason=why)
            else:
                group = _try_private(group, kernel)
                if group.placement is not Placement.PRIVATE and group.reason:
                    not_private.add(group, group.reason)
        if group.placement is Placement.PRIVATE and options.shared and not _coalesced(group, steps):
            # registers would be filled and emptied a row apart across a warp: a tile in shared memory is
            # copied with consecutive threads on consecutive elements, and each thread then uses its
            # elements there (the transpose's B[j][i] with j on x)
            staged = _try_shared(unplaced, kernel, tile_params, steps, budget, boxless, buffers(unplaced))
            if staged.placement is Placement.SHARED:
                group = replace(staged, reason=f"{staged.reason}; not in registers, whose copies would not be "
                                               "coalesced")
                budget -= group.shared_bytes()
        if group.placement not in (Placement.PRIVATE, Placement.SHARED):
            if options.shared:
                group = _try_shared(group, kernel, tile_params, steps, budget, boxless, buffers(group))
                if group.placement is Placement.SHARED:
                    budget -= group.shared_bytes()
            elif not group.reason:
                group = replace(group, reason="shared memory is off (--no-shared-memory)")
        groups[k] = group
    for k, group in enumerate(groups):
        if group.placement is Placement.GLOBAL and texture and group.array.name not in written_here \
                and group.array.device_type in TEXTURE_TYPES and not group.array.scalar \
                and group.array.member is None:
            groups[k] = replace(group, placement=Placement.TEXTURE, reason=(
                "the kernel only reads it, so no read can see a write of the same kernel; fetched through a "
                "texture object (--texture)"))
        elif group.placement is Placement.GLOBAL and not group.reason:
            groups[k] = replace(group, reason="no reason to move it")
    groups = _named(groups, set(scop.reserved_names) | set(scop.parameters) | set(by_name), private_prefix)
    private = [g for g in groups if g.placement is Placement.PRIVATE]
    memory = KernelMemory(kernel, tuple(groups), tile_params, unroll and bool(private) and all(
        math.prod(g.counts) <= MAX_REGISTERS for g in private)).with_vector_copies(options.vector_copies)
    return _aligned_for_vectors(memory, written_here, steps, options.max_shared) if memory.vector_copies else memory


def _named(groups: list[Group], reserved: set[str], prefix: str) -> list[Group]:
    """The groups in shared memory and registers named after where they live, as PPCG names them
    (``shared_A``, ``private_C``; ``shared_A_1`` for a second group of the same array), with
    ``prefix`` before a name the region's own code uses."""
    words = {Placement.SHARED: "shared", Placement.PRIVATE: "private"}
    counts: dict[tuple, int] = {}
    out = []
    for group in groups:
        word = words.get(group.placement)
        if word is None:
            out.append(group)
            continue
        key = (word, group.array.name)
        n = counts[key] = counts.get(key, -1) + 1
        name = f"{word}_{group.array.name}" + (f"_{n}" if n else "")
        while name in reserved:
            name = prefix + name
        reserved.add(name)
        out.append(replace(group, name=name))
    return out


def _group(array: DeviceArray, refs: list[Reference], relations: list[isl.Map], kernel: Kernel) -> list[Group]:
    """Reference groups of one array: overlap with a write within a tile of the mapped loops, then
    merges that make the tile smaller."""
    tiling = kernel.tiling
    to_mapped = range_dims(tiling.to_tiles, 0, tiling.mapped)
    per_tile = [to_mapped.reverse().apply_range(isl.UnionMap.from_map(rel)) for rel in relations]
    sets = UnionFind(len(refs))
    for a in range(len(refs)):
        for b in range(a + 1, len(refs)):
            if (refs[a].is_write or refs[b].is_write) and refs[a].node is refs[b].node:
                sets.join(a, b)
            elif (refs[a].is_write or refs[b].is_write) and not per_tile[a].intersect(per_tile[b]).is_empty():
                sets.join(a, b)
    classes = sets.classes()
    # merge two groups when the box of their union is smaller than their two boxes
    full_tiles = tiling.to_tiles
    names = tuple(f"polypragma_g{d}" for d in range(tiling.tiles))

    sizes: dict[tuple[int, ...], int | None] = {}

    def box_size(members: list[int]) -> int | None:
        key = tuple(sorted(members))
        if key not in sizes:
            sizes[key] = _box_size(key)
        return sizes[key]

    def _box_size(members: tuple[int, ...]) -> int | None:
        access = None
        for k in members:
            piece = full_tiles.reverse().apply_range(isl.UnionMap.from_map(relations[k]))
            access = piece if access is None else access.union(piece)
        box = tile_box(access, names)
        return math.prod(box[1]) if box else None

    stencils: list[list[int]] = []
    if len(classes) > MAX_MERGE_GROUPS:
        classes, stencils = _translates_joined(classes, relations, box_size)
    merged = len(classes) <= MAX_MERGE_GROUPS
    while merged and len(classes) > 1:
        merged = False
        for a in range(len(classes)):
            for b in range(a + 1, len(classes)):
                sa, sb = box_size(classes[a]), box_size(classes[b])
                union = box_size(classes[a] + classes[b])
                if sa is not None and sb is not None and union is not None and union < sa + sb:
                    classes[a] = sorted(classes[a] + classes[b])
                    del classes[b]
                    merged = True
                    break
            if merged:
                break
    return [Group(array, [refs[k] for k in members], [relations[k] for k in members],
                  stencil=members in stencils) for members in classes]


def _translates_joined(classes: list[list[int]], relations: list[isl.Map], size) \
        -> tuple[list[list[int]], list[list[int]]]:
    """``classes`` with those of one reference joined where the references are translates of each
    other by at most HALO elements along each dimension (:func:`_translate`) and :func:`halo_kept`
    keeps them (``size``: the box size of references, by index): a stencil's neighbours, whose union
    box is the tile and its halo, far smaller than a box each; and the joined classes.  Classes of
    several references (joined by a write) stay as they are.  Without it, past MAX_MERGE_GROUPS no
    merge is tried and convolution_2d's nine reads of A stayed in global memory, each its own group."""
    sets = UnionFind(len(classes))
    for a in range(len(classes)):
        for b in range(a + 1, len(classes)):
            if len(classes[a]) == 1 and len(classes[b]) == 1 \
                    and _near_translate(relations[classes[a][0]], relations[classes[b][0]]):
                sets.join(a, b)
    result, stencils = [], []
    for members in sets.classes():
        if len(members) == 1:
            result.append(classes[members[0]])
            continue
        references = sorted(classes[c][0] for c in members)
        if halo_kept(references, size):
            result.append(references)
            stencils.append(references)
        else:
            result += [classes[c] for c in members]
    return result, stencils


def halo_kept(members: list[int], size) -> bool:
    """Whether the references ``members``, translates of each other, stay one group: the box of their
    union (``size``: the box size of references, by index; None where unknown) at most HALO_GROWTH
    times the first's (memory.py's grouping and the cost model's alike)."""
    whole, one = size(members), size(members[:1])
    return whole is not None and one is not None and whole <= HALO_GROWTH * one


def _near_translate(relation: isl.Map, other: isl.Map) -> bool:
    """Whether ``relation`` is ``other`` moved by a vector of integers of at most HALO along each
    dimension."""
    if not _translate(relation, other):
        return False
    vector = other.reverse().apply_range(relation).deltas()
    for d in range(vector.dim(isl.dim_type.set)):
        value = vector.plain_get_val_if_fixed(isl.dim_type.set, d)
        # not a number where the vector depends on the parameters (A[i][n - 1] and A[i][0])
        if not value.is_int() or abs(value.to_python()) > HALO:
            return False
    return True


def _try_private(group: Group, kernel: Kernel) -> Group:
    """Registers: the access is a bijection from the thread's points of a mapped tile, with reuse.
    Returns the group in registers, or with the reason it is not."""
    tiling = kernel.tiling
    mapped = tiling.mapped
    to_mapped = range_dims(tiling.to_tiles, 0, mapped).flat_range_product(range_dims(tiling.to_points, 0, mapped))
    access = to_mapped.reverse().apply_range(group.relation())
    function = single_map(access)
    if function is None:
        return group
    # the tiles' existential variables make isl's tests slow (21 s for is_injective on program 1516 of the
    # differential test); with the equalities among them found first, a few milliseconds
    function = coalesced(function.detect_equalities())
    if not function.is_single_valued() or not function.is_injective():
        return replace(group, reason="registers: the elements are not a one-to-one function of the thread's points")
    if not _reuse(group.relation(), None):
        return replace(group, reason="registers: no element is used twice")
    if kernel.spread and _references_apart(group, None):
        # (a copy indexed by the thread's loop over its points, which such a kernel does not unroll, would
        # live in local memory)
        return replace(group, reason=f"registers: {_SHARED_AT_A_POINT}")
    counts = list(kernel.sizes.thread_points)
    if math.prod(counts) > MAX_REGISTERS:
        return replace(group, reason=f"registers: {math.prod(counts)} elements a thread exceed {MAX_REGISTERS}")
    return replace(group, placement=Placement.PRIVATE, counts=counts, function=function,
                   reason=(f"each thread uses its {math.prod(counts)} element(s) more than once, and no other "
                           "thread uses them: kept in registers"))


def _coalesced(group: Group, steps: list[isl.UnionMap]) -> bool:
    """Whether neighbouring ``x`` threads (``steps[-1]``) touch the same or consecutive elements in
    every reference of ``group``."""
    for rel in group.relations if steps else ():
        deltas = _deltas(rel, steps[-1])
        if deltas is not None and not _is_zero(deltas, (0, 1)):
            return False
    return True


# a group whose references each use an element once, and whose elements the references of one point of a
# thread share (a fused kernel's s[j] += r[i] * A[i][j] and q[i] += A[i][j] * p[j], gpu/fuse.py), in a
# kernel whose reductions spread over threads (Kernel.spread, its points a loop that is not unrolled)
_SHARED_AT_A_POINT = ("each reference uses an element once and the references of one point share it, "
                      "which the compiler keeps in a register between them")


def _references_apart(group: Group, same: isl.UnionMap | None) -> bool:
    """Whether no reference of ``group`` alone uses an element twice (in the same tile, given ``same``)."""
    return not any(_reuse(isl.UnionMap.from_map(rel), same) for rel in group.relations)


def _at_one_point(group: Group, tiling) -> bool:
    """Whether two instances that use one element of ``group`` are always at one point of one thread (of
    the tiled band: a sequence below it, as in a fused kernel whose statements depend on each other at a
    point, orders them within the point)."""
    where = tiling.to_tiles.flat_range_product(range_dims(tiling.to_points, 0, tiling.tiles))
    return _sharing(group.relation()).is_subset(where.apply_range(where.reverse()))


def _try_shared(group: Group, kernel: Kernel, tile_params: tuple[str, ...], steps: list[isl.UnionMap],
                budget: int, boxless: "_Translates", buffers: int = 1) -> Group:
    """Shared memory, within ``budget`` bytes, in ``buffers`` buffers (Group.buffers); returns the group
    in shared memory (its :meth:`Group.shared_bytes` taken from the budget), or with the reason it is
    not.  ``boxless`` holds the groups found without a box so far (this one is added when it has none)."""
    tiling = kernel.tiling
    size = _sizeof(group.array)
    if boxless.find(group):
        box = None
    else:
        access = tiling.to_tiles.reverse().apply_range(group.relation())
        box = tile_box(access, tile_params)
        if box is None:
            boxless.add(group, True)
    if size is None:
        return replace(group, reason=f"shared memory: element type '{group.array.device_type}' of unknown size")
    if box is None:
        return replace(group, reason="shared memory: the elements a tile touches have no box of constant size")
    group = replace(group, offsets=box[0], sizes=box[1])
    same_tile = tiling.to_tiles.apply_range(tiling.to_tiles.reverse())
    reuse = _reuse(group.relation(), same_tile)
    coalesced = _coalesced(group, steps)
    if not reuse and coalesced:
        return replace(group, reason="no reuse within a tile and the global access is coalesced")
    if kernel.spread and coalesced and _references_apart(group, same_tile) and _at_one_point(group, tiling):
        return replace(group, reason=f"no reuse within a tile but at one point ({_SHARED_AT_A_POINT}), and the "
                                     "global access is coalesced")
    padded = replace(group, padding=_padding(group, steps, kernel.sizes.block), buffers=buffers)
    needed = padded.shared_bytes()
    twice = " in two buffers" if buffers > 1 else ""
    if needed > budget:
        return replace(group, needed_bytes=needed, reason=(
            f"shared memory: the tile {'x'.join(map(str, group.sizes))}{twice} needs {needed} bytes, "
            f"{max(budget, 0)} left of --max-shared-memory"))
    why = " and ".join(w for w, on in (("reuse within a tile", reuse),
                                        ("the global access is not coalesced", not coalesced)) if on)
    return replace(padded, placement=Placement.SHARED, reason=f"{why}: {_tile_words(padded)}")


def _tile_words(group: Group, vectors: bool = False) -> str:
    """--explain's words for the shared tile of ``group``: its box, bytes, padding (chosen for ``vectors`` as
    well: _aligned_for_vectors), buffers and alignment."""
    more = ""
    if group.padding:
        more = f", innermost dimension padded by {group.padding} against bank conflicts" + (
            " and so that rows start on a vector" if vectors else "")
    if group.aligned:
        more += (f"; each row from {group.aligned} element(s) before the first it uses, so that rows start on a "
                 "vector")
    if group.buffers > 1:
        more += (f"; {group.buffers} buffers: the next tile of the loops in sequence is copied into one while this "
                 "one is read from the other")
    return f"tile {'x'.join(map(str, group.sizes))} in shared memory ({group.shared_bytes()} bytes{more})"


def _aligned_for_vectors(memory: KernelMemory, written: set[str], steps: list[isl.UnionMap],
                         budget: int) -> KernelMemory:
    """``memory``, whose shared copies move vectors (KernelMemory.with_vector_copies), with its shared tiles
    laid out for them (VECTOR_ELEMENTS), each within ``budget`` bytes for the kernel:

    * the box of an array the kernel does not write (not in ``written``), whose rows start one or more
      elements past a multiple of a vector at every tile, begins that many elements earlier
      (:attr:`Group.aligned`).  fdtd-2d's ``hz[i][j - 1]``, ``hz[i - 1][j]`` and ``hz[i][j]`` from
      ``32 b - 1``: the copy-in, which then moves the box's elements inside the array
      (codegen/copy_statements.py), starts each row with a vector, where each row's first element
      was copied alone and the rest one by one;
    * among the paddings of a row with the fewest bank conflicts, one that makes the row a multiple
      of a vector, so that every row starts aligned (a 32x33 tile padded to rows of 34)."""
    groups = list(memory.groups)
    block = memory.kernel.sizes.block
    for k, group in enumerate(groups):
        width = VECTOR_ELEMENTS.get(group.array.device_type, 1)
        if group.placement is not Placement.SHARED or width == 1 or len(group.sizes) < 2 or (
                group.array.member is not None and not group.array.row_member) or \
                group.sizes[-1] < width or math.prod(group.sizes) <= math.prod(block) or \
                rows_unaligned(group.array, width):
            # (no vector in a row, nor where a thread copies one element of the tile at most; the copies'
            # conditions, codegen/copy_statements.py)
            continue
        early = _residue(group.offsets[-1], width)
        if early is None or early and group.array.name in written:
            continue  # (its rows start unaligned in some tile: no vector)
        laid = group
        if early:
            start = group.offsets[-1].add_constant_val(isl.Val(-early, context=group.offsets[-1].get_ctx()))
            laid = replace(group, offsets=group.offsets[:-1] + [start],
                           sizes=group.sizes[:-1] + [group.sizes[-1] + early], aligned=early)
        laid = replace(laid, padding=_padding(laid, steps, block, width))
        if (laid.sizes[-1] + laid.padding) % width or (laid.sizes, laid.padding) == (group.sizes, group.padding):
            # (a row that is not a multiple of a vector, which the bank conflicts' padding makes so: every
            # other row unaligned, nothing gained)
            continue
        if sum(g.shared_bytes() for g in groups if g.placement is Placement.SHARED) - group.shared_bytes() \
                + laid.shared_bytes() > budget:
            continue
        groups[k] = replace(laid, reason=group.reason.replace(_tile_words(group), _tile_words(laid, True)))
    return replace(memory, groups=tuple(groups))


def rows_unaligned(array: DeviceArray, width: int) -> bool:
    """Whether ``array``'s rows have a constant length that is not a multiple of ``width``: every
    other row of a tile would start unaligned."""
    extent = array.inner_extents[-1] if array.inner_extents else ""
    return extent.isdigit() and int(extent) % width != 0


def _residue(offset: isl.PwAff, width: int) -> int | None:
    """``offset`` modulo ``width`` where it is one constant over its domain, else None."""
    remainder = offset.mod_val(isl.Val(width, context=offset.get_ctx()))
    for r in range(width):
        if remainder.add_constant_val(isl.Val(-r, context=offset.get_ctx())).non_zero_set().is_empty():
            return r
    return None
