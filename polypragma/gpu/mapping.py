"""Host/kernel split and the mapping of kernels onto blocks and threads.

Host/kernel split (PPCG, TACO 2013, section 6): walking the schedule tree
(its parallel bands first distributed over their nests, :mod:`polypragma.gpu.distribute`, or joined
with their one nest, :mod:`polypragma.gpu.extend`) from the root, the first band whose outermost
member is coincident starts a kernel (which may map the reduction loops inside its parallel ones too,
:mod:`polypragma.gpu.spread`); non-coincident leading members of a band stay on the host (the band
is split).  A subtree without any coincident member runs as a one-thread
kernel, so that data stays on the device.  Each kernel is marked in the tree
with a ``kernel`` mark whose id carries a :class:`KernelMark` (as PPCG's ids
carry the kernel); band members above it are made atomic so the host AST
holds one launch per kernel.

Mapping: the kernel's leading coincident members (at most three) are tiled.
Tile ``g = floor((x - min) / T)`` and point ``p = (x - min) mod T`` replace
member ``x``.  Blocks wrap around the tiles and threads around the points as
in PPCG: block ``b`` runs the tiles with ``g = b (mod G)``, thread ``t`` the
points with ``p = t (mod B)``.  These congruences are constraints on the
kernel's schedule with ``b`` and ``t`` as parameters, so isl's AST generator
writes the strided loops, and any tile, block and grid size is correct.
Where the tiles along a member are never more than ``G`` (their count at most
``G`` for every value the parameters' C types allow) and a thread runs one point
of a tile along it, block ``b`` runs tile ``g = b`` alone: no loop wraps, and the kernel's sets need no existential
variable for it, which isl's AST generation pays for in every statement.
By default the innermost mapped member goes to ``x``; :mod:`polypragma.gpu.cost` may choose another
order of the mapped members (``order``), so that the member along which a warp's accesses are
coalesced goes to ``x`` while the band's loops inside each thread keep their order: the block- and
thread-level schedules are the band's members permuted, the sequential schedule below them is not.

In a kernel, every dependence between two instances has equal values of the
mapped members (they are coincident), so all of them stay within one thread:
no barrier is needed between the mapped loops and what they enclose.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import islpy as isl

from polypragma import timing
from polypragma.gpu.distribute import MAPPED, distributed, leading_coincident, statement_names
from polypragma.gpu.extend import extended
from polypragma.gpu.fuse import Fusion, fused, fused_statements
from polypragma.gpu.siblings import merged_siblings
from polypragma.gpu.spread import merged, spread_band
from polypragma.gpu.names import IteratorNames
from polypragma.reductions import Reduction, ReductionDependences, parallel_members, statements_carried
from polypragma.gpu.sizes import GRID_X, MAX_REGISTERS, KernelSizes, SizeOptions
from polypragma.isl_helpers import (any_band, coalesced, maps_of, most_of, parameter, permuted_range, set_named,
                                     sets_of, variable, with_params)


@dataclass(frozen=True)
class KernelMark:
    """The object a kernel's mark id carries (``isl.Id("kernel", user=KernelMark(k))``): which kernel
    the marked subtree is, read back with :func:`kernel_mark` rather than parsed from the id's name."""

    index: int


def kernel_mark(id_: isl.Id) -> KernelMark | None:
    """The kernel a mark's id (or the host AST's call made from it) stands for; None for another id."""
    user = id_.get_user()
    return user if isinstance(user, KernelMark) else None



@dataclass(frozen=True)
class Tiling:
    """The kernel's band tiled for memory promotion (PPCG, TACO 2013, section 6.3).

    Tile dimensions: the ``mapped`` members, then the further members of a permutable band
    (tiled by ``KernelSizes.sequential_tiles``, :data:`~polypragma.gpu.sizes.SEQUENTIAL_TILE` each by
    default; they run in sequence inside the kernel).  Instances with
    the same tile coordinates form one tile of work of one block; data is copied to shared memory
    per tile, and to registers per tile of the mapped members.  Block and thread congruences
    (``g_d = b_d mod G_d``, ``p_d = t_d mod B_d``, d < mapped) are separate sets on the two spaces,
    so that loops over tiles can be generated without them depending on the thread.
    """

    mapped: int
    tiles: int  # number of tile dimensions (mapped + sequential)
    to_tiles: isl.UnionMap  # instance -> [g_0 .. g_{tiles-1}]
    to_points: isl.UnionMap  # instance -> [p_0 .. p_{tiles-1}, deeper schedule dimensions ...]
    block_congruence: isl.Set  # on the tile space
    thread_congruence: isl.Set  # on the point space
    tile_sizes: tuple[int, ...]


