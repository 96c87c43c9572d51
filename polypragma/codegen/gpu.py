"""Kernels for the GPU targets, shared by CUDA and OpenCL.

The same isl ASTs feed both targets; a :class:`GpuSyntax` subclass says how
each target spells a kernel, its block and thread ids, parameters, shared
declarations and barriers.  Per region (a :class:`polypragma.gpu.region.GpuRegion`, the GPU
stage's result) the output is kernel functions (one per
:class:`polypragma.gpu.mapping.Kernel`) and one host function, whose
skeleton is in :mod:`polypragma.codegen.host`.
"""

from __future__ import annotations

from dataclasses import replace

import islpy as isl

from polypragma import timing

from polypragma.codegen.ast_build import AstPastBound, build_kernel_ast
from polypragma.codegen.body import ASSERT_DEFINITION, ASSERT_FLAG, DeviceBodyPrinter
from polypragma.codegen.kernel_ast import CopyIndices, PromotedReferences, StatementIndices
from polypragma.codegen.kernel_tree import Barrier, Registers, RegisterSlots, payload
from polypragma.codegen import reduction_code
from polypragma.codegen.overflow import PROGRAM_VALUE
from polypragma.codegen.printer import CFamilyPrinter, wide_cast
from polypragma.diagnostics import Unsupported
from polypragma.frontend.library import asserts
from polypragma.gpu.block_copies import block_copy
from polypragma.gpu.data import DeviceArray, referenced_array
from polypragma.gpu.explain import kernel_title
from polypragma.gpu.mapping import Kernel
from polypragma.gpu.memory import STATIC_SHARED_BYTES, Group, KernelMemory, Placement
from polypragma.gpu.region import GpuRegion
from polypragma.isl_helpers import most_of, params_within

DYNAMIC_SHARED_ALIGNMENT = 16  # each tile's start in a kernel's dynamic shared memory: the vector copies'


class GpuSyntax:
    """How a GPU target spells things; subclasses per target."""

    opencl = False
    # whether a thread's register arrays may stay live across barriers; OpenCL copies them in and out
    # between two barriers instead, because PoCL's default work-group method (how the tests run
    # OpenCL) miscompiles register arrays live across barriers in partial tiles
    registers_across_barriers = True

    def kernel_header(self, name: str, params: list[str]) -> str:
        raise NotImplementedError

    def array_param(self, array: DeviceArray, placement: Placement, region: "GpuRegion") -> str | None:
        """The kernel parameter passing ``array`` (None: the kernel reaches it otherwise)."""
        raise NotImplementedError

    def shared_declaration(self, ctype: str, name: str, dims: str, aligned: bool = False) -> str:
        """A shared array's declaration (``aligned``: on 16 bytes, for the vector copies)."""
        raise NotImplementedError

    # whether the kernels' shared tiles past STATIC_SHARED_BYTES go to dynamic shared memory
    dynamic_shared = False

    def dynamic_shared_declarations(self, layout: list[tuple[Group, int]]) -> list[str]:
        """The declarations of the shared tiles of ``layout`` (see :func:`dynamic_shared`), each at its
        offset in the kernel's dynamic shared memory."""
        raise NotImplementedError

    def flag_param(self, name: str) -> str:
        """The kernel parameter of an int flag in global memory, which threads set (the failed asserts')."""
        raise NotImplementedError

    def vector_copy(self, ctype: str, width: int, destination: str, source: str, into: bool) \
            -> tuple[str, str | None]:
        """The statement copying ``width`` consecutive elements of type ``ctype`` from the address
        ``source`` to ``destination`` as one vector, and the definition of the helper it calls (None:
        none).  The shared side's address is aligned on the vector's size (its tile and rows are:
        memory._aligned_for_vectors, copy_statements' _vectors), the global one (``source`` where
        ``into``, else ``destination``) may not be when it runs."""
        raise NotImplementedError

    def barrier(self) -> str:
        raise NotImplementedError

    # the pragma before a loop the device compiler is to unroll whole (nvcc's and clang's spelling)
    unroll_pragma = "#pragma unroll"

    def async_copy(self, ctype: str, destination: str, source: str) -> tuple[str, str]:
        """The statement starting an asynchronous copy of one element of type ``ctype`` (of a size in
        ASYNC_COPY_SIZES) from the global address ``source`` to the shared ``destination``, which the next
        barrier waits for (:meth:`async_barrier`), and the definition of what it calls."""
        raise NotImplementedError

    def async_vector_copy(self, ctype: str, width: int, destination: str, source: str) -> tuple[str, tuple[str, ...]]:
        """The statement starting an asynchronous copy of ``width`` consecutive elements of type ``ctype``
        (a vector, as :meth:`vector_copy` moves), and the definitions of what it calls."""
        raise NotImplementedError

    def async_barrier(self) -> list[str]:
        """A barrier that first waits for the thread's asynchronous copies."""
        raise NotImplementedError

    def array_access(self, array: DeviceArray, placement: Placement, region: "GpuRegion", index: str) -> str | None:
        """A read of element ``index`` of ``array`` received as ``placement``; None: the buffer's."""
        return None

    def block_id(self, dim: int) -> str:
        raise NotImplementedError

    def thread_id(self, dim: int) -> str:
        raise NotImplementedError


