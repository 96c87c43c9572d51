"""The ``opencl`` target: kernels in OpenCL C, embedded as a string in the C file,
and host code on the OpenCL C API (link with ``-lOpenCL``).

The program is built once per process, on the first region that runs, and
its kernels are kept; a GPU is preferred, any OpenCL device is taken
otherwise (PoCL's CPU device runs the tests).
"""

from __future__ import annotations

from polypragma.codegen.body import device_functions
from polypragma.codegen.printer import HELPER_DEFINITIONS
from polypragma.codegen.gpu import (GpuRegion, GpuSyntax, HostPrinter, c_string, host_ast,
                                    kernel_arrays, kernel_lines, kernel_scalar_params, symbol_stem, where_literal)
from polypragma.gpu.data import DeviceArray
from polypragma.gpu.mapping import Kernel


class OpenCLSyntax(GpuSyntax):
    opencl = True
    registers_across_barriers = False

    def kernel_header(self, name: str, params: list[str]) -> str:
        return f"__kernel void {name}({', '.join(params)})"

    def array_param(self, array: DeviceArray, placement: str, region: GpuRegion) -> str:
        if placement == "constant":
            return f"__constant {array.device_type} *restrict {array.name}"
        qualifier = "" if array.written else "const "
        return f"__global {qualifier}{array.device_type} *restrict {array.name}"

    def shared_declaration(self, ctype: str, name: str, dims: str) -> str:
        return f"__local {ctype} {name}{dims};"

    def barrier(self) -> str:
        # global too: a copy-in may read what another thread of the block wrote to global memory
        return "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"

    def block_id(self, dim: int) -> str:
        return f"(int)get_group_id({dim})"

    def thread_id(self, dim: int) -> str:
        return f"(int)get_local_id({dim})"


RUNTIME = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CL_TARGET_OPENCL_VERSION 120
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

/* POLYPRAGMA_DEVICE: "cpu" runs the original loops, "gpu" requires the device, unset or "auto" uses it if present */
static int polypragma_device_mode_@(void)
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

static struct {
  int tried, ready;
  cl_context context;
  cl_command_queue queue;
  cl_program program;
  cl_kernel kernels[@KERNEL_COUNT@];
} polypragma_cl_@;

/* A failure, always reported.  phase 0 (before the copy-out): the host data is untouched and the caller
   runs the original loops (1), unless POLYPRAGMA_DEVICE=gpu makes it fatal.  phase 1 (copying out): the
   host arrays may be partly overwritten, so the original loops would compute from wrong data: fatal.
   phase 2 (after it): the results are on the host, the region is done (0). */
static int polypragma_cl_fail_@(const char *call, cl_int error, const char *where, int phase)
{
  fprintf(stderr, "polypragma: %s: %s failed with OpenCL error %d\n", where, call, (int)error);
  if (phase == 1) {
    fprintf(stderr, "polypragma: %s: the host arrays may be partly overwritten; cannot fall back to the original "
            "loops\n", where);
    exit(1);
  }
  if (polypragma_device_mode_@() == 2)
    exit(1);
  return phase == 2 ? 0 : 1;
}

