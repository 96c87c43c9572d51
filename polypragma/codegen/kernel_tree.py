"""The schedule tree of a kernel whose data is promoted (PPCG, TACO 2013, section 7).

The copies of the promoted groups and the barriers are statements of the kernel's schedule tree,
next to the computations (:class:`KernelTree`), so that isl builds one AST of the whole kernel
(:mod:`polypragma.codegen.kernel_ast`) and, where each statement stands, every index it needs (of shared
tiles, register slots and global buffers)::

    domain: computations, copies, barriers
      band: the mapped tiles (atomic; blocks wrap around them)
        mark: the thread's register arrays are declared here
          sequence
            filter: register copy-in -> filter: this thread's slots -> band: slots (unrolled)
            filter: the rest
              band: the further tiles of the permutable band (atomic)
                sequence
                  shared copy-in -> filter: this thread's elements -> band: tile coordinates
                  barrier
                  computations -> filter: this thread's points -> band: points
                  barrier
                  shared copy-out -> ...
                  barrier
            filter: register copy-out -> ...
            filter: barrier (when shared memory follows a write of registers)

Only the leaf bands' instances depend on the thread (through the filters right above them): the
loops over tiles, and so every barrier, are the same for all threads of a block.  A target that
cannot keep registers live across barriers (OpenCL on PoCL, see GpuSyntax) has its register copies
around the computations of each tile, between two barriers, with the mark above them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import islpy as isl

from polypragma.codegen import padded_tiles
from polypragma.gpu.memory import Group, KernelMemory, Placement
from polypragma.isl_helpers import (bounded_operations, coalesced, common_piece, maps_of, out_of_operations, parameter,
                                     permuted_range, set_named, sets_of, union_of, variable, with_params)
from polypragma.model import Reference, Scop

# isl operations the padding of a kernel's partial register tiles may take, to find its instances
# and check that it is safe (gemm's: 130 000); past it, the partial tiles are not padded
PADDING_OPERATIONS = 1_000_000
# existential variables a piece of the schedule of a statement of a kernel's tree may have (as bounded
# by KernelTree.existentials), past which its AST is not tried: isl's operation count does not bound the
# pivots of one elimination, which grow with them past any use (a copy of a tile of strided elements,
# 65 of them, 61 as bounded, took 38 s of each AST build within kernel_ast.TREE_OPERATIONS, 76 s of the
# kernel's; 62 and 70 took 103 s and 116 s: programs 268 and 164 of the differential test's seed 6,
# opencl, --block-size 7 --grid-size 3,4,3 and --no-private-memory --tile-size 16,5,7 --grid-size
# 2,3,1).  The same program's second kernel for cuda with the default sizes, 50 of them, took 31 s
# within the bound, in vain.  The corpus's trees that isl builds within the bound have at most 33
# (goto_exits), those past it up to 43 (seidel_2d_fixed, which took 0.5 s to reach it)
TREE_EXISTENTIALS = 40
# ... and those a piece of the tiles a thread's register tile covers may have, past which its full
# tiles are not generated apart (the points keep their guards): the corpus's have at most 2, in every
# size; tiles of 8x5 points over blocks of 7x8 wrapped around a grid of 3x3 gave differential program
# 1516 of seed 6 pieces of 20, and isl's subtraction of the missing points 22 s, three times over
FULL_TILES_EXISTENTIALS = 6
# a shared copy's vectors: elements by element type (two: 16 bytes of doubles, 8 of floats or ints; the
# remainders of vectors of four floats, up to three elements a row, made gemm's AST of floats exceed its
# bound), and the isl operations finding them may take (per copy; past it, one element at a time)
VECTOR_ELEMENTS = {"double": 2, "float": 2, "int": 2}
VECTOR_OPERATIONS = 200_000


@dataclass(frozen=True, eq=False)
class Copy:
    """A copy between a promoted group and global memory: ``into`` the group (copy-in) or out of it;
    ``width`` consecutive elements of a row at once (a vector, where both sides are aligned
    when it runs; see KernelTree._vectors)."""

    group: Group
    into: bool
    width: int = 1


@dataclass(frozen=True, eq=False)
class Barrier:
    """A barrier of the block; its instances are tiles, the same for every thread."""


@dataclass(frozen=True, eq=False)
class Registers:
    """The mark above which a thread's register arrays are declared."""

    groups: tuple[Group, ...]


def payload(identifier: isl.Id | None):
    """The object an isl id carries, or None (islpy raises on an id that carries none)."""
    if identifier is None:
        return None
    try:
        return identifier.get_user()
    except TypeError:
        return None


def _dims(domain: isl.Set, first: int, count: int) -> isl.Map:
    """``{ X[d_0 ..] -> [d_first .. d_{first+count-1}] }`` on ``domain``."""
    n = domain.dim(isl.dim_type.set)
    identity = isl.Map.identity(domain.get_space().map_from_set())
    projected = identity.project_out(isl.dim_type.out, first + count, n - first - count)
    projected = projected.project_out(isl.dim_type.out, 0, first)
    return projected.reset_tuple_id(isl.dim_type.out).intersect_domain(domain)


def _leading(umap: isl.UnionMap, first: int, count: int) -> isl.UnionMap:
    """``umap`` with only its range dimensions ``first .. first + count - 1``."""
    pieces = []
    for m in maps_of(umap):
        n = m.dim(isl.dim_type.out)
        pieces.append(isl.UnionMap.from_map(
            m.project_out(isl.dim_type.out, first + count, n - first - count).project_out(isl.dim_type.out, 0, first)))
    return union_of(pieces) if pieces else umap


