"""The ``cuda`` target: ``NAME.polypragma.cu`` with the kernels and one ``extern "C"``
host function per region; the C file declares and calls them.

The C file needs no CUDA header and compiles with the project's C compiler;
the ``.cu`` file compiles with nvcc; linking needs only cudart.
"""

from __future__ import annotations

from polypragma.codegen.gpu import (GpuRegion, GpuSyntax, HostPrinter, host_ast, kernel_arrays,
                                    kernel_lines, kernel_scalar_params, symbol_stem, where_literal)
from polypragma.codegen.body import device_functions
from polypragma.codegen.printer import HELPER_DEFINITIONS
from polypragma.gpu.data import DeviceArray
from polypragma.gpu.mapping import Kernel


class CudaSyntax(GpuSyntax):
    def kernel_header(self, name: str, params: list[str]) -> str:
        return f"__global__ void {name}({', '.join(params)})"

    def array_param(self, array: DeviceArray, placement: str, region: GpuRegion) -> str | None:
        if placement == "constant":
            return None  # a __constant__ symbol of the file
        if placement == "texture":
            return f"cudaTextureObject_t {array.name}_texture"
        qualifier = "" if array.written else "const "
        return f"{qualifier}{array.device_type} *__restrict__ {array.name}"

    def shared_declaration(self, ctype: str, name: str, dims: str) -> str:
        return f"__shared__ {ctype} {name}{dims};"

    def barrier(self) -> str:
        return "__syncthreads();"

    def array_access(self, array: DeviceArray, placement: str, region: GpuRegion, index: str) -> str | None:
        if placement == "constant":
            return f"{constant_symbol(region, array)}[{index}]"
        if placement == "texture":
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


RUNTIME = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <cuda_runtime.h>

/* POLYPRAGMA_DEVICE: "cpu" runs the original loops, "gpu" requires the device, unset or "auto" uses it if present */
static int polypragma_device_mode(void)
{
  const char *mode = getenv("POLYPRAGMA_DEVICE");
  if (mode == NULL || mode[0] == '\0' || strcmp(mode, "auto") == 0)
    return 0;
  if (strcmp(mode, "cpu") == 0)
    return 1;
  if (strcmp(mode, "gpu") == 0)
    return 2;
  fprintf(stderr, "polypragma: POLYPRAGMA_DEVICE must be 'cpu', 'gpu' or 'auto', not '%s'\n", mode);
  exit(1);
}

/* The phases of a region's host function, which decide what a failure leads to */
enum { POLYPRAGMA_BEFORE_COPY_OUT, POLYPRAGMA_COPYING_OUT, POLYPRAGMA_DONE };

/* A failure, always reported.  Before the copy-out the host data is untouched: the caller runs the
   original loops (1), unless POLYPRAGMA_DEVICE=gpu makes it fatal.  During the copy-out the host arrays
   may be partly overwritten, so running the original loops would be wrong: fatal.  After it the results
   are on the host: the region is done (0). */
static int polypragma_cuda_fail(const char *call, cudaError_t error, const char *where, int phase)
{
  fprintf(stderr, "polypragma: %s: %s failed: %s\n", where, call, cudaGetErrorString(error));
  if (phase == POLYPRAGMA_COPYING_OUT) {
    fprintf(stderr, "polypragma: %s: the host arrays may be partly overwritten; cannot fall back to the original "
            "loops\n", where);
    exit(1);
  }
  if (polypragma_device_mode() == 2)
    exit(1);
  return phase == POLYPRAGMA_DONE ? 0 : 1;
}