# -- kernels ----------------------------------------------------------------------------


class KernelPrinter(CFamilyPrinter):
    """Prints a kernel's AST: computations, and where data is promoted, the copies and barriers
    (statements whose annotations carry a :class:`CopyIndices` or :class:`Barrier`) and the register arrays'
    declarations (a :class:`Registers` mark); indices of promoted data come with each statement
    (its annotation, built by isl where it stands)."""

    def __init__(self, region: GpuRegion, syntax: GpuSyntax, kernel: Kernel):
        super().__init__(region.scop.iterator_type, region.scop.signed_names)
        self.region = region
        self.syntax = syntax
        self.statements = {s.name: s for s in region.scop.statements}
        self.arrays = {a.name: a for a in region.arrays + region.members}
        # arrays read through something else than their buffer: name -> (array, placement)
        self.access = {a.name: (a, region.placement(kernel, a)) for a in region.arrays}
        # whether statements carry their indices (StatementIndices)
        self.annotated = False
        # while printing a block that declares the register arrays (see _declaring): isl may repeat the
        # mark that declares them, in each branch of a condition it splits a loop into
        self.registers_declared = False
        # register arrays that live between two barriers (see GpuSyntax.registers_across_barriers): each
        # run of statements between barriers that uses them declares them
        self.between_barriers: tuple = ()
        # reductions updated by several threads, by statement: (index in the kernel's, KernelReduction)
        self.reductions = {kr.reduction.statement: (k, kr) for k, kr in enumerate(kernel.reductions)}
        self.device_helpers: set[str] = set()  # the definitions of the helpers the kernel uses (atomics, vector copies)
        # the kernel's memory (where its groups live), where its data is promoted
        self.memory = region.memory[kernel.index] if region.memory else None
        # the iterators of the loops over register slots being printed, with their counts (see _slot_loops)
        self.slot_counts: dict[str, int] = {}
        # copies into shared memory asynchronous, each barrier waiting for them (MemoryOptions.async_copies)
        self.async_copies = self.memory is not None and self.memory.async_copies
        # the arrays the kernel's blocks update in a copy of their own in shared memory, with its elements
        self.block_copies = self.memory.block_copy_elements if self.memory else {}

    def user(self, n: isl.AstNode, depth: int) -> list[str]:
        call = n.user_get_expr()
        indices = payload(_annotation(n)) if self.annotated else None
        if isinstance(indices, Barrier):
            return self._barrier(depth)
        if isinstance(indices, CopyIndices):
            return [self.pad(depth) + self._copy(indices)]
        statement = self.statements[call.get_op_arg(0).get_id().get_name()]
        substitutions = self.substitutions(statement, call)
        promoted = indices.indices if isinstance(indices, PromotedReferences) else {}

        def replace(node) -> str | None:
            found = promoted.get(id(node))
            if found is None:
                return None
            group, index = found
            if group is not None:
                return group.name + "".join(f"[{self.expr(e)}]" for e in index)
            array = self.arrays.get(referenced_array(node))
            if array is not None and array.member is not None and len(index) == array.rank:
                return self.element(array, index)
            if array is None or len(index) != array.rank or not (array.linearise or array.rank == 1):
                return None
            flat = self.flat_index(array, index)
            return access(array, flat) or f"{array.name}[{flat}]"

        into_copy = None  # the array of a block's copy whose update's target is being printed

        def access(array: DeviceArray, index: str) -> str:
            if array.name == into_copy:
                return f"{block_copy(array.name)}[{index}]"
            return self.syntax.array_access(array, self.access[array.name][1], self.region, index)

        printer = DeviceBodyPrinter(substitutions, self.arrays, self.syntax.opencl, replace, access)
        reduction = self.reductions.get(statement.name)
        if reduction is not None:
            k, kr = reduction
            local = kr.reduction.array in self.block_copies
            into_copy = kr.reduction.array if local else None
            target = printer.visit(kr.reduction.target)
            into_copy = None
            line = reduction_code.update(k, kr, target, printer.visit(kr.reduction.operand), self.syntax.opencl,
                                         self.device_helpers, local)
            if kr.reduction.guard is not None:
                line = f"if ({printer.visit(kr.reduction.guard)}) {line}"
            lines = [self.pad(depth) + line]
        elif statement.private_iterators:  # in a block that declares them
            inner = self.pad(depth + 1)
            lines = [self.pad(depth) + "{",
                     *(f"{inner}{ctype} {substitutions.get(name, name)};" for name, ctype in statement.private_iterators),
                     *printer.statement(statement.body, len(inner)), self.pad(depth) + "}"]
        else:
            lines = printer.statement(statement.body, len(self.pad(depth)))
        lines[-1] += f"  /* {self.region.scop.region.file}:{statement.line} */"
        return lines

    def _copy(self, indices: CopyIndices) -> str:
        copy = indices.copy
        group = copy.group
        local = group.name + "".join(f"[{self.expr(e)}]" for e in indices.local)
        element = self.element(group.array, indices.element)
        if copy.width > 1 and copy.into and self.memory is not None and self.memory.copied_async(group):
            text, helpers = self.syntax.async_vector_copy(group.array.device_type, copy.width, f"&{local}",
                                                          f"&{element}")
            self.device_helpers.update(helpers)
            return text
        if copy.width > 1:
            destination, source = (local, element) if copy.into else (element, local)
            text, helper = self.syntax.vector_copy(group.array.device_type, copy.width, f"&{destination}",
                                                   f"&{source}", copy.into)
            if helper is not None:
                self.device_helpers.add(helper)
            return text
        if copy.into and self.memory is not None and self.memory.copied_async(group):
            text, helper = self.syntax.async_copy(group.array.device_type, f"&{local}", f"&{element}")
            self.device_helpers.add(helper)
            return text
        return f"{local} = {element};" if copy.into else f"{element} = {local};"

    def element(self, array: DeviceArray, coordinates) -> str:
        """An element of ``array`` in its buffer: ``A[flat]``, or for a member of a struct variable, the
        struct in its buffer and the path to the member (``p[flat].x[j]``, ``s[0].v[i]``)."""
        if array.member is None or array.row_member:  # (rows through a member: a buffer of their own)
            return f"{array.name}[{self.flat_index(array, coordinates)}]"
        buffer = self.arrays[array.buffer]
        outer, rest = list(coordinates[:buffer.rank]), list(coordinates[buffer.rank:])
        text = f"{buffer.name}[{self.flat_index(buffer, outer) if outer else 0}]"
        for field, count in array.member.path:
            text += f".{field}" + "".join(f"[{self.expr(e)}]" for e in rest[:count])
            rest = rest[count:]
        return text

    def flat_index(self, array: DeviceArray, coordinates) -> str:
        """The offset of an element in the device buffer (row-major), from its coordinates; in the wider
        type for an array of more elements than the iterators' type counts (overflow.py)."""
        index, precedence = self._expr(coordinates[0])
        if len(coordinates) > 1 and array.constant_elements and self.ranges.exceeds((0, array.constant_elements)):
            index, precedence = wide_cast(index, precedence)
        for extent, c in zip(array.inner_extents, coordinates[1:]):
            inner, inner_precedence = self._expr(c)
            if index == "0":  # (a scalar's copy per iteration: t_private[0][i][j] at i * m + j, not 0 * n...)
                index, precedence = inner, inner_precedence
                continue
            if precedence < 13:  # a sum: parenthesised before the product
                index = f"({index})"
            extent = extent if extent.isidentifier() or extent.isdigit() else f"({extent})"
            index = f"{index} * {extent} + {inner if inner_precedence > 12 else '(' + inner + ')'}"
            precedence = 12
        return index

    def node(self, n: isl.AstNode, depth: int) -> list[str]:
        if self.between_barriers and not self.registers_declared and self._uses_registers(n) and not _barrier_below(n):
            return self._declared([((), n)], depth)
        if n.get_type() == isl.ast_node_type.block:
            return self._runs([n], depth)
        return super().node(n, depth)

    def _runs(self, nodes: list[isl.AstNode], depth: int) -> list[str]:
        """``nodes`` in order, with the barriers among them, in blocks or under conditions, printed
        unguarded: a barrier's instances are tiles, so a condition above one is the same for every
        thread of the block and the barrier may run in any case, while a barrier under a condition
        is what OpenCL implementations handle worst (PoCL crashed on one).  Each run between two
        barriers that uses registers living between barriers is a block that declares them."""
        out: list[str] = []
        run: list[tuple[tuple, isl.AstNode]] = []

        def flush() -> None:
            if self.between_barriers and not self.registers_declared and not any(_barrier_below(x) for _, x in run) and any(
                    self._uses_registers(x) for _, x in run):
                out.extend(self._declared(run, depth))
            else:
                out.extend(self._guarded(run, depth))
            run.clear()

        for item in _unguarded_barriers(nodes, (), self.registers_declared):
            if item is None:
                flush()
                out.extend(self._barrier(depth))
            else:
                run.append(item)
        flush()
        return out

    def _barrier(self, depth: int) -> list[str]:
        """A barrier of the block, which first waits for the thread's asynchronous copies where it has some."""
        return [self.pad(depth) + line for line in
                (self.syntax.async_barrier() if self.async_copies else [self.syntax.barrier()])]

    def _guarded(self, run: list[tuple[tuple, isl.AstNode]], depth: int) -> list[str]:
        """The nodes of ``run``, each under its conditions, consecutive ones with the same under one if."""
        out: list[str] = []
        k = 0
        while k < len(run):
            conditions = run[k][0]
            end = k
            while end < len(run) and run[end][0] is conditions:
                end += 1
            same = [x for _, x in run[k:end]]
            k = end
            if not conditions:
                for x in same:
                    out.extend(self.node(x, depth))
                continue
            pad = self.pad(depth)
            test = " && ".join(f"({self.expr(c)})" if len(conditions) > 1 else self.expr(c) for c in conditions)
            out.append(f"{pad}if ({test}) {{")
            for x in same:
                out.extend(self.node(x, depth + 1))
            out.append(f"{pad}}}")
        return out

    def _declared(self, run: list[tuple[tuple, isl.AstNode]], depth: int) -> list[str]:
        return self._declaring(Registers(self.between_barriers), depth, lambda: self._guarded(run, depth + 1))

    def _declaring(self, registers: Registers, depth: int, body) -> list[str]:
        """A block that declares ``registers`` around the lines ``body()`` prints (one level deeper),
        inside which no register array is declared again."""
        pad = self.pad(depth)
        self.registers_declared = True
        try:
            lines = body()
        finally:
            self.registers_declared = False
        return [f"{pad}{{", *self._declare(registers, depth + 1), *lines, f"{pad}}}"]

    def _uses_registers(self, n: isl.AstNode) -> bool:
        private = {id(g) for g in self.between_barriers}
        found = False

        def visit(x: isl.AstNode) -> bool:
            nonlocal found
            if x.get_type() == isl.ast_node_type.user:
                indices = payload(_annotation(x))
                if isinstance(indices, CopyIndices):
                    found |= id(indices.copy.group) in private
                elif isinstance(indices, PromotedReferences):
                    found |= any(id(group) in private for group, _ in indices.indices.values())
            return not found

        n.foreach_descendant_top_down(visit)
        return found

    def if_node(self, n: isl.AstNode, depth: int) -> list[str]:
        # register arrays are declared outside a condition on the thread, in a block of their own: PoCL's
        # optimiser gave wrong values for correlation's kernel 3 with the declaration inside one, and
        # for adi's kernel 0 with the declaration's scope reaching past the next barrier (both right
        # with -cl-opt-disable)
        registers = _registers_below(n)
        if registers is not None and not self.registers_declared:
            return self._declaring(registers, depth, lambda: self.if_node(n, depth + 1))
        if not n.if_has_else_node() and _barrier_inside(n.if_get_then_node()):
            return self._runs([n], depth)
        return super().if_node(n, depth)

    def mark(self, n: isl.AstNode, depth: int) -> list[str]:
        registers = payload(n.mark_get_id())
        if isinstance(registers, RegisterSlots) and self.memory.unroll:
            return self._slot_loops(registers, lambda: self.node(n.mark_get_node(), depth))
        if not isinstance(registers, Registers):
            return super().mark(n, depth)
        if self.registers_declared:
            return self.node(n.mark_get_node(), depth)
        return self._declaring(registers, depth, lambda: self.node(n.mark_get_node(), depth + 1))

    def _slot_loops(self, slots: RegisterSlots, body) -> list[str]:
        """The lines ``body()`` prints, its loops over a register tile's slots (the iterators at
        ``slots``' depths) each over all of them, for the device compiler to unroll
        (:meth:`~polypragma.codegen.printer.CFamilyPrinter.whole_loop`)."""
        prefix = self.region.names.kernel
        self.slot_counts = {f"{prefix}{slots.first + d}": count for d, count in enumerate(slots.counts)}
        try:
            return body()
        finally:
            self.slot_counts = {}

    def for_node(self, n: isl.AstNode, depth: int) -> list[str]:
        count = self.slot_counts.get(n.for_get_iterator().get_id().get_name())
        if count is None:
            return super().for_node(n, depth)
        return self.whole_loop(n, depth, count, self.syntax.unroll_pragma)

    def before_for(self, n: isl.AstNode, depth: int) -> list[str]:
        # the loop whose steps run the register tile's loops over slots (gemm's k within a tile of k):
        # --unroll-steps
        steps = self.memory.unroll_steps if self.memory is not None and self.memory.unroll else 0
        if steps and _slots_inside(n.for_get_body()):
            return [f"{self.pad(depth)}{self.syntax.unroll_pragma} {steps}"]
        return []

    def _declare(self, registers: Registers, depth: int) -> list[str]:
        return [f"{self.pad(depth)}{g.array.device_type} {g.name}{''.join(f'[{c}]' for c in g.counts)};"
                for g in registers.groups]