# the most blocks a kernel wraps its tiles around along one member, where the grid is larger (the default
# along x, GRID_X): beyond it, isl's expressions of the wrapped loops have coefficients whose products
# leave even ``long long`` (polypragma.codegen.overflow)
MOST_WRAPPED = 65535


@dataclass(frozen=True)
class Kernel:
    index: int
    host_depth: int  # number of host loop dimensions around the kernel
    host_params: tuple[str, ...]  # names of those dimensions inside the kernel (h0, h1, ...)
    domain: isl.UnionSet  # instances, with the host dimensions as parameters
    schedule: isl.UnionMap  # instances -> [tiles..., points..., rest...], with block/thread congruences
    mapped: int  # number of mapped members (0: one thread)
    sizes: KernelSizes
    block_params: tuple[str, ...]  # parameter names of the block ids, one per mapped member (x last)
    thread_params: tuple[str, ...]
    tile_counts: tuple[isl.PwAff, ...]  # tiles per mapped member, over parameters and host dimensions
    context: isl.Set  # parameters of the kernel AST: program parameters, host dims, block and thread ids
    statements: tuple[str, ...]
    host_schedule: isl.UnionMap  # instances -> [h0, h1, ...]: the host dimensions' values
    tiling: Tiling | None = None  # for memory promotion; None for one-thread kernels
    # reductions whose updates come from several threads (their dependences cross the mapped loops)
    reductions: tuple["KernelReduction", ...] = ()
    # the band member of each mapped dimension, outermost first (the last goes to x): the cost model's
    # choice (polypragma.gpu.cost); () for one-thread kernels
    order: tuple[int, ...] = ()
    # instances -> the band's members and the deeper schedule dimensions, in the band's order (before
    # tiling and ``order``): what the cost model counts on
    band: isl.UnionMap | None = None
    sequential: int = 0  # further members of a permutable band, tiled (sizes.sequential_tiles) for shared memory
    # the innermost mapped members (in the band's order) parallel only as reductions, mapped because the
    # parallel ones give too few threads (place_kernels, gpu/spread.py): their reductions' threads each
    # accumulate their run of updates of an element in a register
    spread: int = 0
    # the most blocks launched along each mapped member, outermost first: the tiles' count is cut to it
    # (sizes.grid, or MOST_WRAPPED where that is larger and the blocks wrap); () for one-thread kernels
    grid: tuple[int, ...] = ()
    # whether the blocks wrap around the tiles along each mapped member (block b runs the tiles g = b mod
    # grid); where not, block b runs tile b alone: its tiles are never more than the grid
    wrapped: tuple[bool, ...] = ()

    @property
    def mapping_steps(self) -> frozenset[int]:
        """The steps of the kernel's loops that wrap tiles around the grid and points around a block."""
        return frozenset(g for g, w in zip(self.grid, self.wrapped) if w) | frozenset(self.sizes.block)

    @property
    def register_tile(self) -> bool:
        """Whether a thread runs its points of the mapped loops innermost, inside each step of the
        loops they enclose (unroll-and-jam: a register tile), when the kernel's data is promoted: it
        has several, at most MAX_REGISTERS (user sizes may give a thread more, which it runs one after
        another), and no reduction whose threads combine their values (that code expects the
        thread's points outermost)."""
        points = self.sizes.thread_points
        return not self.reductions and any(n > 1 for n in points) and math.prod(points) <= MAX_REGISTERS

    def describe(self) -> str:
        if not self.mapped:
            return f"kernel {self.index}: one thread (no parallel loop), statements {', '.join(self.statements)}"
        return (f"kernel {self.index}: {self.mapped} parallel loop(s) mapped, tile {list(self.sizes.tile)}, "
                f"block {list(self.sizes.block)}, grid {list(self.grid)}, "
                f"statements {', '.join(self.statements)}")


