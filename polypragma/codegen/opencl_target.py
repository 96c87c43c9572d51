"""The ``opencl`` target: kernels in OpenCL C, embedded as a string in the C file,
and host code on the OpenCL C API (link with ``-lOpenCL``).

The program is built once per process, on the first region that runs, and
its kernels are kept; a GPU is preferred, any OpenCL device is taken
otherwise (PoCL's CPU device runs the tests).
"""

from __future__ import annotations

from string import Template

from polypragma import timing
from polypragma.codegen.body import device_functions
from polypragma.codegen.gpu import GpuSyntax, kernel_lines
from polypragma.codegen.host import HostSyntax, c_string, host_function, runtime
from polypragma.codegen.printer import helper_macros
from polypragma.gpu.data import DeviceArray
from polypragma.gpu.mapping import Kernel
from polypragma.gpu.memory import Placement
from polypragma.gpu.region import GpuRegion, symbol_stem


class OpenCLSyntax(GpuSyntax, HostSyntax):
    """How OpenCL spells kernels and the host side; one per generated file, whose stem suffixes the
    runtime's names."""

    opencl = True
    registers_across_barriers = False
    prefix = "cl"
    storage = "static "
    error_type = "cl_int"
    success = "CL_SUCCESS"
    error_format = " with OpenCL error %d"
    error_value = "(int)error"
    release_call = "clReleaseMemObject"

    def __init__(self, stem: str):
        super().__init__(f"_{stem}")
        self.state = f"polypragma_cl_{stem}"  # the context, queue, program and kernels of the file
        self.kernel_offsets: dict[str, int] = {}  # region function -> index of its first kernel

    def buffer_type(self, array: DeviceArray) -> str:
        return "cl_mem "

    def declarations(self, region: GpuRegion) -> list[str]:
        return ["  cl_int created;"] if region.arrays else []  # the status of clCreateBuffer

    def allocate(self, region: GpuRegion, array: DeviceArray) -> list[str]:
        size = f"bytes_{array.name} > 0 ? bytes_{array.name} : sizeof({array.device_type})"
        # the check names the call: the buffer and the status are its value
        create = f"clCreateBuffer({self.state}.context, CL_MEM_READ_WRITE, {size}, NULL, &created)"
        return ["  " + self.checked(f"(dev_{array.name} = {create}, created)")]

    def copy_in(self, region: GpuRegion, array: DeviceArray) -> str:
        return (f"clEnqueueWriteBuffer({self.state}.queue, dev_{array.name}, CL_TRUE, 0, bytes_{array.name}, "
                f"{array.host_name}, 0, NULL, NULL)")

    def copy_out(self, array: DeviceArray) -> str:
        return (f"clEnqueueReadBuffer({self.state}.queue, dev_{array.name}, CL_TRUE, 0, bytes_{array.name}, "
                f"{array.host_name}, 0, NULL, NULL)")

    def synchronise(self) -> str:
        return f"clFinish({self.state}.queue)"

    def kernel_argument(self, region: GpuRegion, kernel: Kernel, array: DeviceArray) -> tuple[str, str]:
        return "cl_mem", f"dev_{array.name}"  # constant memory is a buffer too

    def launch(self, region: GpuRegion, kernel: Kernel, arguments: list[tuple[str, str]], grid: list[str],
               block: list[str], pad: str) -> list[str]:
        var = f"{self.state}.kernels[{self.kernel_offsets[region.function] + kernel.index}]"
        out = [pad + self.checked(f"clSetKernelArg({var}, {k}, sizeof({ctype}), &{value})")
               for k, (ctype, value) in enumerate(arguments)]
        sizes = [str(int(g) * int(b)) if g.isdigit() else f"(size_t){g} * {b}" for g, b in zip(grid, block)]
        dims = len(grid)
        out.append(f"{pad}size_t global[{dims}] = {{{', '.join(sizes)}}}, local[{dims}] = {{{', '.join(block)}}};")
        out.append(pad + self.checked(f"clEnqueueNDRangeKernel({self.state}.queue, {var}, {dims}, NULL, global, local, "
                                      "0, NULL, NULL)"))
        return out

    # -- kernels -------------------------------------------------------------------------
    def kernel_header(self, name: str, params: list[str]) -> str:
        return f"__kernel void {name}({', '.join(params)})"

    def array_param(self, array: DeviceArray, placement: Placement, region: GpuRegion) -> str:
        if placement is Placement.CONSTANT:
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


INCLUDES = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", "#define CL_TARGET_OPENCL_VERSION 120",
            "#ifdef __APPLE__", "#include <OpenCL/opencl.h>", "#else", "#include <CL/cl.h>", "#endif"]

