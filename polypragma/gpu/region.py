"""The GPU stage's entry point and result.

:func:`prepare` takes one region's model, schedule and dependences through the GPU stage (host/kernel
split and mapping, device arrays, memory placement) and returns a :class:`GpuRegion`: everything the
printers of :mod:`polypragma.codegen` need, and nothing they must decide again.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, replace
from functools import cached_property

import islpy as isl

from polypragma.dependences import Dependences
from polypragma.diagnostics import Unsupported
from polypragma.gpu.block_copies import BLOCK_COPY_GRID, block_copies
from polypragma.gpu.cost import Choice, choose
from polypragma.gpu.data import DeviceArray, device_arrays
from polypragma.gpu.mapping import CrossThreadDependence, GpuMapping, Kernel, map_to_gpu, resized
from polypragma.gpu.memory import KernelMemory, MemoryOptions, Placement, constant_arrays, kernel_memory
from polypragma.gpu.names import IteratorNames
from polypragma.gpu.sizes import SizeOptions, smaller
from polypragma.model import Scop
from polypragma.reductions import ReductionDependences


def symbol_stem(source: str) -> str:
    """An identifier fragment from a source file name, for unique function names."""
    stem = re.sub(r"\W", "_", source.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    return stem if stem and not stem[0].isdigit() else f"f_{stem}"


class PartialTiles(enum.Enum):
    """How a kernel with a register tile runs the tiles in which some of a thread's points are missing."""

    GUARDED = "every point has its guard"
    APART = "generated apart from the full tiles (isl's isolate option), which run without a guard per point"
    PADDED = "computed whole (polypragma.codegen.padded_tiles): no point has a guard"


@dataclass(frozen=True)
class GpuRegion:
    """Everything printed for one region."""

    scop: Scop
    mapping: GpuMapping
    arrays: tuple[DeviceArray, ...]
    function: str  # host function name
    kernel_names: tuple[str, ...]
    names: IteratorNames  # prefixes of the iterators and ids of the host and kernel code
    uses_double: bool
    memory: tuple[KernelMemory, ...] = ()  # per kernel: reference groups and where they live
    constant: tuple[str, ...] = ()  # arrays in constant memory
    # per kernel: the AST of a kernel with promoted data, or None (built by codegen/kernel_ast.py's
    # with_kernel_asts once the target is known; a kernel whose AST would cost too much has its data
    # left in global memory there, so that --explain reports where the data really lives)
    kernel_asts: tuple = ()
    # per kernel: the AST of a kernel whose data stays where it is, or None (built by codegen/gpu.py's
    # with_plain_asts while the region is compiled, so that one past its bound leaves the region as written)
    plain_asts: tuple = ()
    # per kernel: how the AST runs the partial tiles of a register tile
    partial_tiles: tuple[PartialTiles, ...] = ()
    # per kernel: the statements of a PADDED kernel that keep their real instances and guards (outside
    # the deepest loops, run once for a whole run of them: a product's store of its local sum)
    guarded: tuple[tuple[str, ...], ...] = ()
    # per kernel: (group, into, elements) of each copy between global and shared memory in vectors
    vector_copies: tuple = ()
    # per kernel: (group, into, copies a thread makes of a full tile) of each copy between global and
    # shared memory whose full tiles are generated apart, unrolled (codegen/copy_statements.py,
    # MAX_UNROLLED_COPIES)
    copies_apart: tuple = ()
    # privatised copies that live in registers all along, with no device buffer (codegen/kernel_ast.py)
    registers_only: tuple[str, ...] = ()
    privatised: tuple = ()  # polypragma.privatise.Privatised: temporaries with a copy per parallel iteration
    notes: tuple[str, ...] = ()  # what the schedule did to the model (statements split), for --explain
    # the members of struct variables the kernels access (p__x for p[i].x): arrays of the model that live
    # in their struct variable's buffer (one of ``arrays``), with no buffer of their own
    members: tuple[DeviceArray, ...] = ()
    # per kernel: the cost model's estimates of its candidate mappings, best (the one used) first; None
    # for a one-thread kernel
    choices: tuple[Choice | None, ...] = ()
    cuda: bool = False  # the target is cuda (prepare's ``cuda``)

    def buffer_of(self, name: str) -> DeviceArray | None:
        """The buffer holding array ``name`` (itself, or its struct variable's for a member)."""
        for a in self.members:
            if a.name == name:
                name = a.buffer
                break
        return next((a for a in self.arrays if a.name == name), None)

    def placement(self, kernel: Kernel, array: DeviceArray) -> Placement:
        """How ``kernel`` receives ``array``: CONSTANT, TEXTURE or GLOBAL (a buffer)."""
        if array.name in self.constant:
            return Placement.CONSTANT
        if array.name in self._textures.get(kernel.index, ()):
            return Placement.TEXTURE
        return Placement.GLOBAL

    @cached_property
    def _textures(self) -> dict[int, frozenset[str]]:
        """Per kernel, the arrays all of whose groups it reads through a texture (code generation asks
        per kernel and array, many times over)."""
        out = {}
        for index, memory in enumerate(self.memory):
            kinds: dict[str, set[Placement]] = {}
            for g in memory.groups:
                kinds.setdefault(g.array.name, set()).add(g.placement)
            out[index] = frozenset(name for name, k in kinds.items() if k == {Placement.TEXTURE})
        return out

    def signature_parameters(self) -> list[tuple[str, str]]:
        """(C type, name) of the host function's parameters, in order."""
        out = [(self.scop.scalar_types[p], p) for p in self.scop.parameters]
        out += [(self.scop.scalar_types[s], s) for s in self.scop.read_only_scalars]
        for a in self._host_arrays():
            if a.row_member:  # the struct variable whose pointer member's rows the function copies
                out.append((f"{a.member.type} *", a.host_name))
            elif a.parameter:
                out.append((f"{a.device_type} {'**' if a.rows else '*'}", a.host_name))
        return out

    def _host_arrays(self) -> list[DeviceArray]:
        """The arrays the host function takes, in order: the buffers, and where a struct variable has none,
        the first of its pointer members (which reaches it, see gpu/data.py)."""
        names = {a.name for a in self.arrays if a.parameter}
        out = []
        for a in self.arrays:
            if a.row_member and a.host_name not in names:
                names.add(a.host_name)
                out.append(a)
            elif a.parameter:
                out.append(a)
        return out

    def call_arguments(self) -> list[str]:
        out = list(self.scop.parameters) + list(self.scop.read_only_scalars)
        for a in self._host_arrays():
            if a.row_member:
                out.append(f"({a.member.type} *){'&' if a.member.rank == 0 else ''}{a.host_name}")
            elif a.scalar:
                out.append(f"({a.device_type} *)&{a.host_name}")
            else:
                out.append(f"({a.device_type} {'**' if a.rows else '*'}){a.host_name}")
        return out