def _on_tiles(offset: isl.PwAff, names: tuple[str, ...], space: isl.Space) -> isl.PwAff:
    """``offset`` (over the parameters ``names``, the tile coordinates) as a function on the set space
    ``space``, whose first dimensions are those coordinates."""
    pa = offset.add_dims(isl.dim_type.in_, space.dim(isl.dim_type.set))
    for d, name in enumerate(names):
        position = pa.find_dim_by_name(isl.dim_type.param, name)
        if position >= 0:
            domain = pa.get_domain_space()
            pa = _eliminate_param(pa.intersect_domain(
                variable(domain, isl.dim_type.set, d).eq_set(variable(domain, isl.dim_type.param, position))), position)
    if space.has_tuple_id(isl.dim_type.set):
        return pa.set_tuple_id(isl.dim_type.in_, space.get_tuple_id(isl.dim_type.set))
    return pa


def _eliminate_param(pa: isl.PwAff, position: int) -> isl.PwAff:
    """``pa`` without the parameter at ``position``, which its domain fixes to one of its dimensions."""
    as_map = isl.Map.from_pw_aff(pa)
    as_map = as_map.project_out(isl.dim_type.param, position, 1)
    return isl.PwMultiAff.from_map(as_map).get_pw_aff(0)


# isl operations the reads of a shared tile that its own writes serve may take (per group)
COPY_IN_OPERATIONS = 200_000


