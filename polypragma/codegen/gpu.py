"""Kernels for the GPU targets, shared by CUDA and OpenCL.

The same isl ASTs feed both targets; a :class:`GpuSyntax` subclass says how
each target spells a kernel, its block and thread ids, parameters, shared
declarations and barriers.  Per region the output is kernel functions (one
per :class:`polypragma.gpu.mapping.Kernel`) and one host function, whose
skeleton is in :mod:`polypragma.codegen.host`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import islpy as isl

from polypragma.codegen.ast_build import build_kernel_ast, iterator_prefix
from polypragma.codegen.body import DeviceBodyPrinter
from polypragma.codegen.printer import CFamilyPrinter
from polypragma.dependences import Dependences
from polypragma.codegen.tiles import TiledKernel
from polypragma.gpu.data import DeviceArray, device_arrays
from polypragma.diagnostics import Unsupported
from polypragma.gpu.mapping import CrossThreadDependence, GpuMapping, Kernel, map_to_gpu
from polypragma.gpu.memory import KernelMemory, MemoryOptions, constant_arrays, kernel_memory
from polypragma.gpu.sizes import SizeOptions
from polypragma.model import Scop


def symbol_stem(source: str) -> str:
    """An identifier fragment from a source file name, for unique function names."""
    stem = re.sub(r"\W", "_", source.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    return stem if stem and not stem[0].isdigit() else f"f_{stem}"


@dataclass(frozen=True)
class GpuRegion:
    """Everything printed for one region."""

    scop: Scop
    mapping: GpuMapping
    arrays: tuple[DeviceArray, ...]
    function: str  # host function name
    kernel_names: tuple[str, ...]
    names: dict  # prefixes: host iterators, block and thread ids, kernel iterators
    uses_double: bool
    memory: tuple[KernelMemory, ...] = ()  # per kernel: reference groups and where they live
    constant: tuple[str, ...] = ()  # arrays in constant memory

    def placement(self, kernel: Kernel, array: DeviceArray) -> str:
        """How ``kernel`` receives ``array``: 'constant', 'texture' or 'global' (a buffer)."""
        if array.name in self.constant:
            return "constant"
        if self.memory:
            kinds = {g.placement for g in self.memory[kernel.index].groups if g.array.name == array.name}
            if kinds == {"texture"}:
                return "texture"
        return "global"

    def signature_parameters(self) -> list[tuple[str, str]]:
        """(C type, name) of the host function's parameters, in order."""
        out = [(self.scop.scalar_types[p], p) for p in self.scop.parameters]
        out += [(self.scop.scalar_types[s], s) for s in self.scop.read_only_scalars]
        out += [(f"{a.device_type} *", a.host_name) for a in self.arrays if not a.local]
        return out

    def call_arguments(self) -> list[str]:
        out = list(self.scop.parameters) + list(self.scop.read_only_scalars)
        for a in self.arrays:
            if a.local:
                continue
            out.append(f"({a.device_type} *)&{a.host_name}" if a.scalar else f"({a.device_type} *){a.host_name}")
        return out


def prepare(scop: Scop, schedule: isl.Schedule, deps: Dependences, sizes: SizeOptions, source: str,
            memory_options: MemoryOptions = MemoryOptions(), cuda: bool = False) -> GpuRegion:
    reserved = set(scop.reserved_names) | set(scop.parameters) | {a.name for a in scop.arrays}
    names = {}
    for role, preferred in (("host", "c"), ("block", "b"), ("thread", "t"), ("kernel", "k"), ("host_h", "h"),
                            ("tile", "g")):
        prefix = iterator_prefix(reserved, preferred)
        names[role] = prefix
        reserved |= {f"{prefix}{k}" for k in range(64)}
    try:
        mapping = map_to_gpu(schedule, scop.context, sizes,
                             {"host": names["host_h"], "block": names["block"], "thread": names["thread"]}, deps.all)
    except CrossThreadDependence as exc:
        raise Unsupported("GPU mapping", scop.region.location,
                          f"would need a barrier between threads ({exc}); not supported") from None
    arrays = tuple(device_arrays(scop, deps))
    stem = symbol_stem(source)
    function = f"polypragma_{stem}_region{scop.region.index}"
    kernel_names = tuple(f"{function}_kernel{k.index}" for k in mapping.kernels)
    uses_double = any("double" in a.device_type for a in arrays) or any(
        "double" in scop.scalar_types.get(s, "") for s in scop.read_only_scalars)
    constant = constant_arrays(scop, arrays, mapping.kernels, memory_options)
    unroll = memory_options.unroll if memory_options.unroll is not None else cuda
    memory = tuple(kernel_memory(scop, arrays, k, memory_options, constant, names["tile"], "polypragma_",
                                 cuda and memory_options.texture, unroll) for k in mapping.kernels)
    return GpuRegion(scop, mapping, arrays, function, kernel_names, names, uses_double, memory,
                     tuple(sorted(constant)))


