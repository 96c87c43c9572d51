"""Kernels for the GPU targets, shared by CUDA and OpenCL.

The same isl ASTs feed both targets; a :class:`GpuSyntax` subclass says how
each target spells a kernel, its block and thread ids, parameters, shared
declarations and barriers.  Per region (a :class:`polypragma.gpu.region.GpuRegion`, the GPU
stage's result) the output is kernel functions (one per
:class:`polypragma.gpu.mapping.Kernel`) and one host function, whose
skeleton is in :mod:`polypragma.codegen.host`.
"""

from __future__ import annotations

import islpy as isl

from polypragma.codegen.ast_build import build_kernel_ast
from polypragma.codegen.body import DeviceBodyPrinter
from polypragma.codegen.printer import CFamilyPrinter
from polypragma.codegen.tiles import TiledKernel
from polypragma.gpu.data import DeviceArray
from polypragma.gpu.mapping import Kernel
from polypragma.gpu.memory import Placement
from polypragma.gpu.region import GpuRegion


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

    def shared_declaration(self, ctype: str, name: str, dims: str) -> str:
        raise NotImplementedError

    def barrier(self) -> str:
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
    def __init__(self, region: GpuRegion, syntax: GpuSyntax, kernel: Kernel):
        super().__init__(region.scop.iterator_type)
        self.region = region
        self.syntax = syntax
        self.statements = {s.name: s for s in region.scop.statements}
        self.arrays = {a.name: a for a in region.arrays}
        # arrays read through something else than their buffer: name -> (array, placement)
        self.access = {a.name: (a, region.placement(kernel, a)) for a in region.arrays}
        # when set: (statement, iterator values, extra values, node) -> text of a promoted reference; the
        # extra values are arguments the AST build appended to the statement's call (register slots)
        self.references = None

    def user(self, n: isl.AstNode, depth: int) -> list[str]:
        call = n.user_get_expr()
        statement = self.statements[call.get_op_arg(0).get_id().get_name()]
        substitutions = dict(statement.renames)
        values = []
        for k, (name, ctype) in enumerate(zip(statement.iterators, statement.iterator_types)):
            value = self.expr(call.get_op_arg(k + 1))
            values.append(value)
            if ctype != self.iterator_type:
                value = f"(({ctype})({value}))"
            elif not value.isidentifier() and not value.lstrip("-").isdigit():
                value = f"({value})"
            substitutions[name] = value
        extras = [self.expr(call.get_op_arg(k)) for k in range(len(statement.iterators) + 1, call.get_op_n_arg())]
        promoted = self.references

        def replace(node) -> str | None:
            return promoted(statement, values, extras, node) if promoted is not None else None

        def access(array: DeviceArray, index: str) -> str:
            return self.syntax.array_access(array, self.access[array.name][1], self.region, index)

        printer = DeviceBodyPrinter(substitutions, self.arrays, self.syntax.opencl, replace, access)
        return printer.statement(statement.body, len(self.pad(depth)))


def kernel_arrays(region: GpuRegion, kernel: Kernel) -> list[DeviceArray]:
    used: set[str] = set()
    for statement in region.scop.statements:
        if statement.name in kernel.statements:
            for relation in (statement.reads, statement.may_writes, statement.must_writes):
                maps = relation.get_map_list()
                for k in range(maps.n_map()):
                    used.add(maps.get_at(k).get_tuple_name(isl.dim_type.out))
    return [a for a in region.arrays if a.name in used]


def kernel_scalar_params(region: GpuRegion, kernel: Kernel) -> list[tuple[str, str]]:
    scop = region.scop
    out = [(scop.scalar_types[p], p) for p in scop.parameters]
    out += [(scop.scalar_types[s], s) for s in scop.read_only_scalars]
    out += [(scop.iterator_type, h) for h in kernel.host_params]
    return out


def kernel_lines(region: GpuRegion, kernel: Kernel, syntax: GpuSyntax) -> tuple[list[str], list[str]]:
    """The helper macros a kernel needs, and its text."""
    printer = KernelPrinter(region, syntax, kernel)
    memory = region.memory[kernel.index] if region.memory else None
    declarations: list[str] = []
    if memory is not None and memory.tiled:
        tiled = TiledKernel(memory, printer, syntax, region.names.kernel)
        body = tiled.lines(1)
        declarations = tiled.declarations()
    else:
        ast = build_kernel_ast(kernel.context, kernel.schedule.intersect_domain(kernel.domain), region.names.kernel,
                               mapping_steps=kernel.sizes.mapping_steps)
        body = printer.node(ast, 1)
    params = [syntax.array_param(a, region.placement(kernel, a), region) for a in kernel_arrays(region, kernel)]
    params = [p for p in params if p is not None]
    params += [f"const {t} {n}" for t, n in kernel_scalar_params(region, kernel)]
    lines = [syntax.kernel_header(region.kernel_names[kernel.index], params), "{"]
    for d, name in enumerate(kernel.block_params):
        lines.append(f"  const int {name} = {syntax.block_id(kernel.mapped - 1 - d)};")
    for d, name in enumerate(kernel.thread_params):
        lines.append(f"  const int {name} = {syntax.thread_id(kernel.mapped - 1 - d)};")
    lines += declarations
    lines += body
    lines.append("}")
    return printer.helper_lines(), lines
