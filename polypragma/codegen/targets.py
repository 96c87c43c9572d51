"""The targets, chosen once from the ``--target`` option: what the driver asks of each.

A region of the ``c`` target is replaced by C printed from its schedule.  A region of a GPU target
goes through the GPU stage and is replaced by a call of its host function, with the original loops
as the fallback; the target then says what goes into the C file at file scope and which file, if
any, it writes beside it.  A region's GPU code reaches the file as text (region_text.RegionText): the
GPU stage runs in a forked process, which carries text back.
"""

from __future__ import annotations

from polypragma.codegen import cuda_target, opencl_target
from polypragma.codegen.gpu import GpuSyntax, with_plain_asts
from polypragma.codegen.kernel_ast import with_kernel_asts
from polypragma.codegen.region_text import RegionText
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

    def region_text(self, region: GpuRegion, source: str, kernel_offset: int,
                    device_entries: bool = False) -> RegionText:
        """``region``'s share of the output as text, its kernels numbered from ``kernel_offset`` (the
        kernels of the regions before it); ``device_entries``: its host function also taking device
        buffers (for the Python API)."""
        raise NotImplementedError

    def file_scope(self, texts: list[RegionText], source: str, *, fp_contract: bool, data: bool = False,
                   device_entries: bool = False) -> tuple[list[str], list[list[str]]]:
        """What the C file holds at file scope: what goes before its first generated region (or data
        directive: ``data``, the file has some; ``device_entries``: the regions' texts have host
        functions taking device buffers), and what goes before each region, after the types it names
        (its prototype or host function)."""
        return [], [[] for _ in texts]

    def unit(self, texts: list[RegionText], source: str, *, fp_contract: bool, data: bool = False) -> list[str]:
        """The body of the second output (written even when ``texts`` is empty); ``data``: the file has
        data directives, whose entry points it defines."""
        raise NotImplementedError


class C(Target):
    name = "c"


class Cuda(Target):
    name = "cuda"
    gpu = True
    cuda_kernels = True
    unit_suffix = ".cu"
    kernel_syntax = cuda_target.CudaSyntax

    def region_text(self, region: GpuRegion, source: str, kernel_offset: int,
                    device_entries: bool = False) -> RegionText:
        return cuda_target.region_text(region, source, device_entries)

    def file_scope(self, texts: list[RegionText], source: str, *, fp_contract: bool, data: bool = False,
                   device_entries: bool = False) -> tuple[list[str], list[list[str]]]:
        return cuda_target.prototypes(texts, source if data else None)

    def unit(self, texts: list[RegionText], source: str, *, fp_contract: bool, data: bool = False) -> list[str]:
        if not texts and not data:
            return cuda_target.empty_unit(source)
        return cuda_target.generate(texts, source, fp_contract=fp_contract)


class OpenCL(Target):
    name = "opencl"
    gpu = True
    kernel_syntax = opencl_target.OpenCLSyntax

    def region_text(self, region: GpuRegion, source: str, kernel_offset: int,
                    device_entries: bool = False) -> RegionText:
        return opencl_target.region_text(region, source, kernel_offset, device_entries)

    def file_scope(self, texts: list[RegionText], source: str, *, fp_contract: bool, data: bool = False,
                   device_entries: bool = False) -> tuple[list[str], list[list[str]]]:
        return opencl_target.generate(texts, source, fp_contract=fp_contract, device_entries=device_entries)


TARGETS = {target.name: target for target in (Cuda(), OpenCL(), C())}