def _is_barrier(n: isl.AstNode) -> bool:
    return n.get_type() == isl.ast_node_type.user and isinstance(
        payload(_annotation(n)), Barrier)


def _slots_inside(n: isl.AstNode) -> bool:
    """Whether ``n`` is a :class:`RegisterSlots` mark, alone or under conditions (a loop whose body it is
    runs the register tile's computations and nothing else)."""
    kind = n.get_type()
    if kind == isl.ast_node_type.mark:
        return isinstance(payload(n.mark_get_id()), RegisterSlots) or _slots_inside(n.mark_get_node())
    if kind == isl.ast_node_type.block:
        children = _children(n)
        return len(children) == 1 and _slots_inside(children[0])
    if kind == isl.ast_node_type.if_:
        return not n.if_has_else_node() and _slots_inside(n.if_get_then_node())
    return False


def _children(n: isl.AstNode) -> list[isl.AstNode]:
    """The statements of a block, or ``n`` alone."""
    if n.get_type() != isl.ast_node_type.block:
        return [n]
    children = n.block_get_children()
    return [children.get_at(k) for k in range(children.n_ast_node())]


def _unguarded_barriers(nodes: list[isl.AstNode], conditions: tuple, declared: bool) -> list:
    """``nodes`` as a list of (conditions, node), with None for each barrier, seen through blocks,
    register marks when their arrays are ``declared`` above, and the conditions (without else) that hold a
    barrier outside any loop."""
    items: list = []
    for n in nodes:
        kind = n.get_type()
        if _is_barrier(n):
            items.append(None)
        elif kind == isl.ast_node_type.block:
            items += _unguarded_barriers(_children(n), conditions, declared)
        elif kind == isl.ast_node_type.mark and declared and isinstance(payload(n.mark_get_id()), Registers):
            items += _unguarded_barriers([n.mark_get_node()], conditions, declared)
        elif kind == isl.ast_node_type.if_ and not n.if_has_else_node() and _barrier_inside(n.if_get_then_node()):
            items += _unguarded_barriers([n.if_get_then_node()], (*conditions, n.if_get_cond()), declared)
        else:
            items.append((conditions, n))
    return items