class GpuSyntax:
    """How a GPU target spells things; subclasses per target."""

    opencl = False
    # whether a thread's register arrays may stay live across barriers; OpenCL copies them in and out
    # between two barriers instead, because PoCL's default work-group method (how the tests run
    # OpenCL) miscompiles register arrays live across barriers in partial tiles
    registers_across_barriers = True

    def kernel_header(self, name: str, params: list[str]) -> str:
        raise NotImplementedError

    def array_param(self, array: DeviceArray, placement: str, region: "GpuRegion") -> str | None:
        """The kernel parameter passing ``array`` (None: the kernel reaches it otherwise)."""
        raise NotImplementedError

    def shared_declaration(self, ctype: str, name: str, dims: str) -> str:
        raise NotImplementedError

    def barrier(self) -> str:
        raise NotImplementedError

    def array_access(self, array: DeviceArray, placement: str, region: "GpuRegion", index: str) -> str | None:
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
        tiled = TiledKernel(memory, printer, syntax, region.names["kernel"])
        body = tiled.lines(1)
        declarations = tiled.declarations()
    else:
        ast = build_kernel_ast(kernel.context, kernel.schedule.intersect_domain(kernel.domain), region.names["kernel"],
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


def _memory_lines(region: GpuRegion, kernel: Kernel) -> list[str]:
    """Where each array of ``kernel`` lives, group by group, and why."""
    if not region.memory:
        return []
    out = []
    where = {"global": "global memory", "shared": "shared memory", "private": "registers",
             "constant": "constant memory", "texture": "texture"}
    for group in region.memory[kernel.index].groups:
        lines = sorted({region.scop.statement(r.statement).line for r in group.references})
        kinds = "read and written" if group.writes and any(not r.is_write for r in group.references) else \
            "written" if group.writes else "read"
        out.append(f"    {group.array.name} ({len(group.references)} reference(s), {kinds}, line(s) "
                   f"{', '.join(map(str, lines))}): {where[group.placement]}: {group.reason}")
    return out


def explain(region: GpuRegion) -> list[str]:
    """A report for --explain: the kernels, their mapping and the data moves, with reasons."""
    scop = region.scop
    where = f"{scop.region.file}:{scop.region.begin_line}"
    kernels = region.mapping.kernels
    out = [f"{where}: note: region {scop.region.index}: {len(kernels)} kernel(s)"]
    axes = "xyz"
    for kernel in kernels:
        lines = sorted({s.line for s in scop.statements if s.name in kernel.statements})
        head = (f"  kernel {kernel.index} (statements at line(s) {', '.join(map(str, lines))}): "
                f"inside {kernel.host_depth} host loop(s)")
        if not kernel.mapped:
            out.append(head + "; no parallel loop: runs on one thread, so the data stays on the device")
            continue
        mapped = ", ".join(f"loop {d + 1} -> blocks.{axes[kernel.mapped - 1 - d]} and threads."
                           f"{axes[kernel.mapped - 1 - d]}" for d in range(kernel.mapped))
        memory = region.memory[kernel.index] if region.memory else None
        barriers = ("barriers only around the shared-memory copies" if memory is not None and memory.placed("shared")
                    else "no barrier is needed")
        out.append(f"{head}; the outer {kernel.mapped} parallel loop(s) of its band are tiled: {mapped}; "
                   f"tile {list(kernel.sizes.tile)}, block {list(kernel.sizes.block)}, grid at most "
                   f"{list(kernel.sizes.grid)} (blocks and threads wrap around the tiles); every dependence "
                   f"stays within a thread (checked), so {barriers}")
        if memory is not None and memory.kernel.tiling is not None and memory.kernel.tiling.tiles > kernel.mapped:
            out.append(f"    further loop(s) of its permutable band tiled by "
                       f"{list(memory.kernel.tiling.tile_sizes[kernel.mapped:])} for the tiles of shared memory")
        out += _memory_lines(region, kernel)
    for a in region.arrays:
        if a.local:
            out.append(f"  {a.name}: device only (a local of the region)")
            continue
        why = []
        if a.copy_in:
            why.append("copied in (" + ("its values on entry may be read" if a.live_in else
                                        "not every element is certainly written, and the copy-out must not "
                                        "overwrite host data") + ")")
        if a.copy_out:
            why.append("copied out (written in the region)")
        if not why:
            why.append("not transferred")
        out.append(f"  {a.name}: {a.elements} element(s) of {a.device_type}; " + "; ".join(why))
    return out
