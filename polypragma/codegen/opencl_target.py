"""The ``opencl`` target: kernels in OpenCL C, embedded as a string in the C file,
and host code on the OpenCL C API (link with ``-lOpenCL``).

The program is built once per process, on the first region that runs, and
its kernels are kept; a GPU is preferred, any OpenCL device is taken
otherwise (PoCL's CPU device runs the tests).
"""

from __future__ import annotations

import re

from string import Template

from polypragma.codegen.gpu import GpuSyntax
from polypragma.codegen import host_data, reduction_code
from polypragma.codegen.host import HostSyntax, c_string, runtime
from polypragma.codegen.printer import helper_macros
from polypragma.codegen.region_text import RegionText, printed, type_declarations
from polypragma.codegen.region_text import device_functions as all_device_functions
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
    injected_error = "CL_MEM_OBJECT_ALLOCATION_FAILURE"

    def __init__(self, stem: str):
        super().__init__(f"_{stem}")
        self.stem = stem
        self.state = f"polypragma_cl_{stem}"  # the context, queue, program and kernels of the file
        self.kernel_offsets: dict[str, int] = {}  # region function -> index of its first kernel

    def buffer_type(self, array: DeviceArray) -> str:
        return "cl_mem "

    def device_pointer(self, array: DeviceArray) -> str:
        return f"(cl_mem)bind_{array.name}.buffer"

    def caller_buffer(self, array: DeviceArray) -> str:
        return f"(cl_mem)(void *){array.host_name}"

    def in_place_alignment(self, region: GpuRegion, array: DeviceArray) -> str:
        return "0"  # a buffer is passed whole: an array used in place starts its data scope's buffer

    def synchronise(self) -> str:
        return f"clFinish({self.state}.queue)"

    def kernel_argument(self, region: GpuRegion, kernel: Kernel, array: DeviceArray) -> tuple[str, str]:
        return "cl_mem", f"dev_{array.name}"  # constant memory is a buffer too

    def flag_argument(self, name: str) -> tuple[str, str]:
        return "cl_mem", name  # (the data layer's void * holds the cl_mem)

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

    def shared_declaration(self, ctype: str, name: str, dims: str, aligned: bool = False) -> str:
        return f"__local {ctype} {name}{dims}{' __attribute__((aligned(16)))' if aligned else ''};"

    def flag_param(self, name: str) -> str:
        return f"__global int *{name}"

    def vector_copy(self, ctype: str, width: int, destination: str, source: str, into: bool) \
            -> tuple[str, str | None]:
        # (vloadn and vstoren need the element's alignment only)
        return f"vstore{width}(vload{width}(0, {source}), 0, {destination});", None

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
  int tried, ready, gpu;
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

/* The program of this file built for DEVICE in the state's context, and its kernels */
static int polypragma_cl_build$suffix(cl_device_id device, const char *where)
{
  cl_int error;
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
  for (int k = 0; k < $kernels; ++k) {
    polypragma_cl$suffix.kernels[k] = clCreateKernel(polypragma_cl$suffix.program,
        polypragma_cl_kernel_names$suffix[k], &error);
    POLYPRAGMA_CL_SETUP_CHECK$suffix(error, "clCreateKernel", where);
  }
  return 0;
}

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
  cl_device_type type = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS)
    polypragma_cl$suffix.gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
  polypragma_cl$suffix.context = clCreateContext(NULL, 1, &device, NULL, NULL, &error);
  POLYPRAGMA_CL_SETUP_CHECK$suffix(error, "clCreateContext", where);
  polypragma_cl$suffix.queue = clCreateCommandQueue(polypragma_cl$suffix.context, device, 0, &error);
  POLYPRAGMA_CL_SETUP_CHECK$suffix(error, "clCreateCommandQueue", where);
  if (polypragma_cl_build$suffix(device, where) != 0)
    return 1;
  polypragma_cl$suffix.ready = 1;
  return 0;
}

/* Device buffers and copies (the primitives of the data layer, polypragma/codegen/host_data.py): buffers
   from a pool kept by size across calls (at most POLYPRAGMA_POOL_LIMIT bytes, default 1G; emptied when an
   allocation fails), released at exit.  On a GPU, copies of POLYPRAGMA_STAGE_MIN bytes (default 1M) or
   more go in chunks of POLYPRAGMA_STAGE_CHUNK bytes (default 8M) through two halves of a pinned buffer
   (CL_MEM_ALLOC_HOST_PTR, mapped once), one filled or emptied by the CPU while the other crosses the link;
   POLYPRAGMA_COPY=stage stages on any device (the tests, on PoCL's CPU device), =pageable never. */