def _barrier_below(n: isl.AstNode) -> bool:
    """Whether a barrier is among ``n`` and its descendants."""
    found = False

    def visit(x: isl.AstNode) -> bool:
        nonlocal found
        found |= _is_barrier(x)
        return not found

    n.foreach_descendant_top_down(visit)
    return found


def _barrier_inside(n: isl.AstNode) -> bool:
    """Whether a barrier is among ``n``'s statements outside any loop (in blocks, marks and conditions)."""
    for child in _children(n):
        if child.get_type() == isl.ast_node_type.mark:
            child = child.mark_get_node()
            if _barrier_inside(child):
                return True
        if _is_barrier(child):
            return True
        if child.get_type() == isl.ast_node_type.if_ and (
                _barrier_inside(child.if_get_then_node()) or
                (child.if_has_else_node() and _barrier_inside(child.if_get_else_node()))):
            return True
    return False


def _annotation(n: isl.AstNode) -> isl.Id | None:
    try:
        return n.get_annotation()
    except isl.Error:  # none
        return None


def _registers_below(n: isl.AstNode) -> Registers | None:
    """The register mark among the statements of the if ``n`` outside any loop, if any."""
    kind = n.get_type()
    if kind == isl.ast_node_type.mark:
        registers = payload(n.mark_get_id())
        return registers if isinstance(registers, Registers) else _registers_below(n.mark_get_node())
    if kind == isl.ast_node_type.if_:
        found = _registers_below(n.if_get_then_node())
        if found is None and n.if_has_else_node():
            found = _registers_below(n.if_get_else_node())
        return found
    if kind == isl.ast_node_type.block:
        children = n.block_get_children()
        for k in range(children.n_ast_node()):
            found = _registers_below(children.get_at(k))
            if found is not None:
                return found
    return None


