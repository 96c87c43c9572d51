"""One isl AST per kernel whose data is promoted (PPCG, TACO 2013, section 7): isl builds it from the
kernel's schedule tree (:mod:`polypragma.codegen.kernel_tree`, with the copies of the promoted groups and
the barriers as statements next to the computations) within a bound of operations, and where each
statement stands every index it needs (of shared tiles, register slots and global buffers), so that isl
simplifies them; a kernel whose AST costs too much keeps its data in global memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import islpy as isl

from polypragma import timing
from polypragma.codegen.ast_build import CallbackFailures, ast_builder, strided_dimensions
from polypragma.codegen.copy_statements import Copy
from polypragma.codegen.kernel_tree import Barrier, KernelTree, TooCostly, global_references
from polypragma.codegen.tree_spec import FULL_COPIES, FULL_TILES
from polypragma.gpu.memory import KernelMemory, Placement
from polypragma.gpu.region import GpuRegion, PartialTiles
from polypragma.isl_helpers import bounded_operations, coalesced, common_piece, out_of_operations
from polypragma.model import Scop

# isl operations each form of a kernel's AST may take (the atomic form, then the default one where
# the atomic form's loops are strided); past it, the kernel is built with its data in global memory.
# The tree of a kernel with promoted data holds every statement's whole domain, where the stitched
# ASTs it replaced saw one tile at a time (with the tile's coordinates as parameters): control_flow's
# kernel took 24 s in three builds
TREE_OPERATIONS = 1_500_000
# ... per four points a thread has in its register tile (past four), times the statements of the
# deepest loops where its partial tiles are padded: isl unrolls the tile's copies to and from
# registers, and before the loops over slots (RegisterSlots) were left to the device compiler it
# unrolled the computations too, at a cost that grew with its points (gemm's kernel with a 4x4
# register tile took between 4 and 6 million operations, 1.4 s) and with the statements each step of
# the deepest loops runs at every point (a similarity's three sums in one loop of k with a 2x2
# register tile, 0.8 s within 3 million)
TILE_POINTS_PER_BOUND = 4


@dataclass(frozen=True, eq=False)
class CopyIndices:
    """Where a copy statement stands: the indices of the promoted array and of the global element."""

    copy: Copy
    local: tuple[isl.AstExpr, ...]
    element: tuple[isl.AstExpr, ...]


@dataclass(frozen=True, eq=False)
class PromotedReferences:
    """Where a computation stands: the index of each reference whose element isl knows, by its C node:
    in a promoted group, or (group None) in the global buffer (its coordinates)."""

    indices: dict = field(default_factory=dict)  # id(c_ast node) -> (Group | None, tuple[isl.AstExpr, ...])


class StatementIndices:
    """The at-each-domain callback of a kernel's AST build: the indices each statement needs (of its
    references, and for a copy of both sides), built by isl where the statement stands, as the user
    node's annotation (a :class:`CopyIndices` or :class:`PromotedReferences`; a :class:`Barrier` for a
    barrier).  ``builder`` is the
    tree's builder of a kernel with promoted data, None for a kernel without."""

    def __init__(self, scop: Scop, builder: KernelTree | None = None, prefix: str = ""):
        self.scop = scop
        self.builder = builder
        # the iterator of the loop over the innermost tile in sequence (see _buffered)
        self.innermost_tile = f"{prefix}{builder.tiling.tiles - 1}" if builder is not None else ""
        self._global: dict[str, list] = {}

    def references(self, statement: str) -> list:
        if self.builder is not None:
            return self.builder.references(statement)
        if statement not in self._global:
            self._global[statement] = global_references(self.scop, statement)
        return self._global[statement]

    def __call__(self, node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        name = node.user_get_expr().get_op_arg(0).get_id().get_name()
        kind = self.builder.kinds.get(name) if self.builder is not None else None
        if isinstance(kind, Barrier):
            annotation = kind
        elif isinstance(kind, Copy):
            at = isl.PwMultiAff.from_map(isl.Map.from_union_map(build.get_schedule()).reverse())
            local, element = self.builder.copies[name]
            annotation = CopyIndices(kind, self._buffered(kind.group, _exprs(local.pullback_pw_multi_aff(at), build), build,
                                                          kind.ahead),
                                     _exprs(element.pullback_pw_multi_aff(at), build))
        else:
            at = isl.PwMultiAff.from_map(isl.Map.from_union_map(build.get_schedule()).reverse())
            references = self.references(name)
            if not references:
                return node
            indices = {}
            for ref, group, index in references:
                pulled = index.pullback_pw_multi_aff(at)
                # a reference to global memory whose element is a piecewise function of the loops
                # (a skewed schedule's) keeps its subscripts as written: isl's expressions of such
                # pieces took 2 s of seidel_2d's compilation, for a select no reader wants
                if group is not None or pulled.n_piece() == 1:
                    indices[id(ref.node)] = (group, self._buffered(group, _exprs(pulled, build), build))
            annotation = PromotedReferences(indices)
        return node.set_annotation(isl.Id("indices", user=annotation, context=node.get_ctx()))

    def _buffered(self, group, exprs: tuple, build: isl.AstBuild, ahead: bool = False) -> tuple:
        """``exprs``, the index of ``group``'s shared array, with its buffer (where the tile has two, its
        first index) as the parity of the loop over the innermost tile in sequence (plus one for a copy
        run ahead): the same value as the index's own, which isl writes in terms of the instance's tile
        (``k2 - 2 * ((32 * k2 + k3) / 64)``), a division at each access."""
        if group is None or group.buffers == 1:
            return exprs
        space = build.get_schedule_space()
        # (the schedule's dimensions where the statement stands, those isl's build keeps: a loop of one
        # iteration may have none, and then the index keeps isl's own buffer)
        position = space.find_dim_by_name(isl.dim_type.set, self.innermost_tile)
        if position < 0:
            return exprs
        loop = isl.Aff.var_on_domain(isl.LocalSpace.from_space(space), isl.dim_type.set, position)
        if ahead:
            loop = loop.add_constant_val(isl.Val.one(space.get_ctx()))
        parity = isl.PwAff.from_aff(loop).mod_val(isl.Val(group.buffers, context=space.get_ctx()))
        return (build.expr_from_pw_aff(parity),) + exprs[1:]


def _exprs(pulled: isl.PwMultiAff, build: isl.AstBuild) -> tuple[isl.AstExpr, ...]:
    return tuple(build.expr_from_pw_aff(_one_expression(coalesced(pulled.get_pw_aff(d))))
                 for d in range(pulled.dim(isl.dim_type.out)))


def _one_expression(index: isl.PwAff) -> isl.PwAff:
    """``index`` as one affine expression on every point when all its pieces have the same one: the
    index is asked for where the statement runs, inside the pieces, and isl's expression of a piece
    whose domain is a union of many disjuncts with divisions (a register tile's slots over strided
    tiles) took it up to 31 s for the constant 1 (program 294 of the differential test's seed 6,
    opencl --fusion=min --block-size 5: more than five minutes in all)."""
    shared = common_piece(index)
    return isl.PwAff.from_aff(shared) if shared is not None else index


def with_kernel_asts(region: GpuRegion, registers_across_barriers: bool) -> GpuRegion:
    """``region`` with the AST of each kernel with promoted data (:func:`tiled_kernel_ast`); a kernel
    whose AST exceeds its bound has its data in global memory instead, the reason on each group."""
    memory, built = [], []
    for kernel_memory in region.memory:
        made = None
        if kernel_memory.tiled:
            with timing.part(f"kernel {kernel_memory.kernel.index}: the AST with its promoted data") as part:
                tries = [kernel_memory, replace(kernel_memory, vector_copies=False)] if kernel_memory.vector_copies \
                    else [kernel_memory]
                for k, placed in enumerate(tries):
                    try:
                        made = tiled_kernel_ast(region.scop, placed, region.names.kernel, registers_across_barriers)
                        kernel_memory = placed
                        break
                    except TooCostly as exc:
                        if k + 1 < len(tries) and exc.vectors:
                            # (the copies' vectors add statements to the tree: without them, it may fit)
                            part.label += ", without vector copies"
                            continue
                        kernel_memory = placed.in_global_memory(str(exc))
                        # (the time spent in vain: the kernel's AST is built again, with its data in global memory)
                        part.label += ", given up: its data stays in global memory"
                        break
        memory.append(kernel_memory)
        built.append(made or KernelAst(None, PartialTiles.GUARDED))
    asts = [b.ast for b in built]
    unused = _registers_only(region, memory, asts, registers_across_barriers)
    return replace(region, memory=tuple(memory), kernel_asts=tuple(asts),
                   partial_tiles=tuple(b.partial for b in built), guarded=tuple(b.guarded for b in built),
                   vector_copies=tuple(b.vectors for b in built), copies_apart=tuple(b.copies_apart for b in built),
                   arrays=tuple(a for a in region.arrays if a.name not in unused), registers_only=tuple(sorted(unused)))


def _registers_only(region: GpuRegion, memory: list[KernelMemory], asts: list, registers_across_barriers: bool) \
        -> set[str]:
    """The privatised copies (device only, one kernel's) that live in registers all along: in the kernel
    that uses them, every group in registers declared once for the kernel's tiles (the copies of such a
    group are none: KernelTree.private_copy), so no code reaches their buffer, which is not allocated."""
    out = set()
    for array in region.arrays:
        if not (array.local and array.private_copy):
            continue
        kept = True
        for kernel_memory, ast in zip(memory, asts):
            groups = [g for g in kernel_memory.groups if g.array.name == array.name]
            if not groups:
                continue
            if ast is None or not kernel_memory.registers_outside(registers_across_barriers) or any(
                    g.placement is not Placement.PRIVATE for g in groups):
                kept = False
        if kept:
            out.add(array.name)
    return out


@dataclass(frozen=True)
class KernelAst:
    """A kernel's AST with its promoted data; how it runs the partial tiles of a register tile; its
    copies that move vectors (:meth:`KernelTree.vector_copies`); the statements of a padded kernel
    left with their guards (:meth:`KernelTree._pad`); and its copies whose full tiles are apart."""

    ast: isl.AstNode | None
    partial: PartialTiles
    vectors: tuple = ()
    guarded: tuple[str, ...] = ()
    copies_apart: tuple[tuple[str, bool, int], ...] = ()  # KernelTree.copies_apart, where built so


def tiled_kernel_ast(scop: Scop, memory: KernelMemory, prefix: str,
                     registers_across_barriers: bool) -> KernelAst:
    """The AST of a kernel with promoted data (see kernel_tree's docstring); loops over the tiles
    and the copies are atomic (one loop each, guards inside), except where isl's atomic form would
    be wrong (a strided loop, as for :func:`polypragma.codegen.ast_build.build_kernel_ast`) or
    fails otherwise than by its bound: then isl's default form.  Both within TREE_OPERATIONS isl
    operations (a multiple of it for a register tile of more than TILE_POINTS_PER_BOUND points a
    thread, and statement of the deepest loops where its tiles are padded), past which
    :class:`TooCostly` is raised, and neither tried where a statement's schedule has more than
    TREE_EXISTENTIALS existential variables.  Where a tiled loop runs inside a register tile's points,
    its partial tiles are computed whole where that is safe (:mod:`polypragma.codegen.padded_tiles`),
    or else its full tiles are first generated apart (:meth:`KernelTree.full_tiles`), within the
    bound.  The copies of shared tiles are first built with their full tiles apart and unrolled
    (copy_statements.MAX_UNROLLED_COPIES), and without where that goes past the bound."""
    kernel = memory.kernel
    ctx = kernel.domain.get_ctx()
    builder = KernelTree(scop, memory, registers_across_barriers)
    points = math.prod(kernel.sizes.thread_points)
    if kernel.register_tile:
        # (the statements count where the tiles are padded: there every one is a box, unrolled alike)
        unrolled = points * (len(builder.deepest) if builder.padded else 1)
        bound = TREE_OPERATIONS * max(1, unrolled // TILE_POINTS_PER_BOUND)
    else:
        bound = TREE_OPERATIONS
    def statements() -> None:
        try:
            with bounded_operations(ctx, bound):
                # the tree's statements, computed here within the first build's bound, are those it takes
                builder.check_existentials()
        except isl.Error as exc:
            # statements past the bound already: each build would compute them again within it, then go
            # into an AST no bound stops (differential program 2363 of seed 6, opencl --fusion=min
            # --max-shared-memory 512 --block-size 7,8: its statements past the bound after 8 s, then
            # isl's AST build for more than five minutes)
            if out_of_operations(exc):
                raise TooCostly(f"the kernel's AST with its data promoted was not tried: its statements alone "
                                f"took more than its bound of {bound} isl operations", builder.vectors()) from None

    def without_copies_apart() -> None:
        # the tree's statements made again, and checked as the first ones were: past TREE_EXISTENTIALS,
        # isl's build goes past any bound (control_flow's second kernel with --tile-size 7,8
        # --block-size 2,4: 92 s)
        builder.without_copies_apart()
        statements()

    try:
        statements()
    except TooCostly:
        if not builder.apart:
            raise
        # (the copies apart add statements and existential variables: without them, the tree may fit)
        without_copies_apart()
    steps = kernel.mapping_steps | builder.copy_steps()
    guarded = PartialTiles.PADDED if builder.padded else PartialTiles.GUARDED
    # the copies of shared tiles with their full tiles apart first, in each form (the tree's copy bands
    # set them apart while builder.apart: FULL_COPIES is always isolated); where a form fails with them
    # (past the bound, mostly), the tree is made without them, for that form and the next ones

    def made(ast: isl.AstNode, partial: PartialTiles) -> KernelAst:
        return KernelAst(ast, partial, builder.vector_copies(), builder.guarded, builder.copies_apart())

    def attempt(form) -> KernelAst | None:
        """``form()`` within the bound, then, where it failed with copies apart, without them; the
        errors of the last try raised."""
        try:
            with bounded_operations(ctx, bound):
                return form()
        except isl.Error:
            if not builder.copies_apart():
                raise
            without_copies_apart()
        with bounded_operations(ctx, bound):
            return form()

    if kernel.register_tile and kernel.sequential and not builder.padded:
        # full tiles apart first (where a tiled loop runs inside the thread's points: the guards would
        # be tested at each of its steps), within the bound: where the partial tiles have many shapes
        # (a triangular domain's), or isl could not find the full ones, the kernel is built without.
        # Where the copies apart take it past the bound, the full tiles are not tried without them: in
        # the corpus, those that do not fit with them (doitgen's, symm's) do not without them either
        try:
            with bounded_operations(ctx, bound):
                if builder.full_tiles() is not None:
                    ast = _build(builder, prefix, frozenset(), {FULL_TILES})
                    if not strided_dimensions(ast, prefix, steps):
                        return made(ast, PartialTiles.APART)
        except isl.Error:
            if builder.copies_apart():
                without_copies_apart()

    def atomic() -> KernelAst | None:
        ast = _build(builder, prefix, frozenset())
        strided = frozenset(strided_dimensions(ast, prefix, steps))
        if not strided:
            return made(ast, guarded)
        ast = _build(builder, prefix, strided)
        if not frozenset(strided_dimensions(ast, prefix, steps)) - strided:
            return made(ast, guarded)
        return None

    try:
        found = attempt(atomic)
        if found is not None:
            return found
    except isl.Error as exc:
        # past its bound in the atomic form, the default form is not tried: in the corpus it came in
        # within the same bound for two kernels (strides and jagged_rows with --tile-size 7,8
        # --block-size 2,4; not within half of it) and did not for the nine others, in every form
        # and size, each 0.4-1.1 s of compilation in vain; it is kept for the atomic form's strided
        # loops and its other failures
        if out_of_operations(exc):
            raise TooCostly(f"the kernel's AST with its data promoted exceeded its bound of {bound} isl "
                            "operations", builder.vectors()) from None
    try:
        return attempt(lambda: made(_build(builder, prefix, frozenset(range(64))), guarded))
    except isl.Error:
        raise TooCostly(f"the kernel's AST with its data promoted exceeded its bound of {bound} isl "
                        "operations", builder.vectors()) from None


def _build(builder: KernelTree, prefix: str, separate: frozenset, isolate=frozenset()) -> isl.AstNode:
    """The kernel's AST, its loops at the depths in ``separate`` in isl's default form, its full tiles
    of the copies apart (where the tree has them) and of the kinds in ``isolate``."""
    tree = builder.tree(separate, frozenset(isolate) | {FULL_COPIES})
    kernel = builder.kernel
    context = kernel.context.align_params(tree.get_domain().get_space())
    build = ast_builder(context, prefix)
    failures = CallbackFailures()
    # islpy returns the callback's lifetime handle with the build; keep it alive while building
    build, _handle = build.set_at_each_domain(failures.kept(StatementIndices(builder.scop, builder, prefix)))
    # statements at the same point of the tile loops stay in one part of the AST: otherwise isl may
    # generate them apart (where a tile loop has one iteration), each under its own copy of the mark
    # that declares the register arrays
    ctx = kernel.domain.get_ctx()
    grouped = ctx.get_ast_build_group_coscheduled()
    ctx.set_ast_build_group_coscheduled(1)
    try:
        ast = build.node_from_schedule(tree)
    finally:
        ctx.set_ast_build_group_coscheduled(grouped)
    failures.raise_first()
    return ast