static struct {
  int ready, mode;  /* mode: 0 auto, 1 pageable, 2 stage (register: stage) */
  size_t stage_min, chunk, limit, cached;
  cl_mem pinned;
  char *stage;  /* the pinned buffer, mapped: two halves of chunk bytes */
  int staging;  /* 1: pinned buffer mapped; -1: none to be had */
  struct { cl_mem buffer; size_t bytes; } pool[32];
  int pooled;
  long uploads, downloads, allocations;
  size_t uploaded, downloaded;
} polypragma_cl_data$suffix;

/* the pool's buffers and the pinned buffer given back (they belong to the state's context) */
static void polypragma_cl_data_drop$suffix(void)
{
  for (int k = 0; k < polypragma_cl_data$suffix.pooled; ++k)
    clReleaseMemObject(polypragma_cl_data$suffix.pool[k].buffer);
  polypragma_cl_data$suffix.pooled = 0;
  if (polypragma_cl_data$suffix.staging == 1) {
    clEnqueueUnmapMemObject(polypragma_cl$suffix.queue, polypragma_cl_data$suffix.pinned, polypragma_cl_data$suffix.stage,
                            0, NULL, NULL);
    clFinish(polypragma_cl$suffix.queue);
    clReleaseMemObject(polypragma_cl_data$suffix.pinned);
    polypragma_cl_data$suffix.staging = 0;
  }
  polypragma_cl_data$suffix.cached = 0;
}

static void polypragma_cl_data_release$suffix(void)
{
  polypragma_cl_data_drop$suffix();
  const char *profile = getenv("POLYPRAGMA_PROFILE");
  if (profile != NULL && profile[0] != '\0' && strcmp(profile, "0") != 0)
    fprintf(stderr, "polypragma: profile: transfers: %ld copies in (%zu bytes), %ld copies out (%zu bytes), "
            "%ld device allocations\n", polypragma_cl_data$suffix.uploads, polypragma_cl_data$suffix.uploaded,
            polypragma_cl_data$suffix.downloads, polypragma_cl_data$suffix.downloaded,
            polypragma_cl_data$suffix.allocations);
}

static void polypragma_cl_data_init$suffix(void)
{
  if (polypragma_cl_data$suffix.ready)
    return;
  polypragma_cl_data$suffix.ready = 1;
  const char *mode = getenv("POLYPRAGMA_COPY");
  polypragma_cl_data$suffix.mode = mode == NULL || mode[0] == '\0' ? 0 : strcmp(mode, "pageable") == 0 ? 1
                                   : strcmp(mode, "stage") == 0 || strcmp(mode, "register") == 0 ? 2 : 0;
  polypragma_cl_data$suffix.stage_min = polypragma_size_env$suffix("POLYPRAGMA_STAGE_MIN", (size_t)1 << 20);
  polypragma_cl_data$suffix.chunk = polypragma_size_env$suffix("POLYPRAGMA_STAGE_CHUNK", (size_t)8 << 20);
  polypragma_cl_data$suffix.limit = polypragma_size_env$suffix("POLYPRAGMA_POOL_LIMIT", (size_t)1 << 30);
  atexit(polypragma_cl_data_release$suffix);
}

static int polypragma_buffer_get$suffix(void **buffer, size_t bytes, const char *name, const char *where, int phase)
{
  polypragma_cl_data_init$suffix();
  if (bytes == 0)
    bytes = 1;
  for (int k = 0; k < polypragma_cl_data$suffix.pooled; ++k)
    if (polypragma_cl_data$suffix.pool[k].bytes == bytes) {
      *buffer = (void *)polypragma_cl_data$suffix.pool[k].buffer;
      polypragma_cl_data$suffix.pool[k] = polypragma_cl_data$suffix.pool[--polypragma_cl_data$suffix.pooled];
      polypragma_cl_data$suffix.cached -= bytes;
      return 0;
    }
  cl_int error = CL_SUCCESS;
  for (int attempt = 0; attempt < 2; ++attempt) {
    cl_mem made = NULL;
    if (polypragma_injected$suffix())
      error = $injected;
    else
      made = clCreateBuffer(polypragma_cl$suffix.context, CL_MEM_READ_WRITE, bytes, NULL, &error);
    if (made != NULL && error == CL_SUCCESS) {
      *buffer = (void *)made;
      polypragma_cl_data$suffix.allocations++;
      return 0;
    }
    if (polypragma_cl_data$suffix.pooled == 0)
      break;
    while (polypragma_cl_data$suffix.pooled > 0)  /* the pool's buffers may be what the device lacks */
      clReleaseMemObject(polypragma_cl_data$suffix.pool[--polypragma_cl_data$suffix.pooled].buffer);
    polypragma_cl_data$suffix.cached = 0;
  }
  char call[200];
  *buffer = NULL;
  snprintf(call, sizeof call, "clCreateBuffer(dev_%s, %zu)", name, bytes);
  return polypragma_cl_fail$suffix(call, error != CL_SUCCESS ? error : CL_MEM_OBJECT_ALLOCATION_FAILURE, where, phase);
}

