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
                    (a register tile: band: the loops but the mapped ones -> mark: RegisterSlots
                     -> band: the thread's slots of the mapped loops)
                  barrier
                  shared copy-out -> ...
                  barrier
            filter: register copy-out -> ...
            filter: barrier (when shared memory follows a write of registers)

A shared tile with two buffers (Group.buffers: an array the kernel only reads, --double-buffer) is
copied in one step of the innermost further tile ahead, first in its sequence, into the buffer of the
next tile's parity (``shared_A[(k2 + 1) % 2]``) while the computations read this tile's
(``shared_A[k2 % 2]``); the loop starts one step early, for the first tile's copy, and the barrier
after the computations, which runs at that step too, is the one a step needs where every tile has two.

Only the leaf bands' instances depend on the thread (through the filters right above them): the
loops over tiles, and so every barrier, are the same for all threads of a block.  A target that
cannot keep registers live across barriers (OpenCL on PoCL, see GpuSyntax) has its register copies
around the computations of each tile, between two barriers, with the mark above them.

The copy statements are made by :mod:`polypragma.codegen.copy_statements` (a part of the class), and
the tree is written first as a spec of nested tuples that :mod:`polypragma.codegen.tree_spec` grows
into isl's.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polypragma.codegen import padded_tiles
from polypragma.codegen.copy_statements import Copy, CopyStatements, on_tiles, shift
from polypragma.codegen.tree_spec import FULL_TILES, Apart, grow, most_divs, path_divs
from polypragma.gpu.memory import Group, KernelMemory, Placement
from polypragma.isl_helpers import (bounded_operations, coalesced, common_piece, coordinates, out_of_operations, parameter,
                                     permuted_range, range_dims, set_named, sets_of, union_of, variable, with_params)
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


@dataclass(frozen=True, eq=False)
class Barrier:
    """A barrier of the block; its instances are tiles, the same for every thread."""


@dataclass(frozen=True, eq=False)
class RegisterSlots:
    """The mark above the loops over a thread's slots of its register tile: the loop at depth
    ``first + d`` runs over the slots 0 .. ``counts[d]`` - 1 of mapped member d (fewer in a partial
    tile), which the printer may give to the device compiler to unroll."""

    first: int
    counts: tuple[int, ...]


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


class KernelTree(CopyStatements):
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
        # the copies of shared tiles with their full tiles apart (copy_statements.MAX_UNROLLED_COPIES), unless
        # the user turned them off (--no-unroll-copies)
        self.apart = memory.unroll_copies
        self._computations_only()

    def _computations_only(self) -> None:
        """The partial schedules, statement by statement (the mapped tiles, the further tiles, the
        leaves), of the computations alone, before the copies and barriers join them."""
        mapped, tiles = self.tiling.mapped, self.tiling.tiles
        self.outer: list[isl.UnionMap] = [range_dims(self.computed_tiles, 0, mapped)]
        self.further: list[isl.UnionMap] = ([range_dims(self.computed_tiles, mapped, tiles - mapped)]
                                            if tiles > mapped else [])
        self.domains: list[isl.UnionSet] = [self.computed]

    def without_copies_apart(self) -> None:
        """Make the tree's statements again, the copies of shared tiles in loops in every tile (the AST
        of the copies apart went past its bound): the same statements as before they were set apart."""
        self.apart = False
        self._spec = None
        self.copies.clear()
        self.kinds.clear()
        self._computations_only()

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
    def _statement(self, name: str, payload, domain: isl.Set, ahead: bool = False) -> isl.Set:
        """``domain`` (on the tile coordinates, then the statement's own) as statement ``name``; ``ahead``:
        run one step of the innermost further tile early (the copy-in of a tile with two buffers)."""
        # a name alone (set_tuple_name; islpy's isl.Id always carries an object): an id carrying one
        # hashes by its address, and isl orders some unions by hash, so the output could change from
        # run to run
        domain = coalesced(domain.set_tuple_name(name))
        self.kinds[name] = payload
        tiles = self.tiling.tiles
        width = min(tiles, domain.dim(isl.dim_type.set))
        self.domains.append(isl.UnionSet.from_set(domain))
        self.outer.append(isl.UnionMap.from_map(coordinates(domain, 0, self.tiling.mapped)))
        if self.further and width == tiles:
            further = coordinates(domain, self.tiling.mapped, tiles - self.tiling.mapped)
            if ahead:
                further = further.apply_range(shift(further.get_space().range(), tiles - self.tiling.mapped - 1, -1))
            self.further.append(isl.UnionMap.from_map(further))
        return domain

    def barrier(self, name: str, inside: bool, ahead: bool = False) -> isl.UnionSet:
        """A barrier for each tile (of the further tiles too when ``inside``), and where ``ahead`` for each
        step whose copies run ahead (the one before a tile's)."""
        tiles = self.tiles if inside else self.mapped_tiles
        if ahead:
            tiles = coalesced(tiles.union(tiles.apply(shift(tiles.get_space(), self.tiling.tiles - 1, -1))))
        return isl.UnionSet.from_set(self._statement(name, Barrier(), tiles))

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
        points = range_dims(self.tiling.to_points.intersect_domain(domain), 0, mapped)
        present = range_dims(self.tiling.to_tiles.intersect_domain(domain), 0, mapped).flat_range_product(points)
        present = isl.Set.from_union_set(present.range())
        present = present.align_params(with_params(present.get_space(), self.kernel.thread_params))
        if most_divs(isl.UnionSet.from_set(present)) > FULL_TILES_EXISTENTIALS:
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
        return most_divs(domain) + path_divs(root)

    def check_existentials(self) -> None:
        """Raises :class:`TooCostly` where a piece of the schedule of a statement may have more than
        TREE_EXISTENTIALS existential variables (:meth:`existentials`): its AST is not tried."""
        existentials = self.existentials()
        if existentials > TREE_EXISTENTIALS:
            raise TooCostly(f"the kernel's AST with its data promoted was not tried: the schedule of a statement "
                            f"has up to {existentials} existential variables, more than {TREE_EXISTENTIALS}",
                            self.vectors())

    def tree(self, separate: frozenset = frozenset(), isolate: frozenset = frozenset()) -> isl.Schedule:
        """The kernel's schedule tree, its loops at the schedule depths in ``separate`` in isl's
        default form, the others atomic, and the instances its bands set apart (tree_spec.Apart) of
        the kinds in ``isolate`` generated apart (the statements and their indices are computed once,
        for every form asked)."""
        if self._spec is None:
            self._spec = self._shape()
        domain, root = self._spec
        schedule = isl.Schedule.from_domain(domain)
        return grow(schedule.get_root().child(0), root, separate, isolate).get_schedule()

    def vector_copies(self) -> tuple[tuple[str, bool, int], ...]:
        """(group, into, width) of each copy of the tree that moves vectors, in order."""
        return tuple(sorted({(k.group.name, k.into, k.width) for k in self.kinds.values()
                             if isinstance(k, Copy) and k.width > 1}))

    def copies_apart(self) -> tuple[tuple[str, bool, int], ...]:
        """(group, into, instances a thread runs of a full tile) of each copy of the tree whose full
        tiles are apart and unrolled, in order."""
        return tuple(sorted({(k.group.name, k.into, k.apart) for k in self.kinds.values()
                             if isinstance(k, Copy) and k.apart}))

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
        if self.kernel.register_tile:
            band = self._register_tile_band(points)
        else:
            band = ("band", points, tiles, [], None)
        compute = ("filter", threads, band)
        # the computations' own existential variables bound the tree's from below (existentials): past
        # TREE_EXISTENTIALS, the register copies (whose slots over wrapped blocks took differential
        # program 1516 of seed 6 17 s of isl's work outside its operation count) are not built in vain
        least = most_divs(self.computed) + path_divs(compute)
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

        # the copies of tiles with two buffers first, each a step ahead (the next tile's, while this one
        # is computed: the barrier after the computations separates both from what follows), then the others
        ahead = [made for group in self.shared if group.buffers > 1
                 for made in self.shared_copy(group, True, name("shared_in"))]
        copied = [made for group in self.shared if group.buffers == 1
                  for made in self.shared_copy(group, True, name("shared_in"))]
        inner += ahead + copied
        # (with copies ahead, every barrier of the step runs at the step before the first tile too: isl
        # then puts none under a condition with an else, which the printer cannot take a barrier out of)
        if copied:
            inner.append((self.barrier(name("barrier"), True, bool(ahead)), None))
        if registers_inner:
            inner += private_copies(True, tiles) + [(self.computed, compute)] + private_copies(False, tiles)
        else:
            inner.append((self.computed, compute))
        if self.shared:
            inner.append((self.barrier(name("barrier"), True, bool(ahead)), None))
            written = [made for g in self.shared if g.writes for made in self.shared_copy(g, False, name("shared_out"))]
            if written:
                inner += written + [(self.barrier(name("barrier"), True, bool(ahead)), None)]
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

    def _register_tile_band(self, points: isl.UnionMap) -> tuple:
        """The spec of the computations' bands where a thread runs a register tile: the loops of the
        schedule ``points`` but the mapped ones, then (under a :class:`RegisterSlots` mark) a loop over
        the thread's slots of each mapped member, innermost (unroll-and-jam: see _slots_innermost).
        A slot is k = (p - t) / B, the point p = t + B k: its loop runs over the constants 0 .. S - 1,
        the register arrays' own indices (the loop over the points from t by B has a trip count that
        depends on the thread, and no device compiler unrolls it into constant indices, which keep
        the arrays out of a stack frame).  The printer has the device compiler unroll them
        (:meth:`~polypragma.codegen.printer.CFamilyPrinter.whole_loop`): isl's unrolling of them took
        a quarter of gemm's GPU stage for cuda (1.55 s against 1.15 s).  Without unrolling
        (KernelMemory.unroll), one band of the points, the mapped ones innermost."""
        tiling, kernel = self.tiling, self.kernel
        mapped, tiles = tiling.mapped, tiling.tiles
        points, positions = _slots_innermost(points, mapped)
        # (full tiles apart only where a tiled loop runs inside the points: see kernel_ast.tiled_kernel_ast)
        full = self.full_tiles() if kernel.sequential and not self.padded else None
        apart = Apart(full, [], FULL_TILES) if full is not None else None
        if not self.memory.unroll:
            # the loops over the points as isl builds them (k5 from t0 by 16), for OpenCL: PoCL's default
            # work-group method gave wrong addresses for the loops over slots of nussinov's kernel with
            # --tile-size 7,8 --block-size 2,4 (a crash; right with -cl-opt-disable, and with workitemrepl)
            return ("band", points, tiles, [], None, apart)
        space = with_params(isl.Set.from_union_set(points.range()).get_space(), kernel.thread_params)
        local = isl.LocalSpace.from_space(space)
        on_slots = isl.MultiAff.identity(space.map_from_set())
        for d, position in enumerate(positions):
            point = isl.Aff.var_on_domain(local, isl.dim_type.set, position)
            thread = isl.Aff.var_on_domain(local, isl.dim_type.param,
                                           space.find_dim_by_name(isl.dim_type.param, kernel.thread_params[d]))
            block = isl.Val(kernel.sizes.block[d], context=self.ctx)
            on_slots = on_slots.set_aff(position, point.sub(thread).scale_down_val(block).floor())
        points = points.apply_range(isl.UnionMap.from_map(isl.Map.from_multi_aff(on_slots)))
        first = tiles + positions.start
        slots = ("mark", RegisterSlots(first, kernel.sizes.thread_points),
                 ("band", range_dims(points, positions.start, mapped), first, [], None))
        if not positions.start:
            return slots
        return ("band", range_dims(points, 0, positions.start), tiles, [], slots, apart)

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
                    if group.buffers > 1:  # (its buffer: the parity of the instance's tile, as _parity says)
                        parity = self._parity(space).pullback_pw_multi_aff(tile)
                        index = isl.PwMultiAff.from_pw_aff(parity.align_params(element.get_space()))
                    for d in range(element.dim(isl.dim_type.out)):
                        offset = on_tiles(group.offsets[d], self.memory.tile_params, space)
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


def _slots_innermost(points: isl.UnionMap, mapped: int) -> tuple[isl.UnionMap, range]:
    """The compute band's schedule ``points`` ([p_0 .. p_{mapped-1}, the rest]) with the points of the
    mapped loops moved innermost (unroll-and-jam: the thread's points form a register tile inside each
    step of the sequential loops), and the positions they now have.  Legal because every dependence of
    the kernel joins instances with the same values of the mapped loops (checked when the kernel was
    mapped): a member along which all distances are zero may move to any depth."""
    n = isl.Set.from_union_set(points.range()).dim(isl.dim_type.set)
    return permuted_range(points, list(range(mapped, n)) + list(range(mapped))), range(n - mapped, n)


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
