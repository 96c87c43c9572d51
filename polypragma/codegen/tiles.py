"""The body of a kernel whose data is promoted to shared memory or registers.

The loops over tiles are generated apart from the threads' loops, so that every thread of a
block runs them alike and may meet barriers there (PPCG, TACO 2013, section 7)::

    for each tile of the mapped loops (wrapping around the grid):
      registers: declare, copy in                       (per thread)
      for each tile of the further band members:
        shared memory: copy in (x threads on consecutive elements); barrier
        the statements, with promoted references rewritten; barrier
        shared memory: copy out what was written; barrier
      registers: copy out what was written (then a barrier if shared memory follows)

Tile coordinates are constants of the inner ASTs (isl parameters named ``tile_params``).
"""

from __future__ import annotations

import islpy as isl

from polypragma.codegen.ast_build import build_kernel_ast
from polypragma.codegen.printer import CFamilyPrinter
from polypragma.gpu.data import DeviceArray
from polypragma.gpu.memory import Group, KernelMemory, Placement
from polypragma.isl_helpers import single_map as _single_map


class ArgumentPrinter(CFamilyPrinter):
    """Prints isl expressions whose identifiers stand for given C expressions."""

    def __init__(self, iterator_type: str, helpers: set[str]):
        super().__init__(iterator_type)
        self.helpers_used = helpers  # shared with the kernel printer
        self.values: dict[str, str] = {}

    def identifier(self, name: str) -> str:
        return self.values.get(name, name)


def affine_text(pa: isl.PwAff, values: list[str], printer: ArgumentPrinter, gist: isl.Set | None = None) -> str:
    """``pa`` as C, with its input dimensions replaced by the C expressions ``values``."""
    if gist is not None:
        pa = pa.gist(gist)
    n = pa.dim(isl.dim_type.in_)
    ctx = pa.get_ctx()
    for k in range(n):
        pa = pa.set_dim_id(isl.dim_type.in_, k, isl.Id(f"polypragma_arg{k}", context=ctx))
    pa = pa.move_dims(isl.dim_type.param, pa.dim(isl.dim_type.param), isl.dim_type.in_, 0, n)
    pa = pa.project_domain_on_params()
    build = isl.AstBuild.from_context(isl.Set.universe(pa.get_domain_space()))
    printer.values = {f"polypragma_arg{k}": v if v.isidentifier() or v.lstrip("-").isdigit() else f"({v})"
                      for k, v in enumerate(values)}
    return printer.expr(build.expr_from_pw_aff(pa.coalesce()))


def flat_index(array: DeviceArray, coordinates: list[str]) -> str:
    """The offset of an element in the device buffer, from its coordinates in the model."""
    index = coordinates[0]
    for extent, c in zip(array.inner_extents, coordinates[1:]):
        index = f"({index}) * ({extent}) + ({c})"
    return index


def _with_params(context: isl.Set, names) -> isl.Set:
    for name in names:
        if context.get_space().find_dim_by_name(isl.dim_type.param, name) < 0:
            position = context.dim(isl.dim_type.param)
            context = context.add_dims(isl.dim_type.param, 1).set_dim_name(isl.dim_type.param, position, name)
    return context


def _fix(n: int, names, first: int = 0, ctx=None) -> isl.Set:
    """``{ [d0 ..] : d_k = names[k - first] for first <= k < first + len(names) }``."""
    dims = [f"d{k}" for k in range(n)]
    conditions = [f"d{first + j} = {name}" for j, name in enumerate(names)] or ["0 = 0"]
    return isl.Set(f"[{', '.join(names)}] -> {{ [{', '.join(dims)}] : {' and '.join(conditions)} }}", context=ctx)