class KernelTree:
    """The schedule tree of one kernel with promoted data (see the module's docstring), the copy
    statements' indices and the promoted references' ones."""

    def __init__(self, scop: Scop, memory: KernelMemory, registers_across_barriers: bool):
        self.scop = scop
        self.memory = memory
        self.kernel = kernel = memory.kernel
        self.tiling = tiling = kernel.tiling
        self.ctx = kernel.domain.get_ctx()
        self.shared = memory.placed(Placement.SHARED)
        self.private = memory.placed(Placement.PRIVATE)
        self.registers_outside = memory.registers_outside(registers_across_barriers)
        mapped, tiles = tiling.mapped, tiling.tiles
        to_tiles = tiling.to_tiles.intersect_range(isl.UnionSet.from_set(tiling.block_congruence))
        self.domain = kernel.domain.intersect(to_tiles.domain())  # the computations of this block's tiles
        self.to_tiles = coalesced(to_tiles.intersect_domain(self.domain))  # (isl has failed here: kept as it is)
        self.tiles = coalesced(isl.Set.from_union_set(self.to_tiles.range()))
        self.mapped_tiles = self.tiles.project_out(isl.dim_type.set, mapped, tiles - mapped)
        self.slot_maps: dict[tuple[str, bool, bool], isl.Map] = {}
        # copy statement -> (index of the promoted array, global element), on the statement's space
        self.copies: dict[str, tuple[isl.PwMultiAff, isl.PwMultiAff]] = {}
        self.kinds: dict[str, Copy | Barrier] = {}  # the statements of copies and barriers, by name
        self._references: dict[str, list[tuple[Reference, Group, isl.PwMultiAff]]] = {}
        self._spec = None  # (domain, root spec): the tree's statements and shape, built once
        self._full: isl.Set | None | bool = False  # full_tiles, once known (False: not yet)
        # { R -> W }: instances of one tile (of all its coordinates: shared_copy's; of the mapped ones:
        # private_copy's), W before R in the original order, built once for each
        self._earlier_in_tile: dict[bool, isl.UnionMap] = {}
        # the computations' instances in the tree, their tiles and their points: those of the block's
        # tiles, or padded to whole register tiles where that is safe (polypragma.codegen.padded_tiles)
        self.computed = self.domain
        self.computed_tiles = self.to_tiles
        self.computed_points = tiling.to_points.intersect_domain(self.domain)
        self.deepest = padded_tiles.deepest(self.domain)  # the statements of the deepest loops
        self.guarded: tuple[str, ...] = ()  # statements left unpadded in a padded kernel (see _pad)
        self.padded = kernel.register_tile and bool(kernel.sequential) and self._pad()
        # partial schedules, statement by statement: the mapped tiles, the further tiles, the leaves
        self.outer: list[isl.UnionMap] = [_leading(self.computed_tiles, 0, mapped)]
        self.further: list[isl.UnionMap] = ([_leading(self.computed_tiles, mapped, tiles - mapped)]
                                            if tiles > mapped else [])
        self.domains: list[isl.UnionSet] = [self.computed]

    def _pad(self) -> bool:
        """Pad the computations to whole register tiles where it is safe; whether it was.  Statements
        outside the deepest loops may keep their real instances (``guarded``: a product's store of its
        local sum to global memory), each instance with its guard, run once for a whole run of the
        deepest loops; the deepest statements are all padded, or none is."""
        tiling = self.tiling
        real = (self.computed, self.computed_tiles, self.computed_points)
        try:
            with bounded_operations(self.ctx, PADDING_OPERATIONS):
                pads = padded_tiles.candidate(self.domain, self.to_tiles, self.computed_points, tiling.mapped,
                                              tiling.tile_sizes)
                names = frozenset(pads)
                if self.deepest <= names:
                    self._padded_to(pads, names, real)
                    # (a statement's safety does not depend on which others are padded: its own instances,
                    # what its extra ones write against the real instances of all)
                    unsafe = padded_tiles.unsafe(self, names)
                    names -= unsafe
                    if self.deepest <= names:
                        if unsafe:
                            self._padded_to(pads, names, real)
                        self.guarded = tuple(sorted(s.get_tuple_name() for s in sets_of(self.domain)
                                                    if s.get_tuple_name() not in names))
                        return True
        except isl.Error:
            pass
        self._padded_to({}, frozenset(), real)
        return False

    def _padded_to(self, pads: dict, names: frozenset, real: tuple) -> None:
        """The computations' instances, tiles and points: those of ``pads`` for the statements ``names``,
        the ``real`` ones for the others."""
        computed, tiles, points = real
        if names:
            kept = [isl.UnionSet.from_set(s) for s in sets_of(computed) if s.get_tuple_name() not in names]
            padded = sorted(names)
            computed = union_of(kept + [isl.UnionSet.from_set(pads[n][0]) for n in padded])
            kept = union_of(kept)
            tiles = coalesced(union_of(([tiles.intersect_domain(kept)] if kept else [])
                                       + [isl.UnionMap.from_map(pads[n][1]) for n in padded]))
            points = coalesced(union_of(([points.intersect_domain(kept)] if kept else [])
                                        + [isl.UnionMap.from_map(pads[n][2]) for n in padded]))
        self.computed, self.computed_tiles, self.computed_points = computed, tiles, points
        self._references.clear()
        self.slot_maps.clear()

    # -- statements ---------------------------------------------------------------------------
    def _statement(self, name: str, payload, domain: isl.Set) -> isl.Set:
        """``domain`` (on the tile coordinates, then the statement's own) as statement ``name``."""
        # a name alone (set_tuple_name; islpy's isl.Id always carries an object): an id carrying one
        # hashes by its address, and isl orders some unions by hash, so the output could change from
        # run to run
        domain = coalesced(domain.set_tuple_name(name))
        self.kinds[name] = payload
        tiles = self.tiling.tiles
        width = min(tiles, domain.dim(isl.dim_type.set))
        self.domains.append(isl.UnionSet.from_set(domain))
        self.outer.append(isl.UnionMap.from_map(_dims(domain, 0, self.tiling.mapped)))
        if self.further and width == tiles:
            self.further.append(isl.UnionMap.from_map(_dims(domain, self.tiling.mapped, tiles - self.tiling.mapped)))
        return domain

    def barrier(self, name: str, inside: bool) -> isl.UnionSet:
        """A barrier for each tile (of the further tiles too when ``inside``)."""
        tiles = self.tiles if inside else self.mapped_tiles
        return isl.UnionSet.from_set(self._statement(name, Barrier(), tiles))

    def _written_in_tile(self, group: Group, mapped: bool = False) -> isl.UnionMap:
        """The reads of ``group`` (``{ R -> e }``, may-writes included) whose element a must-write of the
        group writes before them, in the original order, in the same tile (``mapped``: the same tile of
        the mapped loops, which a register copy spans): its value is in the shared tile or the thread's
        registers already, so the copy-in need not bring it (a transpose's ``B[j][i]``, written and then
        read by the fused kernel; doitgen's ``sum``, reset and then accumulated).  No other write of
        the element comes between: the kernel's schedule keeps the order of every dependence and runs a
        tile's instances together.  Empty past COPY_IN_OPERATIONS of isl's work (every read is then
        copied in, as before)."""
        writes = union_of(isl.UnionMap.from_map(rel) for ref, rel in zip(group.references, group.relations)
                          if ref.is_write and ref.must)
        reads = group.relation("read")
        if writes is None:
            return isl.UnionMap.empty(reads.get_space())
        try:
            with bounded_operations(self.ctx, COPY_IN_OPERATIONS):
                if mapped not in self._earlier_in_tile:
                    order = self.scop.schedule.get_map().intersect_domain(self.domain)
                    before = order.lex_lt_union_map(order)  # { W -> R }: W first
                    tiles = _leading(self.to_tiles, 0, self.tiling.mapped) if mapped else self.to_tiles
                    same = tiles.apply_range(tiles.reverse())  # { R -> W }: one tile
                    self._earlier_in_tile[mapped] = same.intersect(before.reverse())  # { R -> W }: W first, one tile
                by_element = reads.range_map().apply_range(writes.reverse())  # { [R -> e] -> W }: W writes e
                earlier = reads.domain_map().apply_range(self._earlier_in_tile[mapped])
                return by_element.intersect(earlier).domain().unwrap()
        except isl.Error as exc:
            if not out_of_operations(exc):
                raise
            return isl.UnionMap.empty(reads.get_space())

    def shared_copy(self, group: Group, into: bool, name: str) -> list:
        """[(filter, subtree)] of the copy of a shared group's tile, the ``x`` threads on consecutive
        elements of the tile (on consecutive vectors of a row first, where the copy has some: see
        _vectors); empty when the tile has no such element."""
        relation = group.relation("read" if into else "write")
        if into:
            relation = relation.subtract(self._written_in_tile(group))
        per_tile = union_of(isl.UnionMap.from_map(m) for m in maps_of(self.to_tiles.reverse().apply_range(relation)))
        if per_tile is None or per_tile.is_empty():
            return []
        elements = isl.Map.from_union_map(per_tile).intersect_domain(self.tiles)
        if into and group.stencil and not group.writes and elements.n_basic_map() > 1:
            # the tile of reads translated from each other (a stencil's neighbours): the elements of its
            # hull, a few more than it reads (the corners a 5-point stencil skips, all inside the array:
            # between elements it reads), where the exact union makes the copy's AST slow to build
            elements = isl.Map.from_basic_map(elements.simple_hull()).intersect_domain(self.tiles)
        whole = elements.wrap().flatten().set_tuple_name(name)
        return [self._copy_statement(group, into, piece_name, piece, width)
                for piece_name, piece, width in self._vectors(group, into, whole, name)]

    def _vectors(self, group: Group, into: bool, domain: isl.Set, name: str) -> list[tuple[str, isl.Set, int]]:
        """The copy statement ``domain`` (tile coordinates, then the element's) in pieces (name, instances,
        elements per instance): where a copy moves whole aligned vectors of a row (VECTOR_ELEMENTS: two
        elements, starting at an even column), the first element of each (its loads and stores one
        instruction each, where both addresses are aligned on the vector's size when it runs:
        the device code checks, copying element by element where not), then the elements no vector
        holds.  Vectors only where the tile has more elements than the block has threads, the tile's
        offset along the row and the shared row's length (with its padding) are multiples of the
        vector, so that every row of the tile starts aligned (a padded tile's odd rows would not: there
        it is not worth a branch), the global row not of a constant length that is not, and within
        VECTOR_OPERATIONS of isl's work.

        A copy-in of an array the kernel does not write may move a few elements it does not need, in
        the rows it copies and inside the array's rows, to complete a vector: a 5-point stencil's tile
        whose corners no point reads is copied as whole rows of vectors, not as vectors and the lone
        elements beside each missing corner."""
        width = VECTOR_ELEMENTS.get(group.array.device_type, 1) if self.memory.vector_copies else 1
        array = group.array
        rank = len(group.sizes)
        last = domain.dim(isl.dim_type.set) - 1
        declared = group.sizes[-1] + group.padding
        if width == 1 or (array.member is not None and not array.row_member) or (
                rank > 1 and (declared % width or _constant_other_than(array, width))) or (
                math.prod(group.sizes) <= math.prod(self.kernel.sizes.block)):
            # (nor where a thread copies one element of a tile at most: a vector saves it nothing)
            return [(name, domain, 1)]
        # (the elements a vector may complete a row with: inside the array's row and the shared row)
        row = None
        if into and not declared % width and not any(g.array.name == array.name and g.writes
                                                    for g in self.memory.groups):
            row = next((a.extents[-1] for a in self.scop.arrays if a.name == array.name and a.extents), None)
        try:
            with bounded_operations(self.ctx, VECTOR_OPERATIONS):
                space = domain.get_space()
                w = isl.Val(width, context=self.ctx)
                offset = _on_tiles(group.offsets[-1], self.memory.tile_params, space)
                if not offset.mod_val(w).non_zero_set().intersect(domain).is_empty():
                    return [(name, domain, 1)]
                aligned = variable(space, isl.dim_type.set, last).mod_val(w).zero_set()
                exact = domain.intersect(aligned)
                for j in range(1, width):
                    exact = exact.intersect(domain.apply(_shift(space, last, -j)))
                candidates = [_split(domain, coalesced(exact), last, width)]
                if row is not None:
                    touching = union_of(domain.apply(_shift(space, last, -j)) for j in range(width))
                    starts = touching.intersect(aligned).intersect(_inside(row, domain, last, width))
                    candidates.append(_split(domain, coalesced(starts), last, width))
                # (the simpler: the AST of a kernel grows with its statements' existential variables)
                starts, rest = min(candidates, key=lambda pair: _complexity([p for p in pair if p is not None]))
                if starts.is_empty():
                    return [(name, domain, 1)]
                pieces = [(f"{name}_vector", starts.set_tuple_name(f"{name}_vector"), width)]
                if rest is not None:
                    pieces.append((name, rest, 1))
                return pieces
        except isl.Error as exc:
            if not out_of_operations(exc):
                raise
            return [(name, domain, 1)]

    def _copy_statement(self, group: Group, into: bool, name: str, elements: isl.Set, width: int):
        """(filter, subtree) of copy statement ``name`` over ``elements`` (``width`` per instance)."""
        domain = self._statement(name, Copy(group, into, width), elements)
        space = domain.get_space()
        tiles, mapped = self.tiling.tiles, self.tiling.mapped
        rank = domain.dim(isl.dim_type.set) - tiles
        local = [variable(space, isl.dim_type.set, tiles + d).sub(_on_tiles(group.offsets[d], self.memory.tile_params,
                                                                         space))
                 for d in range(rank)]
        order = local
        if width > 1:  # the vectors
            order = local[:-1] + [local[-1].scale_down_val(isl.Val(width, context=self.ctx)).floor()]
        if mapped == 1 and rank >= 2 and self.kernel.sizes.block[0] > group.sizes[-1] / width:
            # a block of one dimension wider than the tile's rows (a 256x16 tile of a matrix-vector
            # kernel): the two innermost coordinates as one index, so that every thread of the block
            # copies, consecutive threads on consecutive elements (or vectors) of a row
            row = isl.Val(-(-group.sizes[-1] // width), context=self.ctx)
            order = order[:-2] + [order[-2].scale_val(row).add(order[-1])]

        def product(pieces: list[isl.PwAff]) -> isl.Map:
            result = None
            for pa in pieces:
                piece = isl.Map.from_pw_aff(pa.intersect_domain(domain))
                result = piece if result is None else result.flat_range_product(piece)
            return result

        schedule = product(order)
        mine = domain
        for j in range(mapped):
            thread = parameter(space, self.kernel.thread_params[mapped - 1 - j])
            block = isl.Val(self.kernel.sizes.block[mapped - 1 - j], context=self.ctx)
            if j < len(order):
                along = order[len(order) - 1 - j]
                condition = along.sub(thread.align_params(along.get_space())).mod_val(block).zero_set()
            else:
                condition = thread.zero_set()
            mine = mine.intersect(condition)
        # the copy's coordinates as one function made of theirs, not restricted to the copy's domain
        # (the AST asks for it there only): isl's PwMultiAff.from_map of the relation restricted to
        # it worked through the domain's existential variables, 4.6 and 5.7 s in two kernels of
        # differential program 3580 (--grid-size 2; 19.5 -> 9.2 s in all, its output the same), and
        # the function restricted to it has pieces that took the AST of a kernel of bounds_minmax.c
        # past its bound
        pieces = isl.PwAffList.alloc(self.ctx, len(local))
        for pa in local:
            pieces = pieces.add(pa)
        at = isl.MultiPwAff.from_pw_aff_list(space.from_domain().add_dims(isl.dim_type.out, rank), pieces)
        self.copies[name] = (isl.PwMultiAff.from_multi_pw_aff(at),
                             isl.PwMultiAff.from_map(_dims(domain, tiles, rank)))
        leaf = self._band(isl.UnionMap.from_map(schedule), unroll=False)
        return isl.UnionSet.from_set(domain), ("filter", isl.UnionSet.from_set(mine), leaf)

    def _slots(self, statement: str, this_thread: bool, computed: bool = False) -> isl.Map:
        """``{ S[i] -> [k] }``: the register slot of instance ``i``, k = (p - t) / B along each mapped
        member, for the instances of this thread (``this_thread``) or for any, of the real instances
        or (``computed``) of those the tree computes."""
        key = (statement, this_thread, computed)
        if key not in self.slot_maps:
            tiling, kernel = self.tiling, self.kernel
            points = isl.Map.from_union_map((self.computed_points if computed else tiling.to_points).intersect_domain(
                isl.UnionSet.from_set(set_named(self.computed if computed else self.domain, statement))))
            space = points.get_space().range()
            slots = None
            for d in range(tiling.mapped):
                p = variable(space, isl.dim_type.set, d)
                t = parameter(space, kernel.thread_params[d])
                offset = p.sub(t.align_params(p.get_space()))
                block = isl.Val(kernel.sizes.block[d], context=self.ctx)
                slot = offset.scale_down_val(block).floor()
                if this_thread:
                    slot = slot.intersect_domain(offset.mod_val(block).zero_set())
                piece = isl.Map.from_pw_aff(slot)
                slots = piece if slots is None else slots.flat_range_product(piece)
            self.slot_maps[key] = points.apply_range(slots.align_params(points.get_space()))
        return self.slot_maps[key]

    def private_copy(self, group: Group, into: bool, name: str, tiles: int):
        """(filter, subtree) of the copy of a register group: one instance per tile (the first
        ``tiles`` tile coordinates) and slot, this thread's slots filtered right above the loops.
        The elements are those of the mapped tile, in every further tile alike (when the copies are
        inside their loop, a copy limited to the further tiles that use the elements made PoCL's
        optimiser give wrong values for adi's kernel 0)."""
        mapped = self.tiling.mapped
        if group.array.private_copy and tiles == mapped:
            # its values live and die inside the thread's iterations, in registers all along; where the
            # registers are declared around each further tile (registers_outside false), they cross
            # those tiles through the copy's device buffer
            return None
        pieces = []
        # reads the thread wrote first in the part of the tile the registers span
        written = self._written_in_tile(group, mapped=tiles == mapped) if into and group.writes else None
        for ref, rel in zip(group.references, group.relations):
            if (into and ref.is_write and ref.must) or (not into and not ref.is_write):
                continue
            accesses = isl.UnionMap.from_map(rel)
            key = _leading(self.to_tiles, 0, mapped).intersect_domain(
                isl.UnionSet.from_set(set_named(self.domain, ref.statement)))
            key = key.flat_range_product(isl.UnionMap.from_map(self._slots(ref.statement, this_thread=True)))
            if written is not None and key.reverse().apply_range(accesses.subtract(written)).is_empty():
                # every element this reference reads in the thread's tiles was written first by the thread
                # (a reset before the sum): none to bring in.  A reference only some of whose reads are is
                # copied in whole: the difference of the two, under a statement's conditions, can make the
                # copy's AST blow up
                continue
            pieces.append(key.reverse().apply_range(accesses))
        relation = union_of(pieces)
        if relation is None or relation.is_empty():
            return None
        relation = coalesced(isl.Map.from_union_map(relation)).insert_dims(isl.dim_type.in_, mapped, tiles - mapped)
        counts = group.counts
        tile_set = self.tiles if tiles == self.tiling.tiles else self.mapped_tiles
        box = isl.Set.universe(tile_set.get_space().add_dims(isl.dim_type.set, len(counts)))
        for d, count in enumerate(counts):
            k = variable(box.get_space(), isl.dim_type.set, tiles + d)
            box = box.intersect(k.ge_set(k.sub(k))).intersect(k.lt_set(k.sub(k).add_constant_val(
                isl.Val(count, context=self.ctx))))
        box = box.intersect(tile_set.add_dims(isl.dim_type.set, len(counts)))
        domain = self._statement(name, Copy(group, into), box)
        mine = relation.domain().set_tuple_id(domain.get_tuple_id()).intersect(domain)
        slots = _dims(domain, tiles, len(counts))
        self.copies[name] = (isl.PwMultiAff.from_map(slots), isl.PwMultiAff.from_map(
            relation.set_tuple_id(isl.dim_type.in_, domain.get_tuple_id())))
        leaf = self._band(isl.UnionMap.from_map(slots), unroll=self.memory.unroll)
        return isl.UnionSet.from_set(domain), ("filter", isl.UnionSet.from_set(mine), leaf)

    def full_tiles(self) -> isl.Set | None:
        """:meth:`_full_tiles`, computed once; None where isl goes past its bound of operations."""
        if self._full is False:
            try:
                self._full = self._full_tiles()
            except isl.Error as exc:
                if not out_of_operations(exc):
                    raise
                self._full = None
        return self._full

    def _full_tiles(self) -> isl.Set | None:
        """The tiles (their coordinates, with the thread ids as parameters) in which every point of
        this thread's part of the mapped tile is that of an instance of a computation: there the
        register tile runs without a guard per point (isl's isolate option, as PPCG separates full
        tiles).  Only the mapped tile coordinates are constrained: the further tiles' loops have
        bounds of their own, and neither the blocks' wrapping around the tiles nor anything else
        that would only make the set harder for isl to use is in it."""
        tiles, mapped = self.tiling.tiles, self.tiling.mapped
        domain = self.kernel.domain
        points = _leading(self.tiling.to_points.intersect_domain(domain), 0, mapped)
        present = _leading(self.tiling.to_tiles.intersect_domain(domain), 0, mapped).flat_range_product(points)
        present = isl.Set.from_union_set(present.range())
        present = present.align_params(with_params(present.get_space(), self.kernel.thread_params))
        if _most_divs(isl.UnionSet.from_set(present)) > FULL_TILES_EXISTENTIALS:
            return None
        # on [tile coordinates, this thread's slots]: point p_d = t_d + B_d * s_d, no division involved
        space = present.get_space()
        local = isl.LocalSpace.from_space(space)
        box = isl.Set.universe(space)
        affs = isl.AffList.alloc(self.ctx, 2 * mapped)
        for d in range(mapped):
            affs = affs.add(isl.Aff.var_on_domain(local, isl.dim_type.set, d))
        for d, size in enumerate(self.tiling.tile_sizes[:mapped]):
            slot = isl.Aff.var_on_domain(local, isl.dim_type.set, mapped + d)
            thread = isl.Aff.var_on_domain(local, isl.dim_type.param,
                                           space.find_dim_by_name(isl.dim_type.param, self.kernel.thread_params[d]))
            point = thread.add(slot.scale_val(isl.Val(self.kernel.sizes.block[d], context=self.ctx)))
            affs = affs.add(point)
            box = box.intersect(isl.PwAff.from_aff(slot).nonneg_set()).intersect(
                isl.PwAff.from_aff(point).lt_set(isl.PwAff.from_aff(slot.sub(slot).add_constant_val(
                    isl.Val(size, context=self.ctx)))))
        slots = present.preimage_multi_aff(isl.MultiAff.from_aff_list(space.map_from_set(), affs))
        used = present.project_out(isl.dim_type.set, mapped, mapped)
        # the thread ids' bounds known, the last slot is a constant and the result needs no division
        context = self.kernel.context.align_params(space)
        box = box.intersect(used.insert_dims(isl.dim_type.set, mapped, mapped)).intersect_params(context)
        missing = box.subtract(slots).project_out(isl.dim_type.set, mapped, mapped)
        full = coalesced(used.subtract(missing).gist_params(context))
        return full.add_dims(isl.dim_type.set, tiles - mapped)

    def _band(self, schedule: isl.UnionMap, unroll: bool):
        """A leaf band (its first member at the depth after the tiles)."""
        return ("band", schedule, self.tiling.tiles, unroll, None)

    # -- the tree -----------------------------------------------------------------------------
    def existentials(self) -> int:
        """An upper bound of the existential variables of a piece of the schedule of one statement
        of the tree (its domain, filters and bands as one map, which isl's AST build works on): the
        most of a piece of each node's, summed from the root to a leaf, the most over the leaves.
        Composing the nodes (``get_map()``) would tell exactly, at the cost of a second tree: 0.3 s
        of seidel_2d_fixed's 1.8 s."""
        if self._spec is None:
            self._spec = self._shape()
        domain, root = self._spec
        return _most_divs(domain) + _path_divs(root)

    def check_existentials(self) -> None:
        """Raises :class:`TooCostly` where a piece of the schedule of a statement may have more than
        TREE_EXISTENTIALS existential variables (:meth:`existentials`): its AST is not tried."""
        existentials = self.existentials()
        if existentials > TREE_EXISTENTIALS:
            raise TooCostly(f"the kernel's AST with its data promoted was not tried: the schedule of a statement "
                            f"has up to {existentials} existential variables, more than {TREE_EXISTENTIALS}",
                            self.vectors())

    def tree(self, separate: frozenset = frozenset(), isolate: bool = True) -> isl.Schedule:
        """The kernel's schedule tree, its loops at the schedule depths in ``separate`` in isl's
        default form, the others atomic, and with ``isolate`` its full tiles generated apart (the
        statements and their indices are computed once, for every form asked)."""
        if self._spec is None:
            self._spec = self._shape()
        domain, root = self._spec
        schedule = isl.Schedule.from_domain(domain)
        return _grow(schedule.get_root().child(0), root, separate, isolate).get_schedule()

    def vector_copies(self) -> tuple[tuple[str, bool, int], ...]:
        """(group, into, width) of each copy of the tree that moves vectors, in order."""
        return tuple(sorted({(k.group.name, k.into, k.width) for k in self.kinds.values()
                             if isinstance(k, Copy) and k.width > 1}))

    def vectors(self) -> bool:
        """Whether the tree has vector copies (True while its statements are not all known)."""
        return self._spec is None or bool(self.vector_copies())

    def threads(self) -> isl.UnionSet:
        """The computed instances that fall to this thread (the thread congruence on their points)."""
        return self.computed_points.intersect_range(isl.UnionSet.from_set(self.tiling.thread_congruence)).domain()

    def _shape(self):
        """(domain, spec of the root band): every statement of the tree, and its shape."""
        tiling = self.tiling
        mapped, tiles = tiling.mapped, tiling.tiles
        counter = iter(range(1_000_000))

        def name(kind: str) -> str:
            return f"{kind}_{next(counter)}"

        threads = self.threads()
        points = self.computed_points
        slots = range(mapped)  # where the thread's points of the mapped loops are in the band
        if self.kernel.register_tile:
            points, slots = _slots_innermost(points, mapped)
        unroll = list(slots) if self.memory.unroll else []
        # (full tiles apart only where a tiled loop runs inside the points: see kernel_ast.tiled_kernel_ast)
        full = self.full_tiles() if self.kernel.register_tile and self.kernel.sequential and not self.padded else None
        compute = ("filter", threads, ("band", points, tiles, unroll, None, full))
        # the computations' own existential variables bound the tree's from below (existentials): past
        # TREE_EXISTENTIALS, the register copies (whose slots over wrapped blocks took differential
        # program 1516 of seed 6 17 s of isl's work outside its operation count) are not built in vain
        least = _most_divs(self.computed) + _path_divs(compute)
        if least > TREE_EXISTENTIALS:
            raise TooCostly(f"the kernel's AST with its data promoted was not tried: the schedule of a statement "
                            f"has at least {least} existential variables, more than {TREE_EXISTENTIALS}", False)
        inner: list = []  # (filter, subtree) for each tile of the further tiles
        registers_inner = not self.registers_outside and self.private

        def private_copies(into: bool, width: int) -> list:
            out = []
            for group in self.private:
                made = self.private_copy(group, into, name("private_in" if into else "private_out"), width)
                if made is not None:
                    out.append(made)
            return out

        copied = [made for group in self.shared for made in self.shared_copy(group, True, name("shared_in"))]
        inner += copied
        if copied:
            inner.append((self.barrier(name("barrier"), True), None))
        if registers_inner:
            inner += private_copies(True, tiles) + [(self.computed, compute)] + private_copies(False, tiles)
        else:
            inner.append((self.computed, compute))
        if self.shared:
            inner.append((self.barrier(name("barrier"), True), None))
            written = [made for g in self.shared if g.writes for made in self.shared_copy(g, False, name("shared_out"))]
            if written:
                inner += written + [(self.barrier(name("barrier"), True), None)]
        if tiles > mapped:
            together = union_of(f for f, _ in inner)
            further = union_of(self.further).intersect_domain(together)
            outer_items = [(together, ("band", further, mapped, [], ("sequence", inner)))]
        else:
            outer_items = inner
        if self.registers_outside and self.private:
            outer_items = private_copies(True, mapped) + outer_items + private_copies(False, mapped)
            if self.shared and any(g.writes for g in self.private):
                outer_items.append((self.barrier(name("barrier"), False), None))
        body = ("sequence", outer_items)
        if self.private and not registers_inner:
            body = ("mark", Registers(tuple(self.private)), body)  # (between barriers, the printer declares them)
        return union_of(self.domains), ("band", union_of(self.outer), 0, [], body)

    def references(self, statement: str) -> list[tuple[Reference, Group, isl.PwMultiAff]]:
        """The promoted references of a computation, each with its index in the promoted array as a
        function of the instance: the element less the tile's offset (shared memory), or the
        register slot of the instance (registers)."""
        if statement not in self._references:
            out = []
            domain = set_named(self.computed, statement)
            tile = isl.PwMultiAff.from_map(isl.Map.from_union_map(
                self.computed_tiles.intersect_domain(isl.UnionSet.from_set(domain))))
            space = self.tiles.get_space()
            for group in self.shared + self.private:
                for ref, rel in zip(group.references, group.relations):
                    if ref.statement != statement:
                        continue
                    if any(group is g for g in self.private):
                        out.append((ref, group, isl.PwMultiAff.from_map(self._slots(statement, this_thread=False,
                                                                                    computed=True))))
                        continue
                    element = _extended(isl.PwMultiAff.from_map(rel), domain)
                    index = None
                    for d in range(element.dim(isl.dim_type.out)):
                        offset = _on_tiles(group.offsets[d], self.memory.tile_params, space)
                        pa = element.get_pw_aff(d).sub(offset.pullback_pw_multi_aff(tile).align_params(
                            element.get_space()))
                        piece = isl.PwMultiAff.from_pw_aff(pa)
                        index = piece if index is None else index.flat_range_product(piece)
                    out.append((ref, group, index))
            self._references[statement] = out + global_references(self.scop, statement,
                                                                   {id(ref) for ref, _, _ in out})
        return self._references[statement]



def _extended(function: isl.PwMultiAff, domain: isl.Set) -> isl.PwMultiAff:
    """``function`` (an access of the real instances) on ``domain`` (padded ones), where it is one
    affine function; otherwise as it is (and the padding it would serve is found unsafe)."""
    shared = common_piece(function)
    if shared is None:
        return function
    return isl.PwMultiAff.from_multi_aff(shared).intersect_domain(domain.align_params(shared.get_domain_space()))


def _shift(space: isl.Space, position: int, by: int) -> isl.Map:
    """``{ x -> x + by e_position }`` on the set space ``space``."""
    shift = isl.MultiAff.identity(space.map_from_set())
    return isl.Map.from_multi_aff(shift.set_aff(position, shift.get_aff(position).add_constant_val(
        isl.Val(by, context=space.get_ctx()))))


def _split(domain: isl.Set, starts: isl.Set, last: int, width: int) -> tuple[isl.Set, isl.Set | None]:
    """(the vectors' first elements ``starts``, the elements of ``domain`` no vector holds or None)."""
    space = domain.get_space()
    rest = coalesced(domain.subtract(union_of(starts.apply(_shift(space, last, j)) for j in range(width))))
    return starts, None if rest.is_empty() else rest


def _complexity(sets: list[isl.Set]) -> tuple[int, int]:
    """(most existential variables of a basic set, basic sets) of ``sets``."""
    return (max(_most_divs(isl.UnionSet.from_set(s)) for s in sets), sum(s.n_basic_set() for s in sets))


def _inside(extent: isl.PwAff, domain: isl.Set, last: int, width: int) -> isl.Set:
    """The points of ``domain``'s space whose ``width`` elements from ``last`` lie before ``extent`` (a
    row's length, over the parameters)."""
    n = domain.dim(isl.dim_type.set)
    extent = extent.add_dims(isl.dim_type.in_, n)  # (on an unnamed space of the domain's dimensions)
    end = variable(extent.get_domain_space(), isl.dim_type.set, last).add_constant_val(
        isl.Val(width - 1, context=domain.get_ctx()))
    inside = end.lt_set(extent).set_tuple_name(domain.get_tuple_name())
    return inside.align_params(domain.get_space()).intersect_params(domain.params())


def _constant_other_than(array, width: int) -> bool:
    """Whether ``array``'s rows have a constant length that is not a multiple of ``width``: every
    other row of a tile would start unaligned."""
    extent = array.inner_extents[-1] if array.inner_extents else ""
    return extent.isdigit() and int(extent) % width != 0


def _slots_innermost(points: isl.UnionMap, mapped: int) -> tuple[isl.UnionMap, range]:
    """The compute band's schedule ``points`` ([p_0 .. p_{mapped-1}, the rest]) with the points of the
    mapped loops moved innermost (unroll-and-jam: the thread's points form a register tile inside each
    step of the sequential loops), and the positions they now have.  Legal because every dependence of
    the kernel joins instances with the same values of the mapped loops (checked when the kernel was
    mapped): a member along which all distances are zero may move to any depth."""
    n = isl.Set.from_union_set(points.range()).dim(isl.dim_type.set)
    return permuted_range(points, list(range(mapped, n)) + list(range(mapped))), range(n - mapped, n)


def _most_divs(pieces: isl.UnionSet | isl.UnionMap) -> int:
    """The most existential variables of a basic set or map of ``pieces``."""
    most = 0
    for piece in (maps_of(pieces) if isinstance(pieces, isl.UnionMap) else sets_of(pieces)):
        basic = piece.get_basic_map_list() if isinstance(piece, isl.Map) else piece.get_basic_set_list()
        for k in range(basic.n_basic_map() if isinstance(piece, isl.Map) else basic.n_basic_set()):
            most = max(most, basic.get_at(k).dim(isl.dim_type.div))
    return most


def _path_divs(spec) -> int:
    """The most existential variables along a path from ``spec``'s node to a leaf (see
    :meth:`KernelTree.existentials`)."""
    kind = spec[0]
    if kind == "band":
        child = spec[4]
        return _most_divs(spec[1]) + (_path_divs(child) if child is not None else 0)
    if kind == "filter":
        child = spec[2]
        return _most_divs(spec[1]) + (_path_divs(child) if child is not None else 0)
    if kind == "mark":
        return _path_divs(spec[2])
    if kind == "sequence":
        return max((_most_divs(uset) + (_path_divs(child) if child is not None else 0) for uset, child in spec[1]),
                   default=0)
    raise ValueError(kind)


def _loop_type(depth: int, unrolled: bool, separate: frozenset):
    if unrolled:
        return isl.ast_loop_type.unroll
    return isl.ast_loop_type.default if depth in separate else isl.ast_loop_type.atomic


def _isolate(node: isl.ScheduleNode, outer: isl.Set, first: int, unroll, separate: frozenset) -> isl.ScheduleNode:
    """The band ``node`` with the instances of its outer schedule dimensions in ``outer`` generated
    apart (isl's isolate option), so that isl drops the guards those dimensions imply; its loops there
    of the same types as elsewhere."""
    members = node.band_n_member()
    band = isl.Set.universe(outer.get_space().drop_dims(isl.dim_type.set, 0, outer.dim(isl.dim_type.set))
                            .add_dims(isl.dim_type.set, members))
    option = isl.Map.from_domain_and_range(outer, band.align_params(outer.get_space())).wrap()
    node = node.band_set_ast_build_options(isl.UnionSet.from_set(option.set_tuple_name("isolate")))
    for k in range(members):
        unrolled = unroll is True or (unroll and k in unroll)
        node = node.band_member_set_isolate_ast_loop_type(k, _loop_type(first + k, unrolled, separate))
    return node


def _grow(node: isl.ScheduleNode, spec, separate: frozenset, isolate: bool) -> isl.ScheduleNode:
    """Insert ``spec`` above the leaf ``node``, its loops at the depths in ``separate`` in isl's
    default form; return the node where it starts."""
    kind = spec[0]
    ctx = node.get_ctx()
    if kind == "band":
        _, schedule, first, unroll, child = spec[:5]
        isolated = spec[5] if len(spec) > 5 else None
        node = node.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(coalesced(schedule)))
        if isolate and isolated is not None and not isolated.is_empty():
            # (setting the options resets the band's loop types: they are set after)
            node = _isolate(node, isolated, first, unroll, separate)
        for k in range(node.band_n_member()):
            unrolled = unroll is True or (unroll and k in unroll)
            node = node.band_member_set_ast_loop_type(k, _loop_type(first + k, unrolled, separate))
        if child is not None:
            node = _grow(node.child(0), child, separate, isolate).parent()
        return node
    if kind == "filter":
        _, uset, child = spec
        node = node.insert_filter(coalesced(uset))
        if child is not None:
            node = _grow(node.child(0), child, separate, isolate).parent()
        return node
    if kind == "mark":
        _, payload, child = spec
        node = node.insert_mark(isl.Id("registers", user=payload, context=ctx))
        return _grow(node.child(0), child, separate, isolate).parent()
    if kind == "sequence":
        _, items = spec
        filters = isl.UnionSetList.alloc(ctx, len(items))
        for uset, _ in items:
            filters = filters.add(uset)
        node = node.insert_sequence(filters)
        for k, (_, child) in enumerate(items):
            if child is not None:
                node = _grow(node.child(k).child(0), child, separate, isolate).parent().parent()
        return node
    raise ValueError(kind)


def global_references(scop: Scop, statement: str, promoted=frozenset()) -> list:
    """(reference, None, element) for the references of ``statement`` to global memory whose element
    is a function of the instance (affine subscripts), but those in ``promoted`` (ids)."""
    out = []
    for ref in scop.references:
        if ref.statement == statement and ref.exact and id(ref) not in promoted and ref.relation.is_single_valued():
            out.append((ref, None, isl.PwMultiAff.from_map(ref.relation)))
    return out


class TooCostly(Exception):
    """The AST of a kernel with promoted data took more than its bound of isl operations (``vectors``:
    its tree had vector copies, or may have had)."""

    def __init__(self, message: str, vectors: bool = True):
        super().__init__(message)
        self.vectors = vectors
