"""The ``cuda`` target: ``NAME.polypragma.cu`` with the kernels and one ``extern "C"``
host function per region; the C file declares and calls them.

The C file needs no CUDA header and compiles with the project's C compiler;
the ``.cu`` file compiles with nvcc; linking needs only cudart.
"""

from __future__ import annotations

from polypragma import timing
from polypragma.codegen.gpu import GpuSyntax, kernel_lines
from polypragma.codegen.host import HostSyntax, host_function, runtime
from polypragma.codegen.printer import helper_macros
from polypragma.codegen.body import device_functions
from polypragma.gpu.data import DeviceArray
from polypragma.gpu.mapping import Kernel
from polypragma.gpu.memory import Placement
from polypragma.gpu.region import GpuRegion, symbol_stem


class CudaSyntax(GpuSyntax, HostSyntax):
    """How CUDA spells kernels and the host side."""

    prefix = "cuda"
    storage = 'extern "C" '
    error_type = "cudaError_t"
    success = "cudaSuccess"
    error_format = ": %s"
    error_value = "cudaGetErrorString(error)"
    release_call = "cudaFree"

    def buffer_type(self, array: DeviceArray) -> str:
        return f"{array.device_type} *"

    def declarations(self, region: GpuRegion) -> list[str]:
        lines = ["  const int profile = polypragma_profiling();",
                 "  const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();",
                 "  cudaEvent_t events[4];",
                 "  int events_created = 0;"]
        lines += [f"  cudaTextureObject_t texture_{a.name} = 0;" for a in texture_arrays(region)]
        return lines

    def allocate(self, region: GpuRegion, array: DeviceArray) -> list[str]:
        if array.name in region.constant:
            return []  # a __constant__ symbol of the file
        size = f"bytes_{array.name} > 0 ? bytes_{array.name} : sizeof({array.device_type})"
        return ["  " + self.checked(f"cudaMalloc((void **)&dev_{array.name}, {size})")]

    def copy_in(self, region: GpuRegion, array: DeviceArray) -> str:
        if array.name in region.constant:
            return f"cudaMemcpyToSymbol({constant_symbol(region, array)}, {array.host_name}, bytes_{array.name})"
        return f"cudaMemcpy(dev_{array.name}, {array.host_name}, bytes_{array.name}, cudaMemcpyHostToDevice)"

    def copy_in_from_device(self, region: GpuRegion, array: DeviceArray) -> str:
        return (f"cudaMemcpyToSymbol({constant_symbol(region, array)}, dev_{array.name}, bytes_{array.name}, 0, "
                "cudaMemcpyDeviceToDevice)")

    def copy_out(self, array: DeviceArray) -> str:
        return f"cudaMemcpy({array.host_name}, dev_{array.name}, bytes_{array.name}, cudaMemcpyDeviceToHost)"

    def synchronise(self) -> str:
        return "cudaDeviceSynchronize()"

    def kernel_argument(self, region: GpuRegion, kernel: Kernel, array: DeviceArray) -> tuple[str, str] | None:
        placement = region.placement(kernel, array)
        if placement is Placement.CONSTANT:
            return None
        if placement is Placement.TEXTURE:
            return "cudaTextureObject_t", f"texture_{array.name}"
        return f"{array.device_type} *", f"dev_{array.name}"

    def launch(self, region: GpuRegion, kernel: Kernel, arguments: list[tuple[str, str]], grid: list[str],
               block: list[str], pad: str) -> list[str]:
        grid = [g if g.isdigit() else f"(unsigned){g}" for g in grid] + ["1"] * (3 - len(grid))
        block = block + ["1"] * (3 - len(block))
        return [f"{pad}dim3 grid({', '.join(grid)}), block({', '.join(block)});",
                f"{pad}{region.kernel_names[kernel.index]}<<<grid, block>>>({', '.join(v for _, v in arguments)});",
                f"{pad}{self.checked('cudaGetLastError()')}"]

    def at(self, region: GpuRegion, point: str) -> list[str]:
        # profiling events: region start, after copy-in, after the kernels, after copy-out
        record = {"allocated": 0, "copied in": 1, "launched": 2}
        lines = []
        if point == "copied in":
            lines += self._create_textures(region)
        if point in record:
            lines += ["  if (profile)", f"    {self.checked(f'cudaEventRecord(events[{record[point]}], 0)')}"]
        elif point == "start":
            lines += ["  if (profile) {",
                      "    for (; events_created < 4; events_created++)",
                      f"      {self.checked('cudaEventCreate(&events[events_created])')}",
                      "  }"]
        elif point == "done":
            lines += ["  if (profile) {",
                      f"    {self.checked('cudaEventRecord(events[3], 0)')}",
                      f"    {self.checked('cudaEventSynchronize(events[3])')}",
                      "    polypragma_profile_report(events, started, polypragma_where);",
                      "  }"]
        elif point == "release":
            for a in texture_arrays(region):
                lines += self.released(f"cudaDestroyTextureObject(texture_{a.name})", f"texture_{a.name} != 0")
        elif point == "released":
            lines += self.released("cudaEventDestroy(events[--events_created])", "events_created > 0", "while")
        return lines

    def _create_textures(self, region: GpuRegion) -> list[str]:
        lines = []
        for a in texture_arrays(region):
            create = f"cudaCreateTextureObject(&texture_{a.name}, &resource, &description, NULL)"
            lines += ["  {",
                      "    cudaResourceDesc resource;",
                      "    memset(&resource, 0, sizeof(resource));",
                      "    resource.resType = cudaResourceTypeLinear;",
                      f"    resource.res.linear.devPtr = dev_{a.name};",
                      f"    resource.res.linear.desc = cudaCreateChannelDesc<{TEXTURE_CHANNEL[a.device_type]}>();",
                      f"    resource.res.linear.sizeInBytes = bytes_{a.name} > 0 ? bytes_{a.name} : "
                      f"sizeof({a.device_type});",
                      "    cudaTextureDesc description;",
                      "    memset(&description, 0, sizeof(description));",
                      "    description.readMode = cudaReadModeElementType;",
                      f"    {self.checked(create)}",
                      "  }"]
        return lines

    # -- kernels -------------------------------------------------------------------------
    def kernel_header(self, name: str, params: list[str]) -> str:
        return f"__global__ void {name}({', '.join(params)})"

    def array_param(self, array: DeviceArray, placement: Placement, region: GpuRegion) -> str | None:
        if placement is Placement.CONSTANT:
            return None  # a __constant__ symbol of the file
        if placement is Placement.TEXTURE:
            return f"cudaTextureObject_t {array.name}_texture"
        qualifier = "" if array.written else "const "
        return f"{qualifier}{array.device_type} *__restrict__ {array.name}"

    def shared_declaration(self, ctype: str, name: str, dims: str) -> str:
        return f"__shared__ {ctype} {name}{dims};"

    def barrier(self) -> str:
        return "__syncthreads();"

    def array_access(self, array: DeviceArray, placement: Placement, region: GpuRegion, index: str) -> str | None:
        if placement is Placement.CONSTANT:
            return f"{constant_symbol(region, array)}[{index}]"
        if placement is Placement.TEXTURE:
            return f"polypragma_fetch_{array.device_type.replace(' ', '_')}({array.name}_texture, {index})"
        return None


    def block_id(self, dim: int) -> str:
        return f"(int)blockIdx.{'xyz'[dim]}"

    def thread_id(self, dim: int) -> str:
        return f"(int)threadIdx.{'xyz'[dim]}"