/* In a region's host function: on failure, record the status and release what was allocated */
#define POLYPRAGMA_CUDA_CHECK(call) \
  do { cudaError_t polypragma_error_ = (call); \
       if (polypragma_error_ != cudaSuccess) { \
         polypragma_status = polypragma_cuda_fail(#call, polypragma_error_, polypragma_where, polypragma_phase); \
         goto polypragma_release; } } while (0)

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

/* 0 when a device is there to use; 1 when the original loops must run */
static int polypragma_cuda_setup(const char *where)
{
  static int state = -1;
  int mode = polypragma_device_mode();
  if (mode == 1)
    return 1;
  if (state < 0) {
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    state = error == cudaSuccess && count > 0;
    if (!state && mode == 2) {
      fprintf(stderr, "polypragma: %s: no CUDA device (POLYPRAGMA_DEVICE=gpu): %s\n", where,
              error == cudaSuccess ? "no device found" : cudaGetErrorString(error));
      exit(1);
    }
  }
  return state ? 0 : 1;
}
"""


def host_function(region: GpuRegion, source: str) -> tuple[list[str], set[str]]:
    """The ``extern "C"`` function running ``region``: 0 when it ran on the device, 1 when the caller
    must run the original loops.  Every declaration precedes the first check, whose failure jumps to
    the release of what was allocated."""
    where = where_literal(region, source)
    params = ", ".join(f"{t} {n}" for t, n in region.signature_parameters()) or "void"
    lines = [f'extern "C" int {region.function}({params})', "{",
             f"  const char *const polypragma_where = {where};",
             "  if (polypragma_cuda_setup(polypragma_where) != 0)", "    return 1;",
             "  int polypragma_status = 0;",
             "  int polypragma_phase = POLYPRAGMA_BEFORE_COPY_OUT;",
             "  const int profile = polypragma_profiling();",
             "  const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();",
             "  cudaEvent_t events[4];",
             "  int events_created = 0;"]
    textures = texture_arrays(region)
    for a in region.arrays:
        lines.append(f"  const size_t bytes_{a.name} = {a.elements} * sizeof({a.device_type});")
        lines.append(f"  {a.device_type} *dev_{a.name} = NULL;")
    for a in textures:
        lines.append(f"  cudaTextureObject_t texture_{a.name} = 0;")
    lines += ["  if (profile) {",
              "    for (; events_created < 4; events_created++)",
              "      POLYPRAGMA_CUDA_CHECK(cudaEventCreate(&events[events_created]));",
              "  }"]
    for a in region.arrays:
        if a.name in region.constant:
            continue
        lines.append(f"  POLYPRAGMA_CUDA_CHECK(cudaMalloc((void **)&dev_{a.name}, bytes_{a.name} > 0 ? bytes_{a.name} "
                     f": sizeof({a.device_type})));")
    lines += ["  if (profile)", "    POLYPRAGMA_CUDA_CHECK(cudaEventRecord(events[0], 0));"]
    for a in region.arrays:
        if a.name in region.constant:
            lines.append(f"  if (bytes_{a.name} > 0)")
            lines.append(f"    POLYPRAGMA_CUDA_CHECK(cudaMemcpyToSymbol({constant_symbol(region, a)}, {a.host_name}, "
                         f"bytes_{a.name}));")
        elif a.copy_in:
            lines.append(f"  if (bytes_{a.name} > 0)")
            lines.append(f"    POLYPRAGMA_CUDA_CHECK(cudaMemcpy(dev_{a.name}, {a.host_name}, bytes_{a.name}, "
                         "cudaMemcpyHostToDevice));")
    for a in textures:
        lines += ["  {",
                  "    cudaResourceDesc resource;",
                  "    memset(&resource, 0, sizeof(resource));",
                  "    resource.resType = cudaResourceTypeLinear;",
                  f"    resource.res.linear.devPtr = dev_{a.name};",
                  f"    resource.res.linear.desc = cudaCreateChannelDesc<{TEXTURE_CHANNEL[a.device_type]}>();",
                  f"    resource.res.linear.sizeInBytes = bytes_{a.name} > 0 ? bytes_{a.name} : sizeof({a.device_type});",
                  "    cudaTextureDesc description;",
                  "    memset(&description, 0, sizeof(description));",
                  "    description.readMode = cudaReadModeElementType;",
                  f"    POLYPRAGMA_CUDA_CHECK(cudaCreateTextureObject(&texture_{a.name}, &resource, &description, NULL));",
                  "  }"]

    def launch(kernel: Kernel, hosts: list[str], counts: list[str], depth: int) -> list[str]:
        pad = "  " * depth
        inner = pad + "  "
        out = [f"{pad}{{  /* kernel {kernel.index}: {', '.join(kernel.statements)} */"]
        args = []
        for a in kernel_arrays(region, kernel):
            placement = region.placement(kernel, a)
            if placement != "constant":
                args.append(f"texture_{a.name}" if placement == "texture" else f"dev_{a.name}")
        for ctype, name in kernel_scalar_params(region, kernel):
            args.append(hosts[kernel.host_params.index(name)] if name in kernel.host_params else name)
        grid = ["1", "1", "1"]
        block = ["1", "1", "1"]
        if kernel.mapped:
            out.append(f"{inner}long tiles[{kernel.mapped}];")
            for d in range(kernel.mapped):
                launch_dim = kernel.mapped - 1 - d
                out.append(f"{inner}tiles[{d}] = {counts[d]};")
                out.append(f"{inner}if (tiles[{d}] > {kernel.sizes.grid[d]}) tiles[{d}] = {kernel.sizes.grid[d]};")
                grid[launch_dim] = f"(unsigned)tiles[{d}]"
                block[launch_dim] = str(kernel.sizes.block[d])
            condition = " && ".join(f"tiles[{d}] > 0" for d in range(kernel.mapped))
        else:
            condition = "1"
        out.append(f"{inner}if ({condition}) {{")
        out.append(f"{inner}  dim3 grid({', '.join(grid)}), block({', '.join(block)});")
        out.append(f"{inner}  {region.kernel_names[kernel.index]}<<<grid, block>>>({', '.join(args)});")
        out.append(f"{inner}  POLYPRAGMA_CUDA_CHECK(cudaGetLastError());")
        out.append(f"{inner}}}")
        out.append(f"{pad}}}")
        return out

    printer = HostPrinter(region, launch)
    lines += ["  if (profile)", "    POLYPRAGMA_CUDA_CHECK(cudaEventRecord(events[1], 0));"]
    lines += printer.node(host_ast(region), 1)
    lines += ["  if (profile)", "    POLYPRAGMA_CUDA_CHECK(cudaEventRecord(events[2], 0));",
              "  POLYPRAGMA_CUDA_CHECK(cudaDeviceSynchronize());",
              "  polypragma_phase = POLYPRAGMA_COPYING_OUT;"]
    for a in region.arrays:
        if a.copy_out:
            lines.append(f"  if (bytes_{a.name} > 0)")
            lines.append(f"    POLYPRAGMA_CUDA_CHECK(cudaMemcpy({a.host_name}, dev_{a.name}, bytes_{a.name}, "
                         "cudaMemcpyDeviceToHost));")
    lines += ["  polypragma_phase = POLYPRAGMA_DONE;",
              "  if (profile) {",
              "    POLYPRAGMA_CUDA_CHECK(cudaEventRecord(events[3], 0));",
              "    POLYPRAGMA_CUDA_CHECK(cudaEventSynchronize(events[3]));",
              "    polypragma_profile_report(events, started, polypragma_where);",
              "  }",
              "polypragma_release:"]
    for a in textures:
        lines += [f"  if (texture_{a.name} != 0)", f"    cudaDestroyTextureObject(texture_{a.name});"]
    for a in region.arrays:
        lines += [f"  if (dev_{a.name} != NULL) {{",
                  f"    const cudaError_t error = cudaFree(dev_{a.name});",
                  "    if (error != cudaSuccess && polypragma_status == 0)",
                  f'      polypragma_status = polypragma_cuda_fail("cudaFree(dev_{a.name})", error, polypragma_where, '
                  "polypragma_phase);",
                  "  }"]
    lines += ["  while (events_created > 0)",
              "    cudaEventDestroy(events[--events_created]);",
              "  return polypragma_status;", "}"]
    return lines, printer.helpers_used


def texture_arrays(region: GpuRegion) -> list[DeviceArray]:
    """Arrays some kernel of ``region`` reads through a texture object."""
    return [a for a in region.arrays if any(region.placement(k, a) == "texture" for k in region.mapping.kernels)]


def prototypes(regions: list[GpuRegion]) -> list[str]:
    """Declarations of the host functions, for the C file."""
    out = []
    for region in regions:
        params = ", ".join(f"{t} {n}" for t, n in region.signature_parameters()) or "void"
        out.append(f"int {region.function}({params});")
    return out


def generate(regions: list[GpuRegion], source: str) -> list[str]:
    """The body of the ``.cu`` file."""
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
            helpers, lines = kernel_lines(region, kernel, syntax)
            macros |= set(helpers)
            kernels += lines + [""]
        function, used = host_function(region, source)
        macros |= {HELPER_DEFINITIONS[name] for name in used}
        host += function + [""]
    guarded = []
    for definition in sorted(macros):
        macro = definition.split()[1].split("(")[0]
        guarded += [f"#ifndef {macro}", definition, "#endif"]
    return RUNTIME.strip("\n").split("\n") + [""] + guarded + [""] + kernels + host


def empty_unit(stem: str) -> list[str]:
    """The ``.cu`` file of a source without regions: valid, and defines nothing."""
    return [f"/* no region in this file: nothing to run on the device ({symbol_stem(stem)}) */"]