@dataclass(frozen=True)
class KernelReduction:
    """A reduction of a kernel whose mapped loops carry its dependences.  ``element``: the coordinates
    of the one element all its updates of a launch go to, over the kernel's parameters (host dimensions
    included), when there is one: each thread then accumulates in a register and the block combines
    the threads' values before one atomic update per block; None: every update is atomic."""

    reduction: Reduction
    element: tuple[isl.PwAff, ...] | None
    # the values of the kernel's parameters (host dimensions included) for which the launch updates the
    # element: the block's one atomic update is made under them
    where: isl.Set | None = None
    # (element None) each thread accumulates its run of updates of one element in a register and merges
    # it into the element with one atomic update when its element changes and at its end: a reduction
    # spread over threads along its own loop (Kernel.spread), whose thread runs many updates of an element
    # one after another; False: every update is atomic
    runs: bool = False

    @property
    def accumulated(self) -> bool:
        return self.element is not None


@dataclass(frozen=True)
class GpuMapping:
    host_schedule: isl.Schedule  # with kernel marks
    kernels: tuple[Kernel, ...]
    # bands distributed over their nests (gpu/distribute.py): the statements of each nest, per band
    distributed: tuple[tuple[tuple[str, ...], ...], ...] = ()
    # bands joined with their nest's (gpu/extend.py): (the nest's statements, those before, those after)
    extended: tuple[tuple[tuple[str, ...], ...], ...] = ()
    # bands split so that their reductions spread (place_kernels): the statements of each kernel, per band
    isolated: tuple[tuple[tuple[str, ...], ...], ...] = ()
    # reductions fused over the array they read (gpu/fuse.py), with the statements that use it alike
    fused: tuple[Fusion, ...] = ()
    # independent parallel nests merged into one band (gpu/siblings.py): (each nest's statements, the
    # arrays they all read)
    merged: tuple[tuple[tuple[tuple[str, ...], ...], tuple[str, ...]], ...] = ()


def _has_coincident(node: isl.ScheduleNode) -> bool:
    return any_band(node, lambda n: any(n.band_member_get_coincident(k) for k in range(n.band_n_member())))