def constant_symbol(region: GpuRegion, array: DeviceArray) -> str:
    return f"{region.function}_{array.name}"


TEXTURE_FETCH = {
    "float": "static __device__ float polypragma_fetch_float(cudaTextureObject_t t, long i) "
             "{ return tex1Dfetch<float>(t, (int)i); }",
    "int": "static __device__ int polypragma_fetch_int(cudaTextureObject_t t, long i) "
           "{ return tex1Dfetch<int>(t, (int)i); }",
    "unsigned int": "static __device__ unsigned int polypragma_fetch_unsigned_int(cudaTextureObject_t t, long i) "
                    "{ return tex1Dfetch<unsigned int>(t, (int)i); }",
    # textures have no double channel: fetch the two halves
    "double": "static __device__ double polypragma_fetch_double(cudaTextureObject_t t, long i) "
              "{ const int2 v = tex1Dfetch<int2>(t, (int)i); return __hiloint2double(v.y, v.x); }",
}
TEXTURE_CHANNEL = {"float": "float", "int": "int", "unsigned int": "unsigned int", "double": "int2"}


INCLUDES = ["#include <cstdio>", "#include <cstdlib>", "#include <cstring>", "#include <chrono>",
            "#include <cuda_runtime.h>"]

RUNTIME = r"""
/* POLYPRAGMA_PROFILE set (and not "0"): each region reports its phases on stderr, timed with CUDA events */
static int polypragma_profiling(void)
{
  static int on = -1;
  if (on < 0) {
    const char *value = getenv("POLYPRAGMA_PROFILE");
    on = value != NULL && value[0] != '\0' && strcmp(value, "0") != 0;
  }
  return on;
}

/* events: region start, after copy-in, after the kernels, after copy-out; started: before allocation */
static void polypragma_profile_report(cudaEvent_t *events, std::chrono::steady_clock::time_point started,
                                      const char *where)
{
  float ms[3];
  for (int k = 0; k < 3; k++) {
    cudaError_t error = cudaEventElapsedTime(&ms[k], events[k], events[k + 1]);
    if (error != cudaSuccess) {
      fprintf(stderr, "polypragma: %s: cudaEventElapsedTime failed: %s (no profile)\n", where,
              cudaGetErrorString(error));
      return;
    }
  }
  double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  fprintf(stderr, "polypragma: profile: %s: copy-in %.3f ms, kernels %.3f ms, copy-out %.3f ms, "
          "total %.3f ms (%.3f ms with allocation)\n", where, ms[0], ms[1], ms[2], ms[0] + ms[1] + ms[2], wall);
}

/* 0 when a device is there to use; 1 when the original loops must run.  A missing device is fatal under
   POLYPRAGMA_DEVICE=gpu at every call (a library goes on after reporting it, see POLYPRAGMA_FATAL). */
static int polypragma_cuda_setup(const char *where)
{
  static int state = -1;
  static cudaError_t error = cudaSuccess;
  int mode = polypragma_device_mode();
  if (mode == 1)
    return 1;
  if (state < 0) {
    int count = 0;
    error = cudaGetDeviceCount(&count);
    state = error == cudaSuccess && count > 0;
  }
  if (!state && mode == 2) {
    POLYPRAGMA_REPORT("polypragma: %s: no CUDA device (POLYPRAGMA_DEVICE=gpu): %s\n", where,
                      error == cudaSuccess || error == cudaErrorNoDevice ? "no NVIDIA GPU found"
                      : error == cudaErrorInsufficientDriver ? "no NVIDIA driver found (or one older than the CUDA runtime)"
                      : cudaGetErrorString(error));
    POLYPRAGMA_FATAL();
  }
  return state ? 0 : 1;
}
"""