def prepare(scop: Scop, schedule: isl.Schedule, deps: Dependences, sizes: SizeOptions, source: str,
            memory_options: MemoryOptions = MemoryOptions(), cuda: bool = False,
            privatised: tuple = (), reductions: ReductionDependences | None = None,
            notes: tuple[str, ...] = (), fuse: bool = True) -> GpuRegion:
    """The GPU stage for one region: iterator names free in the program, the host/kernel split and
    mapping, the device arrays, and each kernel's memory placement (``cuda``: the target may use
    textures and unrolls register tiles unless ``memory_options`` says otherwise; ``reductions``: loops
    whose only dependences are reductions may be mapped, see :mod:`polypragma.reductions`; ``fuse``:
    reductions that read one array alike may run in one kernel, see :mod:`polypragma.gpu.fuse`)."""
    reserved = set(scop.reserved_names) | set(scop.parameters) | {a.name for a in scop.arrays}
    names = IteratorNames.free_in(reserved)
    ranges = scop.parameter_ranges()
    try:
        mapping = map_to_gpu(schedule, scop.context, sizes, names, deps.all, reductions, ranges,
                             scop.reads if fuse else None, scop.may_writes if fuse else None)
    except CrossThreadDependence as exc:
        raise Unsupported("GPU mapping", scop.region.location,
                          f"would need a barrier between threads ({exc}); not supported") from None
    # a thread's own copies: not an expansion along the source's loops, read by later kernels, nor a
    # copy whose nest was distributed over several kernels (gpu/distribute.py)
    copies = {p.copy for p in privatised if not p.source_loops and _kernels_using(scop, mapping, p.copy) == 1}
    every = tuple(replace(a, private_copy=a.name in copies) for a in device_arrays(scop, deps))
    arrays = tuple(a for a in every if a.buffer is None)
    members = tuple(a for a in every if a.buffer is not None)
    stem = symbol_stem(source)
    function = f"polypragma_{stem}_region{scop.region.index}"
    kernel_names = tuple(f"{function}_kernel{k.index}" for k in mapping.kernels)
    uses_double = any("double" in a.device_type for a in every) or any(
        "double" in d for d in scop.type_declarations) or any(
        "double" in scop.scalar_types.get(s, "") for s in scop.read_only_scalars)
    constant = constant_arrays(scop, arrays, mapping.kernels, memory_options)
    unroll = memory_options.unroll if memory_options.unroll is not None else cuda
    kernels, memory, choices = [], [], []
    for kernel in mapping.kernels:
        choice = None
        if kernel.mapped:
            # (the accumulators of reductions spread over threads: a register a thread, merged into the
            # element by an atomic update once a run of SPREAD_POINTS updates or more: left out)
            reduced = {kr.reduction.array for kr in kernel.reductions if kr.runs}
            modelled = tuple(a for a in arrays + members if a.name not in constant and a.name not in reduced)
            choice = choose(scop, modelled, kernel.index, kernel.band, kernel.mapped, kernel.sequential, sizes,
                            memory_options, kernel.spread)
            best = choice.best.candidate
            if best.order != kernel.order or best.sizes != kernel.sizes:
                kernel = resized(mapping, kernel, best.sizes, names, scop.context, best.order, ranges)
        choices.append(choice)

        def placement(k: Kernel) -> KernelMemory:
            placed = kernel_memory(scop, arrays + members, k, memory_options, constant, names.tile, "polypragma_",
                                   cuda and memory_options.texture, unroll)
            return replace(placed, async_copies=cuda and memory_options.async_copies,
                           unroll_copies=memory_options.unroll_copies, unroll_steps=memory_options.unroll_steps)

        kernel, placed = _sized(kernel, placement(kernel), placement, mapping, sizes, names, scop.context, ranges)
        kernel, placed = _wrapped_for_block_copies(kernel, placed, placement, mapping, sizes, names, scop, ranges,
                                                   {a.name: a for a in arrays + members})
        kernels.append(kernel)
        memory.append(placed)
    mapping = replace(mapping, kernels=tuple(kernels))
    return GpuRegion(scop, mapping, arrays, function, kernel_names, names, uses_double, tuple(memory),
                     tuple(sorted(constant)), privatised=privatised, members=members, choices=tuple(choices),
                     notes=notes, cuda=cuda)