def place_kernels(schedule: isl.Schedule, reductions: ReductionDependences | None = None, spread=None,
                  isolated: list | None = None, fused: frozenset = frozenset()) \
        -> tuple[isl.Schedule, list[tuple[int, int, int]]]:
    """Insert kernel marks; return the schedule and, per kernel, (mark index, mapped members, members of
    them mapped to spread a reduction).

    With ``reductions``, a subtree without any coincident member, which would run on one thread, is
    mapped on the band members that carry no dependence but reduction ones (:mod:`polypragma.reductions`),
    the sequential members before them kept on the host; a subtree with a coincident member is mapped
    as without reductions (the sum stays in order in each thread, without atomics), unless its parallel
    members give too few threads to fill the device while the member right inside them is parallel as
    reductions of known elements, or of any elements under very few threads (a matrix-vector product, a
    histogram per row: :mod:`polypragma.gpu.spread`): it is mapped too.  ``spread(k,
    lead)``: whether kernel ``k``, whose band has ``lead`` parallel members, may map more (the user's sizes
    may say how many it maps); None: never.  Where other statements of the band keep its reductions' loop
    sequential (an initialisation, a use of the sum), the band is split into kernels first
    (:func:`polypragma.gpu.spread.spread_band`); the statements of each kernel of such a split are appended to
    ``isolated``.  A band of reductions fused over the array they read (:mod:`polypragma.gpu.fuse`; its
    statements one of ``fused``) spreads them along all its members."""
    kernels: list[tuple[int, int, int]] = []
    root = schedule.get_root()
    if root.n_children() == 0:
        return schedule, kernels

    def reduction_lead(node: isl.ScheduleNode) -> int:
        return parallel_members(node, reductions.coincidence) if reductions is not None else 0

    def has_parallel(node: isl.ScheduleNode) -> bool:
        if _has_coincident(node):
            return True
        if reductions is None:
            return False
        return any_band(node, lambda n: any(_member_parallel(n, k) for k in range(n.band_n_member())))

    def _member_parallel(node: isl.ScheduleNode, k: int) -> bool:
        """Member k, inside the members before it, parallel as a reduction."""
        if k == 0:
            return reduction_lead(node) > 0
        return reduction_lead(node.band_split(k).child(0)) > 0

    def mark(node: isl.ScheduleNode, mapped: int, extra: int = 0) -> isl.ScheduleNode:
        ctx = node.get_ctx()
        k = len(kernels)
        kernels.append((k, mapped, extra))
        node = node.insert_mark(isl.Id("kernel", user=KernelMark(k), context=ctx))
        return node

    def walk(node: isl.ScheduleNode) -> isl.ScheduleNode:
        kind = node.get_type()
        if kind in (isl.schedule_node_type.band,):
            if not has_parallel(node):
                return mark(node, 0)
            lead = leading_coincident(node)
            if lead:
                if lead < MAPPED and reductions is not None and spread is not None and spread(len(kernels), lead):
                    found = spread_band(node, lead, reduction_lead, reductions)
                    if found is not None:
                        node, extra, groups = found
                        if not groups:
                            return mark(node, lead + extra, extra)
                        if isolated is not None:
                            isolated.append(groups)
                        return walk(node)  # split: each part placed as it stands
                return mark(node, min(lead, MAPPED))
            # loops parallel only as reductions serve where no loop of the subtree is parallel (it would
            # run on one thread): a parallel loop keeps the sum in order in each thread, without atomics
            by_reduction = not _has_coincident(node)
            lead = min(reduction_lead(node), MAPPED) if by_reduction else 0
            if lead:
                node = merged(node, reduction_lead)
                lead = min(reduction_lead(node), MAPPED)
                for k in range(lead):
                    node = node.band_member_set_coincident(k, True)
                together = frozenset(statement_names(node.get_domain())) in fused
                return mark(node, lead, lead if together else 0)
            # keep the sequential leading members on the host
            host_members = 0
            while host_members < node.band_n_member() and not node.band_member_get_coincident(host_members) \
                    and not (by_reduction and _member_parallel(node, host_members)):
                host_members += 1
            if host_members < node.band_n_member():
                node = node.band_split(host_members)
            for k in range(node.band_n_member()):
                node = node.band_member_set_ast_loop_type(k, isl.ast_loop_type.atomic)
            node = walk(node.child(0))
            return node.parent()
        if kind == isl.schedule_node_type.leaf:
            return mark(node, 0)
        if kind in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
            if not has_parallel(node):
                return mark(node, 0)
            for k in range(node.n_children()):
                node = walk(node.child(k)).parent()
            return node
        if kind == isl.schedule_node_type.filter and not has_parallel(node):
            # a filter below a sequence: the kernel goes under it
            node = mark(node.child(0), 0)
            return node.parent()
        if node.n_children() == 0:
            return node
        return walk(node.child(0)).parent()

    root = walk(root.child(0)).parent()
    return root.get_schedule(), kernels


def _host_parameter_set(prefix: isl.UnionMap, names: list[str]) -> isl.UnionSet:
    """``{ [x0, ..] : x_j = h_j }`` in the range space of ``prefix``, with h_j as new parameters."""
    space = isl.Set.from_union_set(prefix.range()).get_space() if not prefix.range().is_empty() \
        else None
    if space is None:
        return prefix.range()
    n_params = space.dim(isl.dim_type.param)
    space = space.add_dims(isl.dim_type.param, len(names))
    for j, name in enumerate(names):
        space = space.set_dim_name(isl.dim_type.param, n_params + j, name)
    result = isl.Set.universe(space)
    local = isl.LocalSpace.from_space(space)
    for j in range(len(names)):
        c = isl.Constraint.equality_alloc(local)
        c = c.set_coefficient_val(isl.dim_type.set, j, isl.Val.one(space.get_ctx()))
        c = c.set_coefficient_val(isl.dim_type.param, n_params + j, isl.Val.negone(space.get_ctx()))
        result = result.add_constraint(c)
    return isl.UnionSet.from_set(result)


def _bound(hull: isl.Set, exact: isl.Set, d: int, optimum) -> isl.PwAff:
    """A bound of dimension ``d``: the tile origin needs only a lower bound and the tile count
    an upper bound, not the optimum.  The exact one (``dim_min``/``dim_max`` of the schedule's
    range) is a piecewise expression with a case and existential variables for every shape of
    the range: with strided loops whose start moves with an outer loop, the kernel schedule
    built on it made isl's AST generation take minutes.  The bound of the simple hull (one
    convex piece made of the pieces' own constraints; the polyhedral hull can take minutes to
    compute) is simple and usually the same number; the exact one serves where the hull is
    unbounded."""
    try:
        return optimum(hull, d)
    except isl.Error:  # unbounded: the union's pieces constrain different parameters
        return optimum(exact, d)