def texture_arrays(region: GpuRegion) -> list[DeviceArray]:
    """Arrays some kernel of ``region`` reads through a texture object."""
    return [a for a in region.arrays
            if any(region.placement(k, a) is Placement.TEXTURE for k in region.mapping.kernels)]


def prototypes(regions: list[GpuRegion]) -> list[str]:
    """Declarations of the host functions, for the C file."""
    out = []
    for region in regions:
        params = ", ".join(f"{t} {n}" for t, n in region.signature_parameters()) or "void"
        out.append(f"int {region.function}({params});")
    return out


def generate(regions: list[GpuRegion], source: str, *, fp_contract: bool = True,
             device_entries: bool = False) -> list[str]:
    """The body of the ``.cu`` file; with ``device_entries``, each region's host function also in the
    form taking the caller's device buffers (``<function>_device``, for the Python API)."""
    syntax = CudaSyntax()
    # the types and enumerators the kernels use, as the source defines them (the .cu does not see it)
    kernels: list[str] = list(dict.fromkeys(d for region in regions for d in region.scop.type_declarations))
    kernels += device_functions(regions, opencl=False)
    kernels += [""] if kernels else []
    fetches = sorted({TEXTURE_FETCH[a.device_type] for region in regions for a in texture_arrays(region)})
    kernels += fetches + ([""] if fetches else [])
    for region in regions:
        for a in region.arrays:
            if a.name in region.constant:
                kernels.append(f"__constant__ {a.device_type} {constant_symbol(region, a)}[{a.constant_elements}];")
    if any(region.constant for region in regions):
        kernels.append("")
    host: list[str] = []
    macros: set[str] = set()
    for region in regions:
        for kernel in region.mapping.kernels:
            with timing.part(f"{region.scop.region}: kernel {kernel.index} (AST, shared-memory copies, printing)"):
                helpers, lines = kernel_lines(region, kernel, syntax)
            macros |= set(helpers)
            kernels += lines + [""]
        with timing.part(f"{region.scop.region}: host function"):
            function, used = host_function(region, syntax, source)
            macros |= used
            host += function + [""]
            if device_entries:
                host += host_function(region, syntax, source, caller_buffers=True)[0] + [""]
    includes = INCLUDES if fp_contract else INCLUDES + [
        "/* compile with nvcc -fmad=false for results that match the CPU bit for bit */"]
    prelude = includes + [""] + runtime(syntax) + RUNTIME.rstrip("\n").split("\n")
    return prelude + [""] + helper_macros(macros) + [""] + kernels + host


def empty_unit(stem: str) -> list[str]:
    """The ``.cu`` file of a source without regions: valid, and defines nothing."""
    return [f"/* no region in this file: nothing to run on the device ({symbol_stem(stem)}) */"]
