"""The targets, chosen once from the ``--target`` option: what the driver asks of each.

A region of the ``c`` target is replaced by C printed from its schedule.  A region of a GPU target
goes through the GPU stage and is replaced by a call of its host function, with the original loops
as the fallback; the target then says what goes into the C file at file scope and which file, if
any, it writes beside it.
"""

from __future__ import annotations

from polypragma.codegen import cuda_target, opencl_target
from polypragma.codegen.gpu import GpuSyntax, with_plain_asts
from polypragma.codegen.kernel_ast import with_kernel_asts
from polypragma.gpu.region import GpuRegion


class Target:
    name = ""
    gpu = False  # regions go through the GPU stage
    cuda_kernels = False  # kernels in CUDA C++: texture objects possible, register loops unrolled by default
    unit_suffix: str | None = None  # the suffix of a second output, ".cu" (None: the C file only)
    kernel_syntax: type[GpuSyntax] = GpuSyntax

    def kernel_asts(self, region: GpuRegion) -> GpuRegion:
        """``region`` with the ASTs of its kernels with promoted data, as this target's kernels hold
        them (its data in global memory where such an AST would cost too much), and of the others."""
        return with_plain_asts(with_kernel_asts(region, self.kernel_syntax.registers_across_barriers))

    def file_scope(self, regions: list[GpuRegion], source: str, *, fp_contract: bool, data: bool = False,
                   device_entries: bool = False) -> tuple[list[str], list[list[str]]]:
        """What the C file holds at file scope: what goes before its first generated region (or data
        directive: ``data``, the file has some; ``device_entries``: as for ``unit``), and what goes before
        each region, after the types it names (its prototype or host function)."""
        return [], [[] for _ in regions]

    def unit(self, regions: list[GpuRegion], source: str, *, fp_contract: bool,
             device_entries: bool = False, data: bool = False) -> list[str]:
        """The body of the second output (written even when ``regions`` is empty); ``device_entries``:
        host functions taking device buffers too (for the Python API); ``data``: the file has data
        directives, whose entry points it defines."""
        raise NotImplementedError


class C(Target):
    name = "c"


class Cuda(Target):
    name = "cuda"
    gpu = True
    cuda_kernels = True
    unit_suffix = ".cu"
    kernel_syntax = cuda_target.CudaSyntax

    def file_scope(self, regions: list[GpuRegion], source: str, *, fp_contract: bool, data: bool = False,
                   device_entries: bool = False) -> tuple[list[str], list[list[str]]]:
        return cuda_target.prototypes(regions, source if data else None)

    def unit(self, regions: list[GpuRegion], source: str, *, fp_contract: bool,
             device_entries: bool = False, data: bool = False) -> list[str]:
        if not regions and not data:
            return cuda_target.empty_unit(source)
        return cuda_target.generate(regions, source, fp_contract=fp_contract, device_entries=device_entries)


class OpenCL(Target):
    name = "opencl"
    gpu = True
    kernel_syntax = opencl_target.OpenCLSyntax

    def file_scope(self, regions: list[GpuRegion], source: str, *, fp_contract: bool, data: bool = False,
                   device_entries: bool = False) -> tuple[list[str], list[list[str]]]:
        return opencl_target.generate(regions, source, fp_contract=fp_contract, device_entries=device_entries)


TARGETS = {target.name: target for target in (Cuda(), OpenCL(), C())}