def _check_order(node: isl.ScheduleNode, mapped: int, order: tuple[int, ...]) -> None:
    """Any order of the mapped members is legal: they are coincident (place_kernels maps only
    coincident members, or members made coincident because they carry reductions only), so every
    dependence inside the kernel has distance zero along each of them (check_within_threads checks it
    for the kernel), and a permutation of zero distances leaves them zero: both ends of a dependence
    stay in one thread, in the order of the members below, which keep theirs.  Reduction updates that
    cross the threads are atomic or combined by the block, in any order.  Checked here."""
    if sorted(order) != list(range(mapped)):
        raise ValueError(f"order {list(order)} is not a permutation of the {mapped} mapped members")
    if order != tuple(range(mapped)) and not all(node.band_member_get_coincident(k) for k in range(mapped)):
        raise ValueError("only coincident band members may be permuted")


def build_kernel(node: isl.ScheduleNode, index: int, mapped: int, sizes: KernelSizes,
                 names: IteratorNames, context: isl.Set, order: tuple[int, ...] | None = None,
                 ranges: isl.Set | None = None) -> Kernel:
    """The kernel rooted at ``node`` (the child of its mark); ``order``: the band member of each mapped
    dimension (default: the band's order, the innermost mapped member on x); ``ranges``: the values the
    parameters may take (Scop.parameter_ranges; default ``context``), within which a member's tiles that
    are never more than its grid are run one a block, without wrapping."""
    order = tuple(range(mapped)) if order is None else tuple(order)
    if mapped:
        _check_order(node, mapped, order)
    ctx = node.get_ctx()
    depth = node.get_schedule_depth()
    host_params = [f"{names.host_dims}{j}" for j in range(depth)]
    domain = node.get_domain()
    prefix = node.get_prefix_schedule_union_map().intersect_domain(domain)
    if depth:
        kernel_domain = prefix.intersect_range(_host_parameter_set(prefix, host_params)).domain()
    else:
        kernel_domain = domain
    subtree = node.get_subtree_schedule_union_map().intersect_domain(kernel_domain)
    statements = sorted({m.get_tuple_name(isl.dim_type.in_) for m in maps_of(subtree)})
    block_params = [f"{names.block}{d}" for d in range(mapped)]
    thread_params = [f"{names.thread}{d}" for d in range(mapped)]
    kernel_context = context
    for name in host_params + block_params + thread_params:
        position = kernel_context.dim(isl.dim_type.param)
        kernel_context = kernel_context.add_dims(isl.dim_type.param, 1).set_dim_name(
            isl.dim_type.param, position, name)
    tile_counts: list[isl.PwAff] = []
    band_schedule = subtree
    if order != tuple(range(mapped)):
        subtree = permuted_range(subtree, order)
    schedule = subtree
    tiling = None
    sequential = 0
    if mapped:
        range_set = isl.Set.from_union_set(subtree.range())
        space = range_set.get_space()
        space = with_params(space, block_params + thread_params)
        n_dims = space.dim(isl.dim_type.set)
        local = isl.LocalSpace.from_space(space)
        pieces: list[isl.PwAff] = []
        points: list[isl.PwAff] = []
        hull = isl.Set.from_basic_set(range_set.simple_hull())
        for d in range(mapped):
            var = isl.PwAff.from_aff(isl.Aff.var_on_domain(local, isl.dim_type.set, d))
            low = _bound(hull, range_set, d, isl.Set.dim_min)
            high = _bound(hull, range_set, d, isl.Set.dim_max)
            tile = sizes.tile[d]
            lifted = low.add_dims(isl.dim_type.in_, n_dims)
            offset = var.sub(lifted)
            value = isl.Val(str(tile), context=ctx)
            pieces.append(offset.scale_down_val(value).floor())
            points.append(offset.mod_val(value))
            tile_counts.append(high.sub(low).scale_down_val(value).floor().add_constant_val(isl.Val.one(ctx)))
        instances = kernel_domain.params()
        instances = instances.intersect_params((context if ranges is None else ranges).align_params(
            instances.get_space()))
        # (where a thread runs several points of a tile along the loop, its register tile, isl's AST of the
        # kernel with promoted data went past its bound without the wrap: temporaries.c's first kernel with
        # --tile-size 7,8 --block-size 2,4 took 30 s to reach it, where it built in 3.4 s with the wrap)
        wrapped = tuple(points > 1 or not _at_most(count, instances, g)
                        for count, g, points in zip(tile_counts, sizes.grid, sizes.thread_points))
        grid = tuple(min(g, MOST_WRAPPED) if w and g == GRID_X else g for g, w in zip(sizes.grid, wrapped))
        rest = [isl.PwAff.from_aff(isl.Aff.var_on_domain(local, isl.dim_type.set, d)) for d in range(mapped, n_dims)]
        transform = None
        for pa in pieces + points + rest:
            piece = isl.Map.from_pw_aff(pa)
            transform = piece if transform is None else transform.flat_range_product(piece)
        assert transform is not None
        out_space = transform.range().get_space()
        out_local = isl.LocalSpace.from_space(out_space)
        for d in range(mapped):
            g = isl.PwAff.from_aff(isl.Aff.var_on_domain(out_local, isl.dim_type.set, d))
            p = isl.PwAff.from_aff(isl.Aff.var_on_domain(out_local, isl.dim_type.set, mapped + d))
            b = parameter(out_space, block_params[d])
            t = parameter(out_space, thread_params[d])
            block = isl.Val(str(sizes.block[d]), context=ctx)
            on_block = g.sub(b).mod_val(isl.Val(str(grid[d]), context=ctx)).zero_set() if wrapped[d] else g.eq_set(b)
            congruence = on_block.intersect(p.sub(t).mod_val(block).zero_set())
            transform = transform.intersect_range(congruence)
            zero = isl.PwAff.from_aff(isl.Aff.zero_on_domain(isl.LocalSpace.from_space(kernel_context.get_space())))
            bp = parameter(kernel_context.get_space(), block_params[d])
            tp = parameter(kernel_context.get_space(), thread_params[d])
            kernel_context = kernel_context.intersect(bp.ge_set(zero)).intersect(tp.ge_set(zero)).intersect(
                tp.lt_set(zero.add_constant_val(block)))
            if wrapped[d]:  # (elsewhere the block's tile, g = b, bounds it)
                kernel_context = kernel_context.intersect(bp.lt_set(zero.add_constant_val(
                    isl.Val(str(grid[d]), context=ctx))))
        schedule = subtree.apply_range(isl.UnionMap.from_map(transform))
        band = node.band_n_member() if node.get_type() == isl.schedule_node_type.band else 0
        sequential = band - mapped if band > mapped and node.band_get_permutable() else 0
        tiling = _tiling(subtree, hull, mapped, sequential, sizes, block_params, thread_params, grid, wrapped)
    else:
        grid, wrapped = (), ()
    return Kernel(index, depth, tuple(host_params), kernel_domain, schedule, mapped, sizes, tuple(block_params),
                  tuple(thread_params), tuple(tile_counts), coalesced(kernel_context), tuple(statements), prefix,
                  tiling, order=order if mapped else (), band=band_schedule if mapped else None, sequential=sequential,
                  grid=grid, wrapped=wrapped)