def kernel_arrays(region: GpuRegion, kernel: Kernel) -> list[DeviceArray]:
    used: set[str] = set()
    for statement in region.scop.statements:
        if statement.name in kernel.statements:
            for relation in (statement.reads, statement.may_writes, statement.must_writes):
                maps = relation.get_map_list()
                for k in range(maps.n_map()):
                    used.add(maps.get_at(k).get_tuple_name(isl.dim_type.out))
    buffers = {region.buffer_of(name).name for name in used if region.buffer_of(name) is not None}
    return [a for a in region.arrays if a.name in buffers]


def kernel_checks(region: GpuRegion, kernel: Kernel) -> bool:
    """Whether a statement of ``kernel`` holds an assert: the kernel then takes the flag
    ``polypragma_checks``, which a failed assert sets, and the host reads it before the copy-out."""
    return any(asserts(s.body) for s in region.scop.statements if s.name in kernel.statements)


def kernel_scalar_params(region: GpuRegion, kernel: Kernel) -> list[tuple[str, str]]:
    scop = region.scop
    out = [(scop.scalar_types[p], p) for p in scop.parameters]
    out += [(scop.scalar_types[s], s) for s in scop.read_only_scalars]
    out += [(scop.iterator_type, h) for h in kernel.host_params]
    return out


