"""The copy statements of a kernel's schedule tree: between global memory and the promoted groups'
shared tiles (a block's threads on consecutive elements, or on aligned vectors of a row) and
registers (one instance per register slot).  :class:`CopyStatements` is a part of
:class:`polypragma.codegen.kernel_tree.KernelTree`, which places the copies in the tree and owns the
state they use: the tiling, the statements made so far and the register slots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import islpy as isl

from polypragma.codegen.tree_spec import FULL_COPIES, Apart, most_divs
from polypragma.gpu.memory import VECTOR_ELEMENTS, Group, rows_unaligned
from polypragma.isl_helpers import (bounded_operations, coalesced, coordinates, maps_of, out_of_operations, parameter,
                                     range_dims, set_named, union_of, variable)

# the isl operations finding a shared copy's vectors (VECTOR_ELEMENTS) may take (per copy; past it, one
# element at a time)
VECTOR_OPERATIONS = 200_000
# isl operations the reads of a shared tile that its own writes serve may take (per group)
COPY_IN_OPERATIONS = 200_000
# the copies of a shared tile's full tiles (every element of its box there) are generated apart and
# unrolled, without a guard, where a thread moves at most this many elements (or vectors) of a tile:
# its loads then issue one after another and are waited for together, where the loop that bounds each
# by the array's end, its trip count unknown to the compiler, waits for each before the next (gemm's
# 16 a step of k, in 8 rounds of latency); within COPIES_APART_OPERATIONS of isl's work per group
MAX_UNROLLED_COPIES = 16
COPIES_APART_OPERATIONS = 200_000


@dataclass(frozen=True, eq=False)
class Copy:
    """A copy between a promoted group and global memory: ``into`` the group (copy-in) or out of it;
    ``width`` consecutive elements of a row at once (a vector, where both sides are aligned
    when it runs; see CopyStatements._vectors)."""

    group: Group
    into: bool
    width: int = 1
    apart: int = 0  # the instances a thread runs of a full tile, apart and unrolled (MAX_UNROLLED_COPIES); 0: none
    # the copy-in of a tile with two buffers (Group.buffers), run one step of the innermost loop in sequence
    # ahead, while the tile before it is computed
    ahead: bool = False


class CopyStatements:
    """The copy statements of a :class:`polypragma.codegen.kernel_tree.KernelTree` (the class it is part of)."""

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
                    tiles = range_dims(self.to_tiles, 0, self.tiling.mapped) if mapped else self.to_tiles
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
        if into and group.aligned:
            # (a tile whose rows start early, so that vectors start there: see _aligned_rows)
            elements = _aligned_rows(elements, group.aligned)
        elif into and group.stencil and not group.writes and elements.n_basic_map() > 1:
            # the tile of reads translated from each other (a stencil's neighbours): the elements of its
            # hull, a few more than it reads (the corners a 5-point stencil skips, all inside the array:
            # between elements it reads), where the exact union makes the copy's AST slow to build
            elements = isl.Map.from_basic_map(elements.simple_hull()).intersect_domain(self.tiles)
        whole = elements.wrap().flatten().set_tuple_name(name)
        full = None
        widest = VECTOR_ELEMENTS.get(group.array.device_type, 1) if self.memory.vector_copies else 1
        if self.apart and self._a_thread(group, widest) <= MAX_UNROLLED_COPIES:
            # (a copy-in of an array the kernel does not write may complete the box: see _full_copies)
            written = any(g.array.name == group.array.name and g.writes for g in self.memory.groups)
            full, whole = self._full_copies(group, whole, into and not written)
        return [self._copy_statement(group, into, piece_name, piece, width, full)
                for piece_name, piece, width in self._vectors(group, into, whole, name)]

    def _parity(self, space: isl.Space) -> isl.PwAff:
        """The buffer of a tile with two (Group.buffers), on ``space`` (tile coordinates first): the parity
        of the innermost tile coordinate of the loops in sequence."""
        return variable(space, isl.dim_type.set, self.tiling.tiles - 1).mod_val(isl.Val(2, context=self.ctx))

    def _combined(self, group: Group, width: int) -> bool:
        """Whether a copy of ``group`` (``width`` elements an instance) runs its two innermost
        coordinates as one index (see _copy_statement)."""
        return self.tiling.mapped == 1 and len(group.sizes) >= 2 and \
            self.kernel.sizes.block[0] > group.sizes[-1] / width

    def _a_thread(self, group: Group, width: int) -> int:
        """The instances a thread runs of a copy of ``group``'s whole box (``width`` elements each): the
        coordinates the threads share out (the innermost ones, see _copy_statement) divided among them."""
        extents = list(group.sizes[:-1]) + [-(-group.sizes[-1] // width)]
        if self._combined(group, width):
            extents = extents[:-2] + [extents[-2] * extents[-1]]
        shares = self._shares(len(extents))
        shares = [1] * (len(extents) - len(shares)) + shares
        return math.prod(-(-extent // threads) for extent, threads in zip(extents, shares))

    def _shares(self, coordinates: int) -> list[int]:
        """The threads among which each of the last ``coordinates`` coordinates of a copy's order (at
        most the mapped ones) is shared out: the innermost on the ``x`` threads, the next on ``y``...;
        where the copy has fewer coordinates than the block has dimensions, the outermost on the
        threads of the rest of the block as one index (a vector's tile over a block of 16x32: every
        thread copies, 32 t0 + t1 its index, not the 32 threads of t0 = 0 alone)."""
        block = list(self.kernel.sizes.block)
        used = min(coordinates, len(block))
        return [math.prod(block[:len(block) - used + 1])] + block[len(block) - used + 1:]

    def copy_steps(self) -> frozenset[int]:
        """The steps of the copies' loops over threads of several block dimensions as one index (see
        _shares): like a block's sizes, the steps of loops the thread filters make, no strided loop
        of isl's atomic form."""
        block = self.kernel.sizes.block
        return frozenset(math.prod(block[:k]) for k in range(2, len(block) + 1))

    def _copying_threads(self, space: isl.Space, coordinates: int) -> list[tuple[isl.PwAff, int]]:
        """(the thread's index, the threads sharing it out) for each of the last ``coordinates``
        coordinates of a copy's order (see _shares), on ``space``."""
        params = self.kernel.thread_params
        shares = self._shares(coordinates)
        folded = len(params) - len(shares) + 1  # the outer thread dimensions made one index
        index = None
        for d in range(folded):
            thread = parameter(space, params[d])
            index = thread if index is None else index.scale_val(
                isl.Val(self.kernel.sizes.block[d], context=self.ctx)).add(thread)
        threads = [index] + [parameter(space, p) for p in params[folded:]]
        return list(zip(threads, shares))

    def _full_copies(self, group: Group, domain: isl.Set, complete: bool) -> tuple[isl.Set | None, isl.Set]:
        """(the tiles, by their coordinates, in which the copy ``domain`` (tile coordinates, then the
        element's) moves every element of ``group``'s box, its sizes from its offsets, or None where
        it has none; the copy's instances).  Where ``complete`` (a copy-in of an array the kernel does
        not write), a tile whose elements reach every row and column of the box (every value of each
        coordinate) counts as full and its copy moves the whole box: the few elements more (the
        corners a 5-point stencil skips) lie between elements it reads, inside the array and its
        device buffer, and no computation reads them.  None past COPIES_APART_OPERATIONS of isl's work."""
        tiles = self.tiling.tiles
        space = domain.get_space()
        rank = domain.dim(isl.dim_type.set) - tiles
        try:
            with bounded_operations(self.ctx, COPIES_APART_OPERATIONS):
                present = domain.project_out(isl.dim_type.set, tiles, rank)
                box = present.insert_dims(isl.dim_type.set, tiles, rank).set_tuple_name(domain.get_tuple_name())
                for d, size in enumerate(group.sizes):
                    local = variable(space, isl.dim_type.set, tiles + d).sub(
                        on_tiles(group.offsets[d], self.memory.tile_params, space))
                    box = box.intersect(local.nonneg_set()).intersect(
                        local.lt_set(local.sub(local).add_constant_val(isl.Val(size, context=self.ctx))))
                if complete:
                    # every element of the box whose coordinates each some element has, in its tile
                    # (a superset of the elements: each has its coordinates)
                    name, rectangle = domain.get_tuple_name(), box
                    for d in range(rank):
                        along = domain.project_out(isl.dim_type.set, tiles + d + 1, rank - d - 1)
                        along = isl.Set.from_basic_set(along.project_out(isl.dim_type.set, tiles, d).simple_hull())
                        along = along.insert_dims(isl.dim_type.set, tiles, d).add_dims(isl.dim_type.set, rank - d - 1)
                        rectangle = rectangle.intersect(along.set_tuple_name(name))
                    domain = coalesced(rectangle)
                missing = box.subtract(domain).project_out(isl.dim_type.set, tiles, rank)
                full = coalesced(present.subtract(missing))
                if full.is_empty():
                    return None, domain
                return full.reset_tuple_id(), domain
        except isl.Error as exc:
            if not out_of_operations(exc):
                raise
            return None, domain

    def _vectors(self, group: Group, into: bool, domain: isl.Set, name: str) -> list[tuple[str, isl.Set, int]]:
        """The copy statement ``domain`` (tile coordinates, then the element's) in pieces (name, instances,
        elements per instance): where a copy moves whole aligned vectors of a row (VECTOR_ELEMENTS: two
        elements, starting at an even column), the first element of each (its loads and stores one
        instruction each, where the global address is aligned on the vector's size when it runs:
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
                rank > 1 and (declared % width or rows_unaligned(array, width))) or (
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
                offset = on_tiles(group.offsets[-1], self.memory.tile_params, space)
                if not offset.mod_val(w).non_zero_set().intersect(domain).is_empty():
                    return [(name, domain, 1)]
                aligned = variable(space, isl.dim_type.set, last).mod_val(w).zero_set()
                exact = domain.intersect(aligned)
                for j in range(1, width):
                    exact = exact.intersect(domain.apply(shift(space, last, -j)))
                candidates = [_split(domain, coalesced(exact), last, width)]
                if row is not None:
                    touching = union_of(domain.apply(shift(space, last, -j)) for j in range(width))
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

    def _copy_statement(self, group: Group, into: bool, name: str, elements: isl.Set, width: int,
                        full: isl.Set | None):
        """(filter, subtree) of copy statement ``name`` over ``elements`` (``width`` per instance), its
        ``full`` tiles apart and unrolled where a thread's instances of a tile are few
        (MAX_UNROLLED_COPIES)."""
        tiles = self.tiling.tiles
        rank = elements.dim(isl.dim_type.set) - tiles
        a_thread = self._a_thread(group, width)
        apart = full if a_thread <= MAX_UNROLLED_COPIES and not _outside(elements, full) else None
        ahead = into and group.buffers > 1
        domain = self._statement(name, Copy(group, into, width, a_thread if apart is not None else 0, ahead), elements,
                                 ahead)
        space = domain.get_space()
        local = [variable(space, isl.dim_type.set, tiles + d).sub(on_tiles(group.offsets[d], self.memory.tile_params,
                                                                         space))
                 for d in range(rank)]
        order = local
        if width > 1:  # the vectors
            order = local[:-1] + [local[-1].scale_down_val(isl.Val(width, context=self.ctx)).floor()]
        if self._combined(group, width):
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
        threads = self._copying_threads(space, len(order))
        for along, (thread, block) in zip(order[len(order) - len(threads):], threads):
            condition = along.sub(thread.align_params(along.get_space())).mod_val(
                isl.Val(block, context=self.ctx)).zero_set()
            mine = mine.intersect(condition)
        # the copy's coordinates as one function made of theirs, not restricted to the copy's domain
        # (the AST asks for it there only): isl's PwMultiAff.from_map of the relation restricted to
        # it worked through the domain's existential variables, 4.6 and 5.7 s in two kernels of
        # differential program 3580 (--grid-size 2; 19.5 -> 9.2 s in all, its output the same), and
        # the function restricted to it has pieces that took the AST of a kernel of bounds_minmax.c
        # past its bound
        index = ([self._parity(space)] if group.buffers > 1 else []) + local
        pieces = isl.PwAffList.alloc(self.ctx, len(index))
        for pa in index:
            pieces = pieces.add(pa)
        at = isl.MultiPwAff.from_pw_aff_list(space.from_domain().add_dims(isl.dim_type.out, len(index)), pieces)
        self.copies[name] = (isl.PwMultiAff.from_multi_pw_aff(at),
                             isl.PwMultiAff.from_map(coordinates(domain, tiles, rank)))
        leaf = self._band(isl.UnionMap.from_map(schedule), unroll=False)
        if apart is not None:
            # (on the band's outer schedule: a copy run ahead stands one step of the innermost tile earlier)
            outer = apart.apply(shift(apart.get_space(), tiles - 1, -1)) if ahead else apart
            leaf += (Apart(outer, True, FULL_COPIES),)
        return isl.UnionSet.from_set(domain), ("filter", isl.UnionSet.from_set(mine), leaf)

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
            key = range_dims(self.to_tiles, 0, mapped).intersect_domain(
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
        slots = coordinates(domain, tiles, len(counts))
        self.copies[name] = (isl.PwMultiAff.from_map(slots), isl.PwMultiAff.from_map(
            relation.set_tuple_id(isl.dim_type.in_, domain.get_tuple_id())))
        leaf = self._band(isl.UnionMap.from_map(slots), unroll=self.memory.unroll)
        return isl.UnionSet.from_set(domain), ("filter", isl.UnionSet.from_set(mine), leaf)


def _outside(elements: isl.Set, tiles: isl.Set | None) -> bool:
    """Whether none of the copy's ``elements`` (tile coordinates first) lies in ``tiles`` (a piece of a
    copy that a full tile does not need: the lone elements beside its vectors), or ``tiles`` is None."""
    if tiles is None:
        return True
    count = tiles.dim(isl.dim_type.set)
    lifted = tiles.add_dims(isl.dim_type.set, elements.dim(isl.dim_type.set) - count)
    lifted = lifted.set_tuple_name(elements.get_tuple_name()).align_params(elements.get_space())
    return elements.intersect(lifted).is_empty()


def on_tiles(offset: isl.PwAff, names: tuple[str, ...], space: isl.Space) -> isl.PwAff:
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


def shift(space: isl.Space, position: int, by: int) -> isl.Map:
    """``{ x -> x + by e_position }`` on the set space ``space``."""
    shift = isl.MultiAff.identity(space.map_from_set())
    return isl.Map.from_multi_aff(shift.set_aff(position, shift.get_aff(position).add_constant_val(
        isl.Val(by, context=space.get_ctx()))))


def _split(domain: isl.Set, starts: isl.Set, last: int, width: int) -> tuple[isl.Set, isl.Set | None]:
    """(the vectors' first elements ``starts``, the elements of ``domain`` no vector holds or None)."""
    space = domain.get_space()
    rest = coalesced(domain.subtract(union_of(starts.apply(shift(space, last, j)) for j in range(width))))
    return starts, None if rest.is_empty() else rest


def _aligned_rows(elements: isl.Map, early: int) -> isl.Map:
    """The copy-in of a tile whose rows start ``early`` elements before its first (Group.aligned, of an
    array the kernel does not write): ``elements`` ({ tile -> element }) completed to the box of each
    coordinate's range at its tile, the innermost from ``early`` elements before its first on (not before
    the row's start, index 0).  Each range lies inside the array where its elements do: a stencil's
    corners, between elements it reads, and the elements before a row's first are copied too."""
    rank = elements.dim(isl.dim_type.out)
    space = elements.get_space().range()
    rectangle = isl.Map.universe(elements.get_space())
    for d in range(rank):
        along = elements.project_out(isl.dim_type.out, d + 1, rank - d - 1).project_out(isl.dim_type.out, 0, d)
        along = isl.Map.from_basic_map(along.simple_hull())
        if d == rank - 1:
            line = along.get_space().range()
            moved = union_of(along.apply_range(shift(line, 0, -j)) for j in range(early + 1))
            along = isl.Map.from_basic_map(moved.simple_hull()).intersect_range(
                variable(line, isl.dim_type.set, 0).nonneg_set())
        rectangle = rectangle.intersect(along.insert_dims(isl.dim_type.out, 0, d).add_dims(
            isl.dim_type.out, rank - d - 1).set_tuple_id(isl.dim_type.out, space.get_tuple_id(isl.dim_type.set)))
    return rectangle.intersect_domain(elements.domain())


def _complexity(sets: list[isl.Set]) -> tuple[int, int]:
    """(most existential variables of a basic set, basic sets) of ``sets``."""
    return (max(most_divs(isl.UnionSet.from_set(s)) for s in sets), sum(s.n_basic_set() for s in sets))


def _inside(extent: isl.PwAff, domain: isl.Set, last: int, width: int) -> isl.Set:
    """The points of ``domain``'s space whose ``width`` elements from ``last`` lie before ``extent`` (a
    row's length, over the parameters)."""
    n = domain.dim(isl.dim_type.set)
    extent = extent.add_dims(isl.dim_type.in_, n)  # (on an unnamed space of the domain's dimensions)
    end = variable(extent.get_domain_space(), isl.dim_type.set, last).add_constant_val(
        isl.Val(width - 1, context=domain.get_ctx()))
    inside = end.lt_set(extent).set_tuple_name(domain.get_tuple_name())
    return inside.align_params(domain.get_space()).intersect_params(domain.params())