static int polypragma_buffer_put$suffix(void *buffer, size_t bytes, const char *name, const char *where, int phase)
{
  if (bytes == 0)
    bytes = 1;
  if (polypragma_cl_data$suffix.pooled < 32 && polypragma_cl_data$suffix.cached + bytes <= polypragma_cl_data$suffix.limit) {
    polypragma_cl_data$suffix.pool[polypragma_cl_data$suffix.pooled].buffer = (cl_mem)buffer;
    polypragma_cl_data$suffix.pool[polypragma_cl_data$suffix.pooled++].bytes = bytes;
    polypragma_cl_data$suffix.cached += bytes;
    return 0;
  }
  cl_int error = POLYPRAGMA_CALL$suffix(clReleaseMemObject((cl_mem)buffer));
  if (error != CL_SUCCESS) {
    char call[200];
    snprintf(call, sizeof call, "clReleaseMemObject(dev_%s)", name);
    return polypragma_cl_fail$suffix(call, error, where, phase);
  }
  return 0;
}

/* whether a copy of "bytes" goes through the pinned buffer */
static int polypragma_staged$suffix(size_t bytes)
{
  polypragma_cl_data_init$suffix();
  int mode = polypragma_cl_data$suffix.mode;
  if (mode == 1 || bytes < polypragma_cl_data$suffix.stage_min || (mode == 0 && !polypragma_cl$suffix.gpu))
    return 0;
  if (polypragma_cl_data$suffix.staging == 0) {
    cl_int error;
    polypragma_cl_data$suffix.staging = -1;
    polypragma_cl_data$suffix.pinned = clCreateBuffer(polypragma_cl$suffix.context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                                                       2 * polypragma_cl_data$suffix.chunk, NULL, &error);
    if (error == CL_SUCCESS) {
      polypragma_cl_data$suffix.stage = (char *)clEnqueueMapBuffer(polypragma_cl$suffix.queue,
          polypragma_cl_data$suffix.pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 2 * polypragma_cl_data$suffix.chunk,
          0, NULL, NULL, &error);
      if (error == CL_SUCCESS)
        polypragma_cl_data$suffix.staging = 1;
      else
        clReleaseMemObject(polypragma_cl_data$suffix.pinned);
    }
  }
  return polypragma_cl_data$suffix.staging == 1;
}

/* OpenCL 1.2 buffers are the device's: host arrays are never used in place */
static int polypragma_direct$suffix(const void *host, size_t bytes)
{
  (void)host;
  (void)bytes;
  return 0;
}

/* host ranges are not page-locked by the OpenCL runtime (the pinned staging buffer serves instead) */
static int polypragma_pin$suffix(void *host, size_t bytes)
{
  (void)host;
  (void)bytes;
  return 0;
}

static void polypragma_unpin$suffix(void *host)
{
  (void)host;
}