def _wrapped_for_block_copies(kernel: Kernel, placed: KernelMemory, placement, mapping: GpuMapping,
                              sizes: SizeOptions, names: IteratorNames, scop: Scop, ranges: isl.Set,
                              arrays: dict) -> tuple[Kernel, KernelMemory]:
    """``kernel`` and its memory ``placed`` with the arrays its blocks update through copies of their own
    (gpu/block_copies.py) stored in it.  Where it has some and the user set no grid, the kernel gets at most
    BLOCK_COPY_GRID blocks along x, wrapping around its tiles: one block a tile would merge its copies into
    the arrays once for each tile's points (256 updates of a histogram of 256 bins, one a thread, would make
    about 160 atomic updates in global memory instead of 256)."""
    copies = block_copies(kernel, arrays, scop.references, placed.shared_bytes())
    recorded = tuple(sorted(copies.items()))
    kept = kernel, replace(placed, block_copies=recorded)
    if not copies or sizes.grid_by_user(kernel.index) or kernel.sizes.grid[-1] <= BLOCK_COPY_GRID:
        return kept
    grid = (*kernel.sizes.grid[:-1], BLOCK_COPY_GRID)
    wrapped = resized(mapping, kernel, replace(kernel.sizes, grid=grid), names, scop.context, ranges=ranges)
    if not wrapped.wrapped[-1]:  # (its tiles are never more than the blocks: one block a tile as before)
        return kept
    again = placement(wrapped)
    if block_copies(wrapped, arrays, scop.references, again.shared_bytes()) != copies:
        return kept
    note = (f"grid {list(grid)} instead of {list(kernel.sizes.grid)}, so that each block counts many tiles into its "
            f"copies of {', '.join(sorted(copies))} before it merges them")
    return wrapped, replace(again, sizes_note="; ".join(n for n in (placed.sizes_note, note) if n),
                            block_copies=recorded)


def _kernels_using(scop: Scop, mapping, array: str) -> int:
    """How many kernels of ``mapping`` run a statement that accesses ``array``."""
    users = {r.statement for r in scop.references if r.array == array}
    return sum(1 for k in mapping.kernels if users.intersection(k.statements))


def _promoted(memory: KernelMemory) -> int:
    """How many groups a placement keeps in shared memory or registers."""
    return len(memory.placed(Placement.SHARED)) + len(memory.placed(Placement.PRIVATE))


def _sized(kernel: Kernel, placed: KernelMemory, placement, mapping: GpuMapping, sizes: SizeOptions,
           names: IteratorNames, context: isl.Set, ranges: isl.Set) -> tuple[Kernel, KernelMemory]:
    """``kernel`` and its memory ``placed``, or the kernel with smaller tiles where a group worth staging
    through shared memory (reuse, or a global access that is not coalesced: the matrix-vector family's
    rows along ``x``) does not fit in it with the default sizes and fits with smaller ones.  Sizes
    the user set are kept.  ``placement(kernel)`` places a kernel's data."""
    if not placed.unfitted or sizes.set_by_user(kernel.index) or not kernel.mapped:
        return kernel, placed
    best_kernel, best = kernel, placed
    candidate = smaller(kernel.sizes)
    while candidate is not None and best.unfitted:
        resized_kernel = resized(mapping, kernel, candidate, names, context, ranges=ranges)
        tried = placement(resized_kernel)
        if _promoted(tried) > _promoted(best):
            best_kernel, best = resized_kernel, tried
        candidate = smaller(candidate)
    if best is placed:
        return kernel, placed
    staged = sorted({g.array.name for g in placed.unfitted} & {g.array.name for g in best.placed(Placement.SHARED)})
    note = (f"tile {list(best_kernel.sizes.tile)} and block {list(best_kernel.sizes.block)} instead of "
            f"{list(kernel.sizes.tile)} and {list(kernel.sizes.block)}, so that the tile of {', '.join(staged)} "
            "fits in shared memory")
    return best_kernel, replace(best, sizes_note=note)