/* in the setup: return the failure */
#define POLYPRAGMA_CL_CHECK_@(call, where) \
  do { cl_int polypragma_error_ = (call); \
       if (polypragma_error_ != CL_SUCCESS) return polypragma_cl_fail_@(#call, polypragma_error_, where, 0); } while (0)

/* in a region's host function: record the failure and release what was allocated */
#define POLYPRAGMA_CL_REGION_CHECK_@(call) \
  do { cl_int polypragma_error_ = (call); \
       if (polypragma_error_ != CL_SUCCESS) { \
         polypragma_status = polypragma_cl_fail_@(#call, polypragma_error_, polypragma_where, polypragma_phase); \
         goto polypragma_release; } } while (0)

static const char *polypragma_cl_source_@ =
@SOURCE@;

static const char *polypragma_cl_kernel_names_@[] = { @NAMES@ };

/* 0 when the device is ready; 1 when the original loops must run */
static int polypragma_cl_setup_@(const char *where)
{
  cl_int error;
  cl_uint n_platforms = 0;
  cl_platform_id platforms[16];
  cl_device_id device = NULL;
  int mode = polypragma_device_mode_@();
  if (polypragma_cl_@.tried)
    return polypragma_cl_@.ready ? 0 : 1;
  polypragma_cl_@.tried = 1;
  if (mode == 1)
    return 1;
  if (clGetPlatformIDs(16, platforms, &n_platforms) != CL_SUCCESS || n_platforms == 0) {
    if (mode == 2) {
      fprintf(stderr, "polypragma: %s: no OpenCL platform found (POLYPRAGMA_DEVICE=gpu)\n", where);
      exit(1);
    }
    return 1;
  }
  for (cl_uint p = 0; p < n_platforms && device == NULL; ++p)
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU, 1, &device, NULL) != CL_SUCCESS)
      device = NULL;
  for (cl_uint p = 0; p < n_platforms && device == NULL; ++p)
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
      device = NULL;
  if (device == NULL) {
    if (mode == 2) {
      fprintf(stderr, "polypragma: %s: no OpenCL device found (POLYPRAGMA_DEVICE=gpu)\n", where);
      exit(1);
    }
    return 1;
  }
  polypragma_cl_@.context = clCreateContext(NULL, 1, &device, NULL, NULL, &error);
  POLYPRAGMA_CL_CHECK_@(error, where);
  polypragma_cl_@.queue = clCreateCommandQueue(polypragma_cl_@.context, device, 0, &error);
  POLYPRAGMA_CL_CHECK_@(error, where);
  polypragma_cl_@.program = clCreateProgramWithSource(polypragma_cl_@.context, 1, &polypragma_cl_source_@, NULL, &error);
  POLYPRAGMA_CL_CHECK_@(error, where);
  /* POLYPRAGMA_OPENCL_OPTIONS: more options for the OpenCL compiler, after polypragma's own (say
     -cl-opt-disable, for a driver whose optimiser miscompiles a kernel) */
  const char *extra = getenv("POLYPRAGMA_OPENCL_OPTIONS");
  const char *fixed = "@BUILD_OPTIONS@";
  char *options = malloc(strlen(fixed) + (extra ? strlen(extra) : 0) + 2);
  if (options == NULL)
    return polypragma_cl_fail_@("malloc", CL_OUT_OF_HOST_MEMORY, where, 0);
  sprintf(options, "%s %s", fixed, extra ? extra : "");
  error = clBuildProgram(polypragma_cl_@.program, 1, &device, options, NULL, NULL);
  if (error != CL_SUCCESS) {
    char log[16384];
    size_t size = 0;
    clGetProgramBuildInfo(polypragma_cl_@.program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, &size);
    log[size < sizeof log ? size : sizeof log - 1] = '\0';
    fprintf(stderr, "polypragma: %s: building the OpenCL program with options '%s' failed:\n%s\n", where, options,
            log);
    free(options);
    return polypragma_cl_fail_@("clBuildProgram", error, where, 0);
  }
  free(options);
  for (int k = 0; k < @KERNEL_COUNT@; ++k) {
    polypragma_cl_@.kernels[k] = clCreateKernel(polypragma_cl_@.program, polypragma_cl_kernel_names_@[k], &error);
    POLYPRAGMA_CL_CHECK_@(error, where);
  }
  polypragma_cl_@.ready = 1;
  return 0;
}
"""


def _arg(kernel_var: str, index: int, ctype: str, value: str, stem: str) -> str:
    return f"POLYPRAGMA_CL_REGION_CHECK_{stem}(clSetKernelArg({kernel_var}, {index}, sizeof({ctype}), &{value}));"


def host_function(region: GpuRegion, stem: str, kernel_offset: int, source: str) -> tuple[list[str], set[str]]:
    """The function running ``region``: 0 when it ran on the device, 1 when the caller must run the
    original loops.  A failed check jumps to the release of the buffers created so far."""
    where = where_literal(region, source)
    params = ", ".join(f"{t} {n}" for t, n in region.signature_parameters()) or "void"
    lines = [f"static int {region.function}({params})", "{",
             f"  const char *const polypragma_where = {where};",
             "  int polypragma_status = 0;",
             "  int polypragma_phase = 0;  /* 0: before the copy-out, 1: copying out, 2: done */",
             "  cl_int error;",
             "  if (polypragma_cl_setup_" + stem + "(polypragma_where) != 0)",
             "    return 1;"]
    for a in region.arrays:
        lines.append(f"  const size_t bytes_{a.name} = {a.elements} * sizeof({a.device_type});")
        lines.append(f"  cl_mem dev_{a.name} = NULL;")
    for a in region.arrays:
        lines.append(f"  dev_{a.name} = clCreateBuffer(polypragma_cl_{stem}.context, CL_MEM_READ_WRITE, "
                     f"bytes_{a.name} > 0 ? bytes_{a.name} : sizeof({a.device_type}), NULL, &error);")
        lines.append(f"  POLYPRAGMA_CL_REGION_CHECK_{stem}(error);")
    for a in region.arrays:
        if a.copy_in:
            lines.append(f"  if (bytes_{a.name} > 0)")
            lines.append(f"    POLYPRAGMA_CL_REGION_CHECK_{stem}(clEnqueueWriteBuffer(polypragma_cl_{stem}.queue, "
                         f"dev_{a.name}, CL_TRUE, 0, bytes_{a.name}, {a.host_name}, 0, NULL, NULL));")

    def launch(kernel: Kernel, hosts: list[str], counts: list[str], depth: int) -> list[str]:
        pad = "  " * depth
        var = f"polypragma_cl_{stem}.kernels[{kernel_offset + kernel.index}]"
        out = [f"{pad}{{  /* kernel {kernel.index}: {', '.join(kernel.statements)} */"]
        inner = pad + "  "
        index = 0
        for a in kernel_arrays(region, kernel):
            out.append(inner + _arg(var, index, "cl_mem", f"dev_{a.name}", stem))
            index += 1
        for j, (ctype, name) in enumerate(kernel_scalar_params(region, kernel)):
            value = name
            if name in kernel.host_params:
                value = f"host_{name}"
                out.append(f"{inner}const {ctype} {value} = {hosts[kernel.host_params.index(name)]};")
            out.append(inner + _arg(var, index, ctype, value, stem))
            index += 1
        if kernel.mapped:
            dims = kernel.mapped
            out.append(f"{inner}size_t local[{dims}], global[{dims}];")
            out.append(f"{inner}long tiles;")
            for d in range(dims):
                launch_dim = dims - 1 - d
                out.append(f"{inner}tiles = {counts[d]};")
                out.append(f"{inner}if (tiles > {kernel.sizes.grid[d]}) tiles = {kernel.sizes.grid[d]};")
                out.append(f"{inner}local[{launch_dim}] = {kernel.sizes.block[d]};")
                out.append(f"{inner}global[{launch_dim}] = (size_t)(tiles > 0 ? tiles : 0) * {kernel.sizes.block[d]};")
            condition = " && ".join(f"global[{d}] > 0" for d in range(dims))
            out.append(f"{inner}if ({condition})")
            out.append(f"{inner}  POLYPRAGMA_CL_REGION_CHECK_{stem}(clEnqueueNDRangeKernel(polypragma_cl_{stem}.queue, "
                       f"{var}, {dims}, NULL, global, local, 0, NULL, NULL));")
        else:
            out.append(f"{inner}size_t one = 1;")
            out.append(f"{inner}POLYPRAGMA_CL_REGION_CHECK_{stem}(clEnqueueNDRangeKernel(polypragma_cl_{stem}.queue, "
                       f"{var}, 1, NULL, &one, &one, 0, NULL, NULL));")
        out.append(f"{pad}}}")
        return out

    printer = HostPrinter(region, launch)
    lines += printer.node(host_ast(region), 1)
    lines += [f"  POLYPRAGMA_CL_REGION_CHECK_{stem}(clFinish(polypragma_cl_{stem}.queue));",
              "  polypragma_phase = 1;"]
    for a in region.arrays:
        if a.copy_out:
            lines.append(f"  if (bytes_{a.name} > 0)")
            lines.append(f"    POLYPRAGMA_CL_REGION_CHECK_{stem}(clEnqueueReadBuffer(polypragma_cl_{stem}.queue, "
                         f"dev_{a.name}, CL_TRUE, 0, bytes_{a.name}, {a.host_name}, 0, NULL, NULL));")
    lines += ["  polypragma_phase = 2;", "polypragma_release:"]
    for a in region.arrays:
        lines += [f"  if (dev_{a.name} != NULL) {{",
                  f"    error = clReleaseMemObject(dev_{a.name});",
                  "    if (error != CL_SUCCESS && polypragma_status == 0)",
                  f'      polypragma_status = polypragma_cl_fail_{stem}("clReleaseMemObject(dev_{a.name})", error, '
                  "polypragma_where, polypragma_phase);",
                  "  }"]
    lines += ["  return polypragma_status;", "}"]
    return lines, printer.helpers_used


def generate(regions: list[GpuRegion], source: str, *, fp_contract: bool = True) -> list[str]:
    """The block inserted into the C file: the OpenCL runtime, the kernels' source and the host functions."""
    stem = symbol_stem(source)
    syntax = OpenCLSyntax()
    kernel_text: list[str] = []
    kernel_macros: set[str] = set()  # macro definitions the kernels use
    host_helpers: set[str] = set()  # helper names the host code uses
    names: list[str] = []
    uses_double = any(r.uses_double for r in regions)
    host: list[str] = []
    offset = 0
    for region in regions:
        for kernel in region.mapping.kernels:
            macros, lines = kernel_lines(region, kernel, syntax)
            kernel_macros |= set(macros)
            kernel_text += lines + [""]
            names.append(f'"{region.kernel_names[kernel.index]}"')
        function, used = host_function(region, stem, offset, source)
        host_helpers |= used
        host += function + [""]
        offset += len(region.mapping.kernels)
    prologue = []
    if uses_double:
        prologue.append("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
    if not fp_contract:
        prologue.append("#pragma OPENCL FP_CONTRACT OFF")
    prologue += sorted(kernel_macros)
    # the types and enumerators the kernels use, as the source defines them
    prologue += list(dict.fromkeys(d for region in regions for d in region.scop.type_declarations))
    prologue += device_functions(regions, opencl=True)
    program = "\n".join(prologue + kernel_text)
    runtime = RUNTIME.replace("@KERNEL_COUNT@", str(max(offset, 1))).replace("@SOURCE@", "\n".join(c_string(program)))
    runtime = runtime.replace("@NAMES@", ", ".join(names) or "0").replace(
        "@BUILD_OPTIONS@", "" if fp_contract else "-cl-fp32-correctly-rounded-divide-sqrt")
    runtime = runtime.replace("@", stem)
    guarded = []
    for name in sorted(host_helpers):
        definition = HELPER_DEFINITIONS[name]
        macro = definition.split()[1].split("(")[0]
        guarded += [f"#ifndef {macro}", definition, "#endif"]
    return runtime.strip("\n").split("\n") + [""] + guarded + host