/* one copy between the host and a buffer; staged: chunk i+1 crosses while the CPU fills or empties chunk i */
static int polypragma_cl_copy$suffix(cl_mem buffer, size_t offset, char *host, size_t bytes, int to_device,
                                     const char *name, const char *where, int phase)
{
  const cl_command_queue queue = polypragma_cl$suffix.queue;
  const char *call = to_device ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer";
  cl_int error = CL_SUCCESS;
  if (to_device) {
    polypragma_cl_data$suffix.uploads++;
    polypragma_cl_data$suffix.uploaded += bytes;
  }
  else {
    polypragma_cl_data$suffix.downloads++;
    polypragma_cl_data$suffix.downloaded += bytes;
  }
  if (!polypragma_staged$suffix(bytes))
    error = POLYPRAGMA_CALL$suffix(to_device ? clEnqueueWriteBuffer(queue, buffer, CL_TRUE, offset, bytes, host, 0, NULL, NULL)
                                             : clEnqueueReadBuffer(queue, buffer, CL_TRUE, offset, bytes, host, 0, NULL, NULL));
  else {
    const size_t chunk = polypragma_cl_data$suffix.chunk;
    const size_t count = (bytes + chunk - 1) / chunk;
    cl_event done[2] = {NULL, NULL};
    for (size_t i = 0; i < count + 1 && error == CL_SUCCESS; ++i) {
      if (i < count) {
        const size_t n = bytes - i * chunk < chunk ? bytes - i * chunk : chunk;
        char *half = polypragma_cl_data$suffix.stage + (i & 1) * chunk;
        if (done[i & 1] != NULL) {  /* the half's previous chunk */
          error = POLYPRAGMA_CALL$suffix(clWaitForEvents(1, &done[i & 1]));
          clReleaseEvent(done[i & 1]);
          done[i & 1] = NULL;
          if (error != CL_SUCCESS) {
            call = "clWaitForEvents";
            break;
          }
        }
        if (to_device) {
          memcpy(half, host + i * chunk, n);
          error = POLYPRAGMA_CALL$suffix(clEnqueueWriteBuffer(queue, buffer, CL_FALSE, offset + i * chunk, n, half, 0, NULL,
                                                              &done[i & 1]));
        }
        else
          error = POLYPRAGMA_CALL$suffix(clEnqueueReadBuffer(queue, buffer, CL_FALSE, offset + i * chunk, n, half, 0, NULL,
                                                             &done[i & 1]));
      }
      if (!to_device && i > 0 && error == CL_SUCCESS) {
        const size_t j = i - 1, n = bytes - j * chunk < chunk ? bytes - j * chunk : chunk;
        error = POLYPRAGMA_CALL$suffix(clWaitForEvents(1, &done[j & 1]));
        clReleaseEvent(done[j & 1]);
        done[j & 1] = NULL;
        if (error != CL_SUCCESS)
          call = "clWaitForEvents";
        else
          memcpy(host + j * chunk, polypragma_cl_data$suffix.stage + (j & 1) * chunk, n);
      }
    }
    for (int k = 0; k < 2; ++k)
      if (done[k] != NULL) {
        cl_int waited = clWaitForEvents(1, &done[k]);
        if (error == CL_SUCCESS && waited != CL_SUCCESS) {
          error = waited;
          call = "clWaitForEvents";
        }
        clReleaseEvent(done[k]);
      }
  }
  if (error != CL_SUCCESS) {
    char text[200];
    snprintf(text, sizeof text, "%s (%s of %s, %zu bytes)", call, to_device ? "copy-in" : "copy-out", name, bytes);
    return polypragma_cl_fail$suffix(text, error, where, phase);
  }
  return 0;
}

static int polypragma_upload$suffix(void *buffer, size_t offset, const void *host, size_t bytes, const char *name,
                                    const char *where, int phase)
{
  return polypragma_cl_copy$suffix((cl_mem)buffer, offset, (char *)host, bytes, 1, name, where, phase);
}

static int polypragma_download$suffix(void *host, void *buffer, size_t offset, size_t bytes, const char *name,
                                      const char *where, int phase)
{
  return polypragma_cl_copy$suffix((cl_mem)buffer, offset, (char *)host, bytes, 0, name, where, phase);
}
""")


# The Python API's PyOpenCL arrays (generated with device_entries): the caller's context and queue.
ADOPT = Template(r"""
/* Run this file's kernels in the CONTEXT and on the QUEUE of the caller, whose buffers they are to use in
   place (polypragma's Python API and PyOpenCL arrays).  Retained here; the same context keeps the built
   program and the pool, another one first gives back the old context's buffers, program and queue (not
   while a data scope of this file keeps arrays on the device there).  0 on success. */
