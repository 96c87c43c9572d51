"""A region's share of a GPU target's output, as text.

The GPU stage of a region (mapping, memory, the kernels' ASTs, printing) runs in a forked process
bounded by ``--codegen-timeout`` (driver.py): isl's AST build and its integer arithmetic can stall on
a valid region, and its operation count does not stop them.  What the process carries back is this
value: text and plain data, which a pickle carries, where the region's isl objects could not cross.
The target then writes the parts all regions share (runtime, device functions, prototypes, the
OpenCL program) from these values alone (cuda_target.generate, opencl_target.generate).
"""

from __future__ import annotations

from dataclasses import dataclass

from polypragma import timing
from polypragma.codegen.body import device_functions as region_functions
from polypragma.codegen.gpu import GpuSyntax, kernel_lines
from polypragma.codegen.host import HostSyntax, host_function
from polypragma.gpu.region import GpuRegion


@dataclass(frozen=True)
class RegionText:
    function: str  # the region's host function
    begin_line: int  # the region's '#pragma scop' line
    # the types the region names, as the source defines them, and where in the file they are defined
    type_declarations: tuple[str, ...]
    type_declaration_lines: tuple[int, ...]
    # the file's pure functions the statements call, as device functions: (name in the source, text),
    # callees first
    device_functions: tuple[tuple[str, str], ...]
    prototype: str  # the host function's declaration for the C file
    kernel_names: tuple[str, ...]
    kernel_lines: tuple[str, ...]  # every kernel of the region, each followed by an empty line
    kernel_macros: frozenset[str]  # the helper macros the kernels use
    host_lines: tuple[str, ...]  # the host function (and its form on the caller's buffers), each followed by ""
    host_macros: frozenset[str]  # the helper macros the host function uses
    uses_double: bool
    # cuda: the region's __constant__ arrays, and the texture fetch helpers its kernels use
    constant_lines: tuple[str, ...] = ()
    texture_fetches: frozenset[str] = frozenset()
    sizes: str = ""  # its line of --dump-sizes: the sizes of its kernels
    # the C file calls the data layer's keep scope around this region and the others of its split region
    # (driver._compile_split): the data layer must be there, as for a data directive
    keeps_data: bool = False


def printed(region: GpuRegion, syntax: GpuSyntax | HostSyntax, source: str, device_entries: bool = False,
            opencl: bool = False) -> RegionText:
    """``region``'s kernels and host function printed in ``syntax``; with ``device_entries``, its host
    function also in the form taking the caller's device buffers (``<function>_device``, for the
    Python API).  Each kernel and the host function are timed parts (-v)."""
    kernels: list[str] = []
    kernel_macros: set[str] = set()
    for kernel in region.mapping.kernels:
        with timing.part(f"{region.scop.region}: kernel {kernel.index} (AST, shared-memory copies, printing)"):
            macros, lines = kernel_lines(region, kernel, syntax)
        kernel_macros |= set(macros)
        kernels += lines + [""]
    with timing.part(f"{region.scop.region}: host function"):
        host, host_macros = host_function(region, syntax, source)
        host = host + [""]
        if device_entries:
            host += host_function(region, syntax, source, caller_buffers=True)[0] + [""]
    params = ", ".join(f"{t} {n}" for t, n in region.signature_parameters()) or "void"
    return RegionText(
        function=region.function, begin_line=region.scop.region.begin_line,
        type_declarations=region.scop.type_declarations,
        type_declaration_lines=region.scop.type_declaration_lines,
        device_functions=tuple(region_functions(region.scop, opencl)),
        prototype=f"int {region.function}({params});",
        kernel_names=region.kernel_names, kernel_lines=tuple(kernels), kernel_macros=frozenset(kernel_macros),
        host_lines=tuple(host), host_macros=frozenset(host_macros), uses_double=region.uses_double)


def device_functions(texts: list[RegionText]) -> list[str]:
    """The device functions of all the regions, each once, callees first (a callee comes before its
    callers in each region's list, and a function keeps the place it has in the first region naming it)."""
    seen: dict[str, str] = {}
    for text in texts:
        for name, definition in text.device_functions:
            seen.setdefault(name, definition)
    return list(seen.values())


def type_declarations(texts: list[RegionText]) -> list[str]:
    """The types the regions name, each once, in their order."""
    return list(dict.fromkeys(d for text in texts for d in text.type_declarations))