def _at_most(count: isl.PwAff, instances: isl.Set, most: int) -> bool:
    """Whether ``count`` (over the parameters) is at most ``most`` wherever the parameters are in
    ``instances``."""
    largest = most_of(count, instances)
    # (NaN where the kernel runs nowhere: its blocks then wrap as for any count)
    return largest.is_int() and largest.le(isl.Val(str(most), context=largest.get_ctx()))


def _tiling(subtree: isl.UnionMap, hull: isl.Set, mapped: int, sequential: int, sizes: KernelSizes,
            block_params: list[str], thread_params: list[str], grid: tuple[int, ...],
            wrapped: tuple[bool, ...]) -> Tiling:
    """The tiling for the memory analysis of the kernel of schedule ``subtree``; ``hull`` is the simple
    hull of its range, whose bounds are build_kernel's tile origins too; the blocks wrap around ``grid``
    along the members ``wrapped`` says, and run one tile each along the others."""
    range_set = isl.Set.from_union_set(subtree.range())
    space = range_set.get_space()
    n_dims = space.dim(isl.dim_type.set)
    local = isl.LocalSpace.from_space(space)
    ctx = space.get_ctx()
    tile_sizes = tuple(sizes.tile) + sizes.sequential_tiles(sequential)
    tiles: list[isl.PwAff] = []
    points: list[isl.PwAff] = []
    for d, size in enumerate(tile_sizes):
        var = isl.PwAff.from_aff(isl.Aff.var_on_domain(local, isl.dim_type.set, d))
        offset = var.sub(_bound(hull, range_set, d, isl.Set.dim_min).add_dims(isl.dim_type.in_, n_dims))
        value = isl.Val(str(size), context=ctx)
        tiles.append(offset.scale_down_val(value).floor())
        points.append(offset.mod_val(value))
    points += [isl.PwAff.from_aff(isl.Aff.var_on_domain(local, isl.dim_type.set, d))
               for d in range(len(tile_sizes), n_dims)]

    def product(pieces: list[isl.PwAff]) -> isl.Map:
        result = None
        for pa in pieces:
            piece = isl.Map.from_pw_aff(pa)
            result = piece if result is None else result.flat_range_product(piece)
        return result

    to_tiles = subtree.apply_range(isl.UnionMap.from_map(product(tiles)))
    to_points = subtree.apply_range(isl.UnionMap.from_map(product(points)))
    n_tiles, n_points = len(tiles), len(points)

    def congruence(n: int, params: list[str], moduli: tuple[int, ...], stem: str, wraps=None) -> isl.Set:
        """``[params] -> { [stem0, ..] : (stem_d - params_d) mod moduli_d = 0 }``, d < mapped (``stem_d =
        params_d`` where ``wraps`` says the d-th does not wrap)."""
        space = with_params(isl.Space.set_alloc(ctx, 0, n), params)
        for d in range(n):
            space = space.set_dim_name(isl.dim_type.set, d, f"{stem}{d}")
        result = isl.Set.universe(space)
        for d in range(mapped):
            difference = variable(space, isl.dim_type.set, d).sub(parameter(space, params[d]))
            if wraps is None or wraps[d]:
                result = result.intersect(difference.mod_val(isl.Val(moduli[d], context=ctx)).zero_set())
            else:
                result = result.intersect(difference.zero_set())
        return result

    return Tiling(mapped, n_tiles, to_tiles, to_points,
                  congruence(n_tiles, block_params, grid, "g", wrapped),
                  congruence(n_points, thread_params, sizes.block, "p"), tile_sizes)