static POLYPRAGMA_UNUSED int polypragma_cl_adopt$suffix(cl_context context, cl_command_queue queue, const char *where)
{
  cl_device_id device = NULL;
  polypragma_cl_data_init$suffix();  /* the profile counts the calls on the caller's buffers too */
  cl_int error = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL);
  POLYPRAGMA_CL_SETUP_CHECK$suffix(error, "clGetCommandQueueInfo(CL_QUEUE_DEVICE)", where);
  if (polypragma_cl$suffix.ready && polypragma_cl$suffix.context == context) {
    if (polypragma_cl$suffix.queue != queue) {
      POLYPRAGMA_CL_SETUP_CHECK$suffix(clRetainCommandQueue(queue), "clRetainCommandQueue", where);
      clFinish(polypragma_cl$suffix.queue);
      clReleaseCommandQueue(polypragma_cl$suffix.queue);
      polypragma_cl$suffix.queue = queue;
    }
    return 0;
  }
  for (int k = 0; k < POLYPRAGMA_TABLE_SIZE; ++k)
    if (polypragma_data_table.entries[k].host != NULL && polypragma_data_table.entries[k].owner == &polypragma_data_owner$suffix) {
      POLYPRAGMA_REPORT("polypragma: %s: arrays of another OpenCL context are passed while a data scope keeps "
                        "arrays on the device in this one\n", where);
      return 1;
    }
  if (polypragma_cl$suffix.ready) {
    polypragma_cl_data_drop$suffix();
    for (int k = 0; k < $kernels; ++k)
      clReleaseKernel(polypragma_cl$suffix.kernels[k]);
    clReleaseProgram(polypragma_cl$suffix.program);
    clReleaseCommandQueue(polypragma_cl$suffix.queue);
    clReleaseContext(polypragma_cl$suffix.context);
  }
  polypragma_cl$suffix.tried = 1;
  polypragma_cl$suffix.ready = 0;
  POLYPRAGMA_CL_SETUP_CHECK$suffix(clRetainContext(context), "clRetainContext", where);
  POLYPRAGMA_CL_SETUP_CHECK$suffix(clRetainCommandQueue(queue), "clRetainCommandQueue", where);
  polypragma_cl$suffix.context = context;
  polypragma_cl$suffix.queue = queue;
  cl_device_type type = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS)
    polypragma_cl$suffix.gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
  if (polypragma_cl_build$suffix(device, where) != 0)
    return 1;
  polypragma_cl$suffix.ready = 1;
  return 0;
}
""")


def adopt_function(source: str) -> str:
    """The name of the function of ``source``'s generated file that adopts the caller's context and queue."""
    return f"polypragma_cl_adopt_{symbol_stem(source)}"


def _opencl_types(program: str) -> str:
    """``program`` with C's ``long long`` spelt as OpenCL C's 64-bit ``long``: OpenCL C reserves ``long long``
    (a 128-bit type), and PoCL took a kernel's ``long long`` parameter for more than the 8 bytes the host passes
    (bench/frontend/jagged.c, whose iterators are long long, read a garbage extent and crashed)."""
    return re.sub(r"\blong\s+long\b", "long", program)


def region_text(region: GpuRegion, source: str, kernel_offset: int, device_entries: bool = False) -> RegionText:
    """``region``'s kernels and host function, as text (region_text.printed), its kernels numbered from
    ``kernel_offset`` in the file's program."""
    syntax = OpenCLSyntax(symbol_stem(source))
    syntax.kernel_offsets[region.function] = kernel_offset
    return printed(region, syntax, source, device_entries, opencl=True)


def generate(texts: list[RegionText], source: str, *, fp_contract: bool = True,
             device_entries: bool = False) -> tuple[list[str], list[list[str]]]:
    """What the C file holds: the OpenCL runtime and the kernels' source (before the first region), and
    each region's host function (before the region, after the types it names); with ``device_entries``,
    the function adopting the caller's context (for the Python API)."""
    stem = symbol_stem(source)
    syntax = OpenCLSyntax(stem)
    kernel_text = [line for text in texts for line in text.kernel_lines]
    kernel_macros = set().union(*(text.kernel_macros for text in texts))
    host_helpers = set().union(*(text.host_macros for text in texts))
    names = [f'"{name}"' for text in texts for name in text.kernel_names]
    uses_double = any(text.uses_double for text in texts)
    host = [list(text.host_lines) for text in texts]
    offset = len(names)
    prologue = []
    if uses_double:
        prologue.append("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
    if not fp_contract:
        prologue.append("#pragma OPENCL FP_CONTRACT OFF")
    if any("atom_cmpxchg" in m for m in kernel_macros):
        prologue += reduction_code.OPENCL_INT64_ATOMICS
    prologue += helper_macros(kernel_macros, guarded=False)
    # the types and enumerators the kernels use, as the source defines them
    prologue += type_declarations(texts) + all_device_functions(texts)
    program = _opencl_types("\n".join(prologue + kernel_text))
    specific = RUNTIME.substitute(suffix=syntax.suffix, kernel_count=max(offset, 1), kernels=offset,
                                  injected=syntax.injected_error,
                                  source="\n".join(c_string(program)), names=", ".join(names) or "0",
                                  build_options="" if fp_contract else "-cl-fp32-correctly-rounded-divide-sqrt")
    prelude = INCLUDES + [""] + runtime(syntax) + specific.rstrip("\n").split("\n")
    prelude += host_data.runtime(syntax.suffix, syntax.setup, stem, syntax.storage)
    if device_entries:
        prelude += ADOPT.substitute(suffix=syntax.suffix, kernels=offset).rstrip("\n").split("\n")
    return prelude + [""] + helper_macros(host_helpers), host