RUNTIME = Template(r"""
static struct {
  int tried, ready;
  cl_context context;
  cl_command_queue queue;
  cl_program program;
  cl_kernel kernels[$kernel_count];
} polypragma_cl$suffix;

/* in the setup: the status of the call named, whose failure is returned */
#define POLYPRAGMA_CL_SETUP_CHECK$suffix(status, call, where) \
  do { if ((status) != CL_SUCCESS) \
         return polypragma_cl_fail$suffix(call, status, where, POLYPRAGMA_BEFORE_COPY_OUT); } while (0)

static const char *polypragma_cl_source$suffix =
$source;

static const char *polypragma_cl_kernel_names$suffix[] = { $names };

/* 0 when the device is ready; 1 when the original loops must run */
static int polypragma_cl_setup$suffix(const char *where)
{
  cl_int error;
  cl_uint n_platforms = 0;
  cl_platform_id platforms[16];
  cl_device_id device = NULL;
  int mode = polypragma_device_mode$suffix();
  if (mode == 1)
    return 1;
  if (polypragma_cl$suffix.tried) {
    /* reported at the first call; fatal at every call (a library goes on after POLYPRAGMA_FATAL) */
    if (!polypragma_cl$suffix.ready && mode == 2) {
      POLYPRAGMA_REPORT("polypragma: %s: the OpenCL device could not be set up, as the first call reported (POLYPRAGMA_DEVICE=gpu)\n", where);
      POLYPRAGMA_FATAL();
    }
    return polypragma_cl$suffix.ready ? 0 : 1;
  }
  polypragma_cl$suffix.tried = 1;
  if (clGetPlatformIDs(16, platforms, &n_platforms) != CL_SUCCESS || n_platforms == 0) {
    if (mode == 2) {
      POLYPRAGMA_REPORT("polypragma: %s: no OpenCL platform found (POLYPRAGMA_DEVICE=gpu)\n", where);
      POLYPRAGMA_FATAL();
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
      POLYPRAGMA_REPORT("polypragma: %s: no OpenCL device found (POLYPRAGMA_DEVICE=gpu)\n", where);
      POLYPRAGMA_FATAL();
    }
    return 1;
  }
  polypragma_cl$suffix.context = clCreateContext(NULL, 1, &device, NULL, NULL, &error);
  POLYPRAGMA_CL_SETUP_CHECK$suffix(error, "clCreateContext", where);
  polypragma_cl$suffix.queue = clCreateCommandQueue(polypragma_cl$suffix.context, device, 0, &error);
  POLYPRAGMA_CL_SETUP_CHECK$suffix(error, "clCreateCommandQueue", where);
  polypragma_cl$suffix.program = clCreateProgramWithSource(polypragma_cl$suffix.context, 1,
      &polypragma_cl_source$suffix, NULL, &error);
  POLYPRAGMA_CL_SETUP_CHECK$suffix(error, "clCreateProgramWithSource", where);
  /* POLYPRAGMA_OPENCL_OPTIONS: more options for the OpenCL compiler, after polypragma's own (say
     -cl-opt-disable, for a driver whose optimiser miscompiles a kernel) */
  const char *extra = getenv("POLYPRAGMA_OPENCL_OPTIONS");
  const char *fixed = "$build_options";
  char *options = malloc(strlen(fixed) + (extra ? strlen(extra) : 0) + 2);
  if (options == NULL)
    return polypragma_cl_fail$suffix("malloc", CL_OUT_OF_HOST_MEMORY, where, POLYPRAGMA_BEFORE_COPY_OUT);
  sprintf(options, "%s %s", fixed, extra ? extra : "");
  error = clBuildProgram(polypragma_cl$suffix.program, 1, &device, options, NULL, NULL);
  if (error != CL_SUCCESS) {
    char log[16384];
    size_t size = 0;
    clGetProgramBuildInfo(polypragma_cl$suffix.program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, &size);
    log[size < sizeof log ? size : sizeof log - 1] = '\0';
    POLYPRAGMA_REPORT("polypragma: %s: building the OpenCL program with options '%s' failed:\n%s\n", where,
                      options, log);
    free(options);
    return polypragma_cl_fail$suffix("clBuildProgram", error, where, POLYPRAGMA_BEFORE_COPY_OUT);
  }
  free(options);
  for (int k = 0; k < $kernel_count; ++k) {
    polypragma_cl$suffix.kernels[k] = clCreateKernel(polypragma_cl$suffix.program,
        polypragma_cl_kernel_names$suffix[k], &error);
    POLYPRAGMA_CL_SETUP_CHECK$suffix(error, "clCreateKernel", where);
  }
  polypragma_cl$suffix.ready = 1;
  return 0;
}
""")


def generate(regions: list[GpuRegion], source: str, *, fp_contract: bool = True) -> list[str]:
    """The block inserted into the C file: the OpenCL runtime, the kernels' source and the host functions."""
    stem = symbol_stem(source)
    syntax = OpenCLSyntax(stem)
    kernel_text: list[str] = []
    kernel_macros: set[str] = set()  # macro definitions the kernels use
    host_helpers: set[str] = set()  # helper names the host code uses
    names: list[str] = []
    uses_double = any(r.uses_double for r in regions)
    host: list[str] = []
    offset = 0
    for region in regions:
        syntax.kernel_offsets[region.function] = offset
        for kernel in region.mapping.kernels:
            with timing.part(f"{region.scop.region}: kernel {kernel.index} (AST, shared-memory copies, printing)"):
                macros, lines = kernel_lines(region, kernel, syntax)
            kernel_macros |= set(macros)
            kernel_text += lines + [""]
            names.append(f'"{region.kernel_names[kernel.index]}"')
        with timing.part(f"{region.scop.region}: host function"):
            function, used = host_function(region, syntax, source)
            host_helpers |= used
            host += function + [""]
        offset += len(region.mapping.kernels)
    prologue = []
    if uses_double:
        prologue.append("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
    if not fp_contract:
        prologue.append("#pragma OPENCL FP_CONTRACT OFF")
    prologue += helper_macros(kernel_macros, guarded=False)
    # the types and enumerators the kernels use, as the source defines them
    prologue += list(dict.fromkeys(d for region in regions for d in region.scop.type_declarations))
    prologue += device_functions(regions, opencl=True)
    program = "\n".join(prologue + kernel_text)
    specific = RUNTIME.substitute(suffix=syntax.suffix, kernel_count=max(offset, 1),
                                  source="\n".join(c_string(program)), names=", ".join(names) or "0",
                                  build_options="" if fp_contract else "-cl-fp32-correctly-rounded-divide-sqrt")
    prelude = INCLUDES + [""] + runtime(syntax) + specific.rstrip("\n").split("\n")
    return prelude + [""] + helper_macros(host_helpers) + host