class CrossThreadDependence(Exception):
    """A dependence between two threads of a kernel: it would need a barrier the mapping does not place."""


def check_within_threads(kernel: Kernel, node: isl.ScheduleNode, dependences: isl.UnionMap) -> None:
    """Every dependence between instances of ``kernel`` (for one host iteration) joins two
    instances with equal mapped loop values, so both run in the same thread and no barrier is
    needed; raise :class:`CrossThreadDependence` otherwise."""
    if not kernel.mapped:
        return
    domain = node.get_domain()
    prefix = node.get_prefix_schedule_union_map()
    same_host = prefix.apply_range(prefix.reverse())
    inside = dependences.intersect_domain(domain).intersect_range(domain).intersect(same_host)
    if inside.is_empty():
        return
    partial = node.band_get_partial_schedule()
    mapped = None
    for d in range(kernel.mapped):
        member = isl.UnionMap.from_union_pw_aff(partial.get_at(d))
        mapped = member if mapped is None else mapped.flat_range_product(member)
    distances = inside.apply_domain(mapped).apply_range(mapped).deltas()
    for s in sets_of(distances):
        zero = s
        for d in range(s.dim(isl.dim_type.set)):
            zero = zero.fix_val(isl.dim_type.set, d, isl.Val.zero(s.get_ctx()))
        if not s.is_subset(zero):
            raise CrossThreadDependence(f"kernel {kernel.index}: a dependence joins two threads")