class TiledKernel:
    """Prints the body of one kernel with promotion; ``printer`` is its KernelPrinter."""

    def __init__(self, memory: KernelMemory, printer, syntax, iterator_prefix: str):
        self.memory = memory
        self.kernel = memory.kernel
        self.tiling = memory.kernel.tiling
        self.printer = printer
        self.syntax = syntax
        self.args = ArgumentPrinter(printer.iterator_type, printer.helpers_used)
        self.prefix = iterator_prefix
        self.ctx = self.kernel.domain.get_ctx()
        self.context = _with_params(self.kernel.context, memory.tile_params)
        self.shared = memory.placed(Placement.SHARED)
        self.private = memory.placed(Placement.PRIVATE)
        # registers live across barriers only where the target allows it (see GpuSyntax)
        self.registers_outside = not self.shared or syntax.registers_across_barriers
        self._shifts: dict[int, isl.Map] = {}
        self._slots: dict[str, isl.PwMultiAff] = {}  # statement -> its instances' register slots

    # -- ASTs -------------------------------------------------------------------------------
    def _build(self, context: isl.Set, schedule: isl.UnionMap, unroll: list[int] | None = None,
               at_each_domain=None) -> isl.AstNode:
        return build_kernel_ast(context, schedule, self.prefix, unroll or (), at_each_domain,
                                self.kernel.sizes.mapping_steps)

    def lines(self, depth: int) -> list[str]:
        tiling = self.tiling
        tiles = isl.Set.from_union_set(tiling.to_tiles.intersect_domain(self.kernel.domain).range())
        tiles = tiles.intersect(tiling.block_congruence).coalesce()
        mapped = tiling.mapped
        outer = tiles.project_out(isl.dim_type.set, mapped, tiling.tiles - mapped)
        schedule = isl.UnionMap.from_map(isl.Map.identity(outer.get_space().map_from_set()).intersect_domain(outer))
        ast = self._build(self.kernel.context, schedule)
        return self._walk(ast, depth, lambda args, d: self._mapped_tile(args, tiles, d))

    def _walk(self, ast: isl.AstNode, depth: int, at_leaf) -> list[str]:
        """``ast`` printed, each statement replaced by ``at_leaf(arguments, depth)``."""
        class Walker(CFamilyPrinter):
            def user(self, n: isl.AstNode, d: int) -> list[str]:
                call = n.user_get_expr()
                return at_leaf([self.expr(call.get_op_arg(k + 1)) for k in range(call.get_op_n_arg() - 1)], d)

        walker = Walker(self.printer.iterator_type)
        walker.helpers_used = self.printer.helpers_used
        return walker.node(ast, depth)

    def _declare_tile(self, args: list[str], first: int, depth: int) -> list[str]:
        pad = "  " * depth
        return [f"{pad}const {self.printer.iterator_type} {self.memory.tile_params[first + k]} = {a};"
                for k, a in enumerate(args)]

    def _mapped_tile(self, args: list[str], tiles: isl.Set, depth: int) -> list[str]:
        pad = "  " * depth
        tiling = self.tiling
        mapped = tiling.mapped
        out = [f"{pad}{{", *self._declare_tile(args, 0, depth + 1)]
        inner = depth + 1
        if self.registers_outside:
            out += self._private_in(inner)
        if tiling.tiles > mapped:
            names = self.memory.tile_params[:mapped]
            rest = tiles.intersect(_fix(tiling.tiles, names, 0, self.ctx)).project_out(isl.dim_type.set, 0, mapped)
            schedule = isl.UnionMap.from_map(isl.Map.identity(rest.get_space().map_from_set()).intersect_domain(rest))
            ast = self._build(_with_params(self.kernel.context, names), schedule)
            out += self._walk(ast, inner, lambda a, d: self._full_tile(a, d))
        else:
            out += self._shared_phase(inner)
        if self.registers_outside:
            for group in self.private:
                out += self._private_copy(group, "write", inner)
            if self.shared and any(g.writes for g in self.private):
                out.append(f"{pad}  {self.syntax.barrier()}")
        out.append(f"{pad}}}")
        return out

    def _private_in(self, depth: int) -> list[str]:
        pad = "  " * depth
        out = []
        for group in self.private:
            dims = "".join(f"[{c}]" for c in group.counts)
            out.append(f"{pad}{group.array.device_type} {group.name}{dims};")
        for group in self.private:
            out += self._private_copy(group, "read", depth)
        return out

    def _full_tile(self, args: list[str], depth: int) -> list[str]:
        pad = "  " * depth
        return [f"{pad}{{", *self._declare_tile(args, self.tiling.mapped, depth + 1),
                *self._shared_phase(depth + 1), f"{pad}}}"]

    def _shared_phase(self, depth: int) -> list[str]:
        pad = "  " * depth
        out: list[str] = []
        copied = False
        for group in self.shared:
            lines = self._shared_copy(group, "read", depth)
            copied |= bool(lines)
            out += lines
        if copied:
            out.append(pad + self.syntax.barrier())
        if self.registers_outside:
            out += self._compute(depth)
        else:
            # the registers live between two barriers: copied in and out around each tile's statements
            out += [f"{pad}{{", *self._private_in(depth + 1), *self._compute(depth + 1)]
            for group in self.private:
                out += self._private_copy(group, "write", depth + 1)
            out.append(f"{pad}}}")
        if self.shared:
            out.append(pad + self.syntax.barrier())
            written = []
            for group in self.shared:
                if group.writes:
                    written += self._shared_copy(group, "write", depth)
            if written:
                out += written + [pad + self.syntax.barrier()]
        return out

    # -- the statements ---------------------------------------------------------------------
    def _compute(self, depth: int) -> list[str]:
        tiling = self.tiling
        domain = self.kernel.domain.intersect(
            tiling.to_tiles.intersect_range(isl.UnionSet.from_set(
                _fix(tiling.tiles, self.memory.tile_params, 0, self.ctx))).domain())
        schedule = tiling.to_points.intersect_domain(domain).intersect_range(
            isl.UnionSet.from_set(tiling.thread_congruence))
        unroll = list(range(tiling.mapped)) if self.memory.unroll else None
        ast = self._build(self.context, schedule, unroll, self._with_slots if self.private else None)
        self.printer.references = self.reference
        try:
            return self.printer.node(ast, depth)
        finally:
            self.printer.references = None

    def _with_slots(self, node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        """The statement's call with the thread's register slot of its instance appended (``(p_d -
        t_d) / B_d`` for each mapped point dimension), written by isl where the statement stands: a
        constant in unrolled loops, so that the register arrays are indexed by constants and can live
        in registers."""
        call = node.user_get_expr()
        statement = call.get_op_arg(0).get_id().get_name()
        at = isl.PwMultiAff.from_map(isl.Map.from_union_map(build.get_schedule()).reverse())
        if statement not in self._slots:
            self._slots[statement] = isl.PwMultiAff.from_map(self._slot_map(statement, this_thread=False))
        slots = self._slots[statement].pullback_pw_multi_aff(at)
        args = isl.AstExprList.alloc(self.ctx, 0)
        for k in range(1, call.get_op_n_arg()):
            args = args.add(call.get_op_arg(k))
        for d in range(slots.dim(isl.dim_type.out)):
            args = args.add(build.expr_from_pw_aff(slots.get_pw_aff(d)))
        return isl.AstNode.user_from_expr(call.get_op_arg(0).call(args))

    def reference(self, statement, values: list[str], extras: list[str], node) -> str | None:
        """The text of the array reference ``node`` of ``statement`` when it is promoted; ``extras``
        are the register slots of the statement's instance (see ``_with_slots``)."""
        for group in self.shared + self.private:
            for ref in group.references:
                if ref.node is node and ref.statement == statement.name:
                    if group.placement is Placement.SHARED:
                        return self._shared_reference(group, ref, statement, values)
                    return group.name + "".join(f"[{e}]" for e in extras)
        return None

    def _shared_reference(self, group: Group, ref, statement, values: list[str]) -> str:
        shifted = ref.relation.apply_range(self._shift(group))
        # simplified within the current tile, where the tile coordinates are the parameters
        tiling = self.tiling
        fixed = _fix(tiling.tiles, self.memory.tile_params, 0, self.ctx)
        in_tile = tiling.to_tiles.intersect_range(isl.UnionSet.from_set(fixed)).domain()
        domain = statement.domain.intersect(isl.Set.from_union_set(
            in_tile.intersect(isl.UnionSet.from_set(statement.domain))))
        pma = isl.PwMultiAff.from_map(shifted.intersect_domain(domain))
        index = "".join(f"[{affine_text(pma.get_pw_aff(d), values, self.args, domain)}]"
                        for d in range(pma.dim(isl.dim_type.out)))
        return f"{group.name}{index}"

    def _shift(self, group: Group) -> isl.Map:
        """``{ A[a] -> [a - offset] }``: coordinates inside the shared tile."""
        key = id(group)
        if key not in self._shifts:
            space = group.relations[0].get_space().range()
            local = isl.LocalSpace.from_space(space)
            n = space.dim(isl.dim_type.set)
            result = None
            for d in range(n):
                var = isl.PwAff.from_aff(isl.Aff.var_on_domain(local, isl.dim_type.set, d))
                offset = group.offsets[d].add_dims(isl.dim_type.in_, n).set_tuple_id(
                    isl.dim_type.in_, space.get_tuple_id(isl.dim_type.set))
                piece = isl.Map.from_pw_aff(var.sub(offset))
                result = piece if result is None else result.flat_range_product(piece)
            self._shifts[key] = result
        return self._shifts[key]

    def _slot_map(self, statement: str, this_thread: bool = True) -> isl.Map:
        """``{ S[i] -> [k] }``: the register holding the element of instance ``i``: k = (p - t) / B,
        for the instances of this thread (``this_thread``) or written with floor for any."""
        tiling = self.tiling
        mapped = tiling.mapped
        width = isl.Set.from_union_set(tiling.to_points.range()).dim(isl.dim_type.set)
        ps = [f"p{d}" for d in range(width)]
        ks = [f"k{d}" for d in range(mapped)]
        conditions = []
        for d in range(mapped):
            t, b = self.kernel.thread_params[d], self.kernel.sizes.block[d]
            conditions.append(f"{b} k{d} <= p{d} - {t} <= {b} k{d} + {b - 1}")
            if this_thread:
                conditions.append(f"(p{d} - {t}) mod {b} = 0")
        slots = isl.Map(f"[{', '.join(self.kernel.thread_params)}] -> {{ [{', '.join(ps)}] -> [{', '.join(ks)}] : "
                        f"{' and '.join(conditions)} }}", context=self.ctx)
        for m in _maps_of(tiling.to_points):
            if m.get_tuple_name(isl.dim_type.in_) == statement:
                return m.apply_range(slots)
        raise KeyError(statement)

    # -- copies -----------------------------------------------------------------------------
    def _shared_copy(self, group: Group, which: str, depth: int) -> list[str]:
        tiling = self.tiling
        access = tiling.to_tiles.reverse().apply_range(group.relation(which))
        m = _single_map(access)
        if m is None:
            return []
        elements = m.intersect_domain(_fix(tiling.tiles, self.memory.tile_params, 0, self.ctx)).range()
        if elements.is_empty():
            return []
        shift = self._shift(group).intersect_domain(elements)
        rank = elements.dim(isl.dim_type.set)
        conditions = []
        mapped = tiling.mapped
        for j in range(mapped):
            thread = self.kernel.thread_params[mapped - 1 - j]
            block = self.kernel.sizes.block[mapped - 1 - j]
            if j < rank:
                conditions.append(f"(e{rank - 1 - j} - {thread}) mod {block} = 0")
            else:
                conditions.append(f"{thread} = 0")
        dims = ", ".join(f"e{d}" for d in range(rank))
        threads = isl.Set(f"[{', '.join(self.kernel.thread_params)}] -> {{ [{dims}] : {' and '.join(conditions)} }}",
                          context=self.ctx)
        ast = self._build(self.context, isl.UnionMap.from_map(shift.intersect_range(threads)))
        array = group.array

        def copy(args: list[str], d: int) -> list[str]:
            pad = "  " * d
            local = "".join(f"[{affine_text(shift_pma.get_pw_aff(k), args, self.args)}]" for k in range(rank))
            shared = f"{group.name}{local}"
            global_ = f"{array.name}[{flat_index(array, args)}]"
            return [f"{pad}{shared} = {global_};" if which == "read" else f"{pad}{global_} = {shared};"]

        shift_pma = isl.PwMultiAff.from_map(self._shift(group))
        return self._walk(ast, depth, copy)

    def _private_copy(self, group: Group, which: str, depth: int) -> list[str]:
        tiling = self.tiling
        mapped = tiling.mapped
        tile = isl.UnionSet.from_set(_fix(tiling.tiles, self.memory.tile_params[:mapped], 0, self.ctx))
        in_tile = tiling.to_tiles.intersect_range(tile).domain()
        relation = None
        for ref, rel in zip(group.references, group.relations):
            if (which == "read" and ref.is_write and ref.must) or (which == "write" and not ref.is_write):
                continue
            piece = isl.UnionMap.from_map(rel).intersect_domain(in_tile).apply_domain(
                isl.UnionMap.from_map(self._slot_map(ref.statement)))
            relation = piece if relation is None else relation.union(piece)
        m = _single_map(relation) if relation is not None else None
        if m is None or m.is_empty():
            return []
        ks = ", ".join(f"k{d}" for d in range(mapped))
        schedule = isl.Map(f"{{ [{ks}] -> [{ks}] }}", context=self.ctx).intersect_domain(m.domain())
        unroll = list(range(mapped)) if self.memory.unroll else None
        ast = self._build(self.context, isl.UnionMap.from_map(schedule), unroll)
        function = isl.PwMultiAff.from_map(m)
        array = group.array

        def copy(args: list[str], d: int) -> list[str]:
            pad = "  " * d
            coordinates = [affine_text(function.get_pw_aff(k), args, self.args)
                           for k in range(function.dim(isl.dim_type.out))]
            register = f"{group.name}{''.join(f'[{a}]' for a in args)}"
            global_ = f"{array.name}[{flat_index(array, coordinates)}]"
            return [f"{pad}{register} = {global_};" if which == "read" else f"{pad}{global_} = {register};"]

        return self._walk(ast, depth, copy)

    def declarations(self) -> list[str]:
        """Shared arrays, declared at the top of the kernel."""
        out = []
        for group in self.shared:
            widths = list(group.sizes)
            widths[-1] += group.padding
            out.append("  " + self.syntax.shared_declaration(group.array.device_type, group.name,
                                                             "".join(f"[{w}]" for w in widths)))
        return out


def _maps_of(umap: isl.UnionMap) -> list[isl.Map]:
    maps = umap.get_map_list()
    return [maps.get_at(k) for k in range(maps.n_map())]