def plain_kernel_ast(region: GpuRegion, kernel: Kernel) -> isl.AstNode:
    """The AST of ``kernel`` with its data where it is (global memory, constant memory, textures); past
    the bounds of isl's AST build, Unsupported: the region is left as written."""
    try:
        return build_kernel_ast(kernel.context, kernel.schedule.intersect_domain(kernel.domain), region.names.kernel,
                                at_each_domain=StatementIndices(region.scop), mapping_steps=kernel.mapping_steps,
                                tile_dims=range(kernel.mapped))
    except AstPastBound as exc:
        raise Unsupported(f"the code of {kernel_title(region, kernel)}",
                          region.scop.region.location,
                          f"could not be built: {exc} (--explain shows its mapping; other sizes may build)") from None


def with_plain_asts(region: GpuRegion) -> GpuRegion:
    """``region`` with the AST of each kernel that has none with promoted data (plain_kernel_ast)."""
    asts = []
    for kernel in region.mapping.kernels:
        if region.kernel_asts and region.kernel_asts[kernel.index] is not None:
            asts.append(None)
            continue
        with timing.part(f"kernel {kernel.index}: its AST"):
            asts.append(plain_kernel_ast(region, kernel))
    return replace(region, plain_asts=tuple(asts))


def dynamic_shared(memory: KernelMemory | None) -> list[tuple[Group, int]]:
    """(group, byte offset) of each shared tile of a kernel in its dynamic shared memory, where its tiles
    take more than STATIC_SHARED_BYTES together; empty where they are declared statically."""
    if memory is None or memory.shared_bytes() <= STATIC_SHARED_BYTES:
        return []
    layout, offset = [], 0
    for group in memory.placed(Placement.SHARED):
        layout.append((group, offset))
        offset += -(-group.shared_bytes() // DYNAMIC_SHARED_ALIGNMENT) * DYNAMIC_SHARED_ALIGNMENT
    return layout


def dynamic_shared_bytes(layout: list[tuple[Group, int]]) -> int:
    """The bytes of dynamic shared memory of ``layout`` (0: none)."""
    return max((offset + group.shared_bytes() for group, offset in layout), default=0)


def _most_blocks(kernel: Kernel, d: int) -> int:
    """The blocks of ``kernel`` along mapped member ``d``, as many as the printer takes its block ids to
    number (overflow.Ranges): its grid where they wrap around it, and elsewhere the most tiles where every
    parameter is within PROGRAM_VALUE of 0, as Ranges takes the program's values (a grid of 2**31 - 1
    blocks would have ``32 * b1`` computed in ``long long``)."""
    if kernel.wrapped[d]:
        return kernel.grid[d]
    instances = kernel.domain.params()
    names = [instances.get_dim_name(isl.dim_type.param, k) for k in range(instances.dim(isl.dim_type.param))]
    largest = most_of(kernel.tile_counts[d],
                      params_within(instances, {name: (-PROGRAM_VALUE, PROGRAM_VALUE) for name in names}))
    return min(kernel.grid[d], max(1, int(largest.to_python()))) if largest.is_int() else kernel.grid[d]


def kernel_lines(region: GpuRegion, kernel: Kernel, syntax: GpuSyntax) -> tuple[list[str], list[str]]:
    """The helper macros a kernel needs, and its text."""
    printer = KernelPrinter(region, syntax, kernel)
    memory = region.memory[kernel.index] if region.memory else None
    declarations: list[str] = []
    if memory is not None and memory.tiled and not region.kernel_asts:
        raise ValueError("the kernel ASTs of a region with promoted data are built first (with_kernel_asts)")
    ast = region.kernel_asts[kernel.index] if region.kernel_asts else None
    if ast is not None:
        if memory.placed(Placement.SHARED) and not syntax.registers_across_barriers:
            printer.between_barriers = tuple(memory.placed(Placement.PRIVATE))
        vectors = {name for name, _, _ in region.vector_copies[kernel.index]}  # (their tiles aligned on 16 bytes)
        layout = dynamic_shared(memory) if syntax.dynamic_shared else []
        if layout:
            declarations += ["  " + line for line in syntax.dynamic_shared_declarations(layout)]
        for group in memory.placed(Placement.SHARED) if not layout else ():
            declarations.append("  " + syntax.shared_declaration(group.array.device_type, group.name,
                                                                 "".join(f"[{w}]" for w in group.declared()),
                                                                 aligned=group.name in vectors))
    else:
        ast = region.plain_asts[kernel.index] if region.plain_asts else plain_kernel_ast(region, kernel)
    printer.annotated = True
    for d, name in enumerate(kernel.block_params):
        printer.ranges.bound(name, (0, _most_blocks(kernel, d) - 1))
    for name, block in zip(kernel.thread_params, kernel.sizes.block):
        printer.ranges.bound(name, (0, block - 1))
    body = printer.node(ast, 1)
    params = [syntax.array_param(a, region.placement(kernel, a), region) for a in kernel_arrays(region, kernel)]
    params = [p for p in params if p is not None]
    checks = kernel_checks(region, kernel)
    if checks:
        params.append(syntax.flag_param(ASSERT_FLAG))
    params += [f"const {t} {n}" for t, n in kernel_scalar_params(region, kernel)]
    lines = [syntax.kernel_header(region.kernel_names[kernel.index], params), "{"]
    for d, name in enumerate(kernel.block_params):
        lines.append(f"  const int {name} = {syntax.block_id(kernel.mapped - 1 - d)};")
    for d, name in enumerate(kernel.thread_params):
        lines.append(f"  const int {name} = {syntax.thread_id(kernel.mapped - 1 - d)};")
    lines += declarations
    lines += reduction_code.declarations(kernel, syntax.shared_declaration, syntax.opencl)
    lines += reduction_code.block_copy_start(kernel, printer.block_copies, syntax.shared_declaration, syntax.barrier(),
                                             syntax.opencl)
    lines += body
    lines += reduction_code.finish(kernel, printer.arrays, syntax.barrier(), printer.device_helpers, syntax.opencl)
    lines += reduction_code.block_copy_merge(kernel, printer.block_copies, syntax.barrier(), printer.device_helpers,
                                             syntax.opencl)
    lines.append("}")
    return printer.helper_lines() + sorted(printer.device_helpers) + ([ASSERT_DEFINITION] if checks else []), lines