def _kernel_nodes(marked: isl.Schedule) -> dict[int, isl.ScheduleNode]:
    """The root of each kernel of ``marked`` (the child of its mark), by index."""
    found: dict[int, isl.ScheduleNode] = {}

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark:
            mark = kernel_mark(node.mark_get_id())
            if mark is not None:
                found[mark.index] = node.child(0)
                return False
        return True

    marked.get_root().foreach_descendant_top_down(visit)
    return found


@timing.part("kernels placed and mapped onto blocks and threads")
def map_to_gpu(schedule: isl.Schedule, context: isl.Set, options: SizeOptions, names: IteratorNames,
               dependences: isl.UnionMap | None = None,
               reductions: ReductionDependences | None = None, ranges: isl.Set | None = None,
               reads: isl.UnionMap | None = None, writes: isl.UnionMap | None = None) -> GpuMapping:
    """The kernels of ``schedule`` placed and mapped onto blocks and threads (``ranges``: the values the
    parameters may take, see build_kernel; ``reads`` and ``writes``: the statements' accesses, with which
    reductions that read one array alike are fused, :mod:`polypragma.gpu.fuse`, and independent nests
    merged, :mod:`polypragma.gpu.siblings`)."""
    split, joined, isolated, together, siblings = [], [], [], [], []
    if reads is not None and writes is not None and reductions is not None and dependences is not None \
            and options.may_fuse:
        schedule = fused(schedule, reads, writes, dependences, reductions, together)
    if reads is not None and dependences is not None:
        schedule = merged_siblings(schedule, reads, dependences, siblings)
    marked, placed = place_kernels(extended(distributed(schedule, split), joined, dependences), reductions,
                                   options.may_spread, isolated, fused_statements(together))
    kernels: list[Kernel] = []
    found = _kernel_nodes(marked)
    for index, mapped, spread in placed:
        node = found[index]
        sizes = options.for_kernel(index, mapped)
        kernel = replace(build_kernel(node, index, mapped, sizes, names, context, ranges=ranges), spread=spread)
        if mapped and reductions is not None:
            kernel = _with_reductions(kernel, node, reductions)
        if dependences is not None:
            # the reduction dependences the mapped loops carry are the threads' atomic updates
            check_within_threads(kernel, node, reductions.coincidence if kernel.reductions else dependences)
        kernels.append(kernel)
    return GpuMapping(marked, tuple(kernels), tuple(split), tuple(joined), tuple(isolated), tuple(together),
                      tuple(siblings))


def _with_reductions(kernel: Kernel, node: isl.ScheduleNode, reductions: ReductionDependences) -> Kernel:
    """``kernel`` with the reductions its mapped loops carry, and for each the one element its
    updates go to in a launch, where there is one."""
    prefix = node.get_prefix_schedule_union_map()
    same_host = prefix.apply_range(prefix.reverse())
    carried = statements_carried(node, kernel.mapped, ReductionDependences(
        reductions.reductions, reductions.carried.intersect(same_host), reductions.coincidence), node.get_domain())
    out = []
    for r in carried:
        instances = set_named(kernel.domain, r.statement)
        touched = r.write.align_params(instances.get_space()).intersect_domain(instances).range()
        element = where = None
        # (a subscript on data: ``touched`` is every element the updates may reach, each atomic)
        if r.exact and not touched.is_empty() and touched.lexmin().is_equal(touched.lexmax()):
            low = touched.lexmin_pw_multi_aff()
            element = tuple(low.get_pw_aff(d) for d in range(low.dim(isl.dim_type.out)))
            where = touched.params()
        out.append(KernelReduction(r, element, where, runs=element is None and r.exact and kernel.spread > 0))
    return replace(kernel, reductions=tuple(out))


def resized(mapping: GpuMapping, kernel: Kernel, sizes: KernelSizes, names: IteratorNames,
            context: isl.Set, order: tuple[int, ...] | None = None, ranges: isl.Set | None = None) -> Kernel:
    """``kernel`` of ``mapping`` mapped again with other tile and block sizes (the same loops mapped), in
    ``order`` (default: the kernel's)."""
    node = _kernel_nodes(mapping.host_schedule)[kernel.index]
    order = kernel.order if order is None else order
    return replace(build_kernel(node, kernel.index, kernel.mapped, sizes, names, context, order, ranges),
                   reductions=kernel.reductions, spread=kernel.spread)
