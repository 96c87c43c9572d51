"""The ``cuda`` target: ``NAME.polypragma.cu`` with the kernels and one ``extern "C"``
host function per region; the C file declares and calls them.

The C file needs no CUDA header and compiles with the project's C compiler;
the ``.cu`` file compiles with nvcc; linking needs only cudart.
"""

from __future__ import annotations

import dataclasses

from polypragma.codegen.gpu import GpuSyntax, dynamic_shared, dynamic_shared_bytes
from polypragma.codegen import host_data, parallel_copy
from polypragma.codegen.host import HostSyntax, runtime
from polypragma.codegen.printer import helper_macros
from polypragma.codegen.region_text import RegionText, printed, type_declarations
from polypragma.codegen.region_text import device_functions as all_device_functions
from polypragma.gpu.data import DeviceArray
from polypragma.gpu.mapping import Kernel
from polypragma.gpu.memory import ELEMENT_SIZES, Placement
from polypragma.gpu.region import GpuRegion, symbol_stem


class CudaSyntax(GpuSyntax, HostSyntax):
    """How CUDA spells kernels and the host side."""

    prefix = "cuda"
    storage = 'extern "C" '
    error_type = "cudaError_t"
    success = "cudaSuccess"
    error_format = ": %s"
    error_value = "cudaGetErrorString(error)"
    injected_error = "cudaErrorMemoryAllocation"
    constant_symbols = True

    def buffer_type(self, array: DeviceArray) -> str:
        return f"{array.device_type} *"

    def declarations(self, region: GpuRegion) -> list[str]:
        lines = ["  const int profile = polypragma_profiling();",
                 "  const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();",
                 "  cudaEvent_t events[4];",
                 "  int events_created = 0;"]
        lines += [f"  cudaTextureObject_t texture_{a.name} = 0;" for a in texture_arrays(region)]
        return lines

    def device_pointer(self, array: DeviceArray) -> str:
        return f"({array.device_type} *)((char *)bind_{array.name}.buffer + bind_{array.name}.offset)"

    def in_place_alignment(self, region: GpuRegion, array: DeviceArray) -> str:
        # a texture object on linear memory starts at a multiple of the device's textureAlignment (512)
        return "512" if array in texture_arrays(region) else f"sizeof({array.device_type})"

    def direct(self, region: GpuRegion, array: DeviceArray) -> bool:
        return array not in texture_arrays(region)  # a texture object needs device memory

    def copy_to_constant(self, region: GpuRegion, array: DeviceArray) -> str:
        return f"cudaMemcpyToSymbol({constant_symbol(region, array)}, {array.host_name}, bytes_{array.name})"

    def copy_in_from_device(self, region: GpuRegion, array: DeviceArray) -> str:
        return (f"cudaMemcpyToSymbol({constant_symbol(region, array)}, dev_{array.name}, bytes_{array.name}, 0, "
                "cudaMemcpyDeviceToDevice)")

    def synchronise(self) -> str:
        return "cudaDeviceSynchronize()"

    def kernel_argument(self, region: GpuRegion, kernel: Kernel, array: DeviceArray) -> tuple[str, str] | None:
        placement = region.placement(kernel, array)
        if placement is Placement.CONSTANT:
            return None
        if placement is Placement.TEXTURE:
            return "cudaTextureObject_t", f"texture_{array.name}"
        return f"{array.device_type} *", f"dev_{array.name}"

    def flag_argument(self, name: str) -> tuple[str, str]:
        return "int *", f"(int *){name}"

    def launch(self, region: GpuRegion, kernel: Kernel, arguments: list[tuple[str, str]], grid: list[str],
               block: list[str], pad: str) -> list[str]:
        grid = [g if g.isdigit() else f"(unsigned){g}" for g in grid] + ["1"] * (3 - len(grid))
        block = block + ["1"] * (3 - len(block))
        name = region.kernel_names[kernel.index]
        dynamic = dynamic_shared_bytes(dynamic_shared(region.memory[kernel.index] if region.kernel_asts else None))
        lines = [f"{pad}dim3 grid({', '.join(grid)}), block({', '.join(block)});"]
        if dynamic:
            # (past 48 KiB, a kernel's dynamic shared memory needs the opt-in: a device without that much
            # fails here, and the region falls back to the original loops)
            lines.append(pad + self.checked(f"cudaFuncSetAttribute({name}, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                                            f"{dynamic})"))
        return lines + [f"{pad}{name}<<<grid, block{f', {dynamic}' if dynamic else ''}>>>"
                        f"({', '.join(v for _, v in arguments)});",
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

    def shared_declaration(self, ctype: str, name: str, dims: str, aligned: bool = False) -> str:
        return f"__shared__ {'__align__(16) ' if aligned else ''}{ctype} {name}{dims};"

    dynamic_shared = True

    def dynamic_shared_declarations(self, layout) -> list[str]:
        # each tile a pointer to its rows (to its elements, for a tile of one dimension) at its offset, so
        # that it is indexed as a declared array is
        lines = ["extern __shared__ __align__(16) unsigned char polypragma_dynamic_shared[];"]
        for group, offset in layout:
            ctype, rows = group.array.device_type, "".join(f"[{w}]" for w in group.declared()[1:])
            pointer = f"{ctype} (*{group.name}){rows}" if rows else f"{ctype} *{group.name}"
            cast = f"({ctype} (*){rows})" if rows else f"({ctype} *)"
            lines.append(f"{pointer} = {cast}(polypragma_dynamic_shared + {offset});")
        return lines

    def flag_param(self, name: str) -> str:
        return f"int *__restrict__ {name}"

    def vector_copy(self, ctype: str, width: int, destination: str, source: str, into: bool) \
            -> tuple[str, str | None]:
        name = f"polypragma_copy_{'in' if into else 'out'}_{ctype}{width}"
        return f"{name}({destination}, {source});", vector_copy_macro(name, ctype, width, ELEMENT_SIZES[ctype] * width,
                                                                       "s" if into else "d")

    def barrier(self) -> str:
        return "__syncthreads();"

    def async_copy(self, ctype: str, destination: str, source: str) -> tuple[str, str]:
        size = ELEMENT_SIZES[ctype]
        name = f"polypragma_copy_async{size}"
        return f"{name}({destination}, {source});", async_copy_macro(name, size)

    def async_vector_copy(self, ctype: str, width: int, destination: str, source: str) -> tuple[str, tuple[str, ...]]:
        size = ELEMENT_SIZES[ctype]
        element = f"polypragma_copy_async{size}"
        name = f"polypragma_copy_async_{ctype}{width}"
        return (f"{name}({destination}, {source});",
                (async_copy_macro(element, size), async_vector_macro(name, element, ctype, width, size * width)))

    def async_barrier(self) -> list[str]:
        return [f"{ASYNC_WAIT}();", self.barrier()]

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



def vector_copy_macro(name: str, ctype: str, width: int, size: int, global_side: str) -> str:
    """``name(d, s)``: ``width`` elements (``size`` bytes) from ``s`` to ``d`` in one load and one store
    where the global address (``global_side``: ``d`` or ``s``) is aligned on ``size`` bytes (the global
    row's length even, the array's start aligned), one by one where not.  The shared address always is
    (the tile declared aligned, its rows and the vectors' starts even: copy_statements' _vectors), and
    testing it too took ptxas 6-8 registers more (fdtd-2d's kernels: 62 and 72 a thread, 56 and 64
    without)."""
    vector = f"{ctype}{width}"
    each = " ".join(f"polypragma_d[{k}] = polypragma_s[{k}];" for k in range(width))
    return (f"#define {name}(d, s) do {{ {ctype} *polypragma_d = (d); const {ctype} *polypragma_s = (s); "
            f"if (((unsigned long long)polypragma_{global_side} & {size - 1}) == 0) "
            f"*({vector} *)polypragma_d = *(const {vector} *)polypragma_s; else {{ {each} }} }} while (0)")


ASYNC_WAIT = "polypragma_copies_wait"
# (device code for sm_80 and later: cp.async; before, and in nvcc's pass for the host, plain copies)
ASYNC_ARCH = "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800"


def async_copy_macro(name: str, size: int) -> str:
    """``name(d, s)``: an asynchronous copy of ``size`` bytes from global ``s`` to shared ``d`` (cp.async,
    which the thread does not wait for until :data:`ASYNC_WAIT`), a plain copy before sm_80; with the
    definition of the wait (a barrier waits for the thread's copies, then for the block's threads).
    Inline PTX rather than <cuda_pipeline.h>, whose templates a user's -DN=60 breaks."""
    return "\n".join([
        ASYNC_ARCH,
        f"#define {name}(d, s) asm volatile(\"cp.async.ca.shared.global [%0], [%1], {size};\" :: "
        f"\"r\"((unsigned)__cvta_generic_to_shared(d)), \"l\"(s) : \"memory\")",
        f"#define {ASYNC_WAIT}() asm volatile(\"cp.async.commit_group;\\n\\tcp.async.wait_group 0;\" ::: \"memory\")",
        "#else",
        f"#define {name}(d, s) (void)memcpy((d), (s), {size})",
        f"#define {ASYNC_WAIT}() ((void)0)",
        "#endif"])


def async_vector_macro(name: str, element: str, ctype: str, width: int, size: int) -> str:
    """``name(d, s)``: an asynchronous copy of ``width`` elements (``size`` bytes) from global ``s`` to
    shared ``d``, one cp.async where the global address is aligned on ``size`` bytes (16: the .cg form,
    which leaves the L1 cache to other data; the shared one always is, see :func:`vector_copy_macro`),
    one a element (``element``, :func:`async_copy_macro`) where not; plain copies before sm_80."""
    each = " ".join(f"{element}(polypragma_d + {k}, polypragma_s + {k});" for k in range(width))
    cache = "cg" if size == 16 else "ca"
    return "\n".join([
        ASYNC_ARCH,
        f"#define {name}(d, s) do {{ {ctype} *polypragma_d = (d); const {ctype} *polypragma_s = (s); "
        f"if (((unsigned long long)polypragma_s & {size - 1}) == 0) "
        f"asm volatile(\"cp.async.{cache}.shared.global [%0], [%1], {size};\" :: "
        f"\"r\"((unsigned)__cvta_generic_to_shared(polypragma_d)), \"l\"(polypragma_s) : \"memory\"); "
        f"else {{ {each} }} }} while (0)",
        "#else",
        f"#define {name}(d, s) (void)memcpy((d), (s), {size})",
        "#endif"])


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
            *parallel_copy.INCLUDES, "#include <cuda_runtime.h>"]

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
static __attribute__((unused)) void polypragma_profile_report(cudaEvent_t *events, std::chrono::steady_clock::time_point started,
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

/* Device buffers and copies (the primitives of the data layer, polypragma/codegen/host_data.py).

   Buffers come from a pool of free buffers kept by size across calls (at most POLYPRAGMA_POOL_LIMIT bytes,
   default half the device's memory; emptied when an allocation fails, then tried again), and are freed at
   exit.  Copies of fewer than POLYPRAGMA_STAGE_MIN bytes (default 1M) are one cudaMemcpy from the host
   array.  Larger ones depend on POLYPRAGMA_COPY:
     auto (default)  staged; with POLYPRAGMA_REGISTER_MIN set, a data scope's array of that many bytes or
                     more is registered for the scope's life (polypragma_pin), and its copies go directly
                     (off by default: registering 1 GiB took about 55 ms on the H200 machine, staging it
                     20 ms each way);
     stage           in chunks of POLYPRAGMA_STAGE_CHUNK bytes (default 32M) through two pinned buffers, one
                     filled (or emptied) by the CPU while the other crosses the link (by
                     POLYPRAGMA_COPY_THREADS threads: polypragma_memcpy); the buffers are kept for the
                     process and grow with the copies, each to the power of two (from 1M) that holds its
                     part of the largest copy so far, up to a chunk: page-locking costs about 0.4 ms a
                     megabyte (two 32M buffers took 25 ms on the H200 machine), which a copy of a few
                     megabytes need not pay for 64M;
     register        the host array is page-locked with cudaHostRegister for the copy, then released
                     (falls back to staging when that fails); a data scope's arrays for the scope's life;
     pageable        one cudaMemcpy from the host array (the driver stages it in its own small buffers);
     direct          no copies where the device reaches host memory (polypragma_direct), else pageable.
   Host memory that is already pinned is copied directly; managed memory is used in place.  Sizes take a K, M or G suffix.
   POLYPRAGMA_PROFILE set: the copies and allocations of the process are counted and reported at exit. */
static struct {
  int ready, mode;
  size_t stage_min, register_min, chunk, limit, cached;
  char *stage[2];
  size_t stage_bytes[2];  /* the staging buffers' sizes (0: none yet) */
  cudaEvent_t done[2];
  int staging;  /* 1: the staging buffers' events exist; -1: pinned memory could not be had (copies go pageable) */
  struct { void *buffer; size_t bytes; } pool[32];
  int pooled;
  long uploads, downloads, allocations;
  size_t uploaded, downloaded;
} polypragma_cuda_data;

/* the staging buffers freed */
static void polypragma_stage_release(void)
{
  for (int k = 0; k < 2; ++k) {
    if (polypragma_cuda_data.stage_bytes[k] > 0)
      cudaFreeHost(polypragma_cuda_data.stage[k]);
    polypragma_cuda_data.stage[k] = NULL;
    polypragma_cuda_data.stage_bytes[k] = 0;
  }
}

/* Staging buffers for a copy of "bytes" (its first chunk through buffer 0, its second through buffer 1):
   each grown to the power of two from 1M that holds its part, at most a chunk.  0 where pinned memory
   or an event cannot be had: then none is kept and every later copy goes pageable. */
static int polypragma_stage_ready(size_t bytes)
{
  const size_t chunk = polypragma_cuda_data.chunk;
  if (polypragma_cuda_data.staging == 0) {
    int events = 0;
    for (; events < 2; ++events)
      if (cudaEventCreateWithFlags(&polypragma_cuda_data.done[events], cudaEventDisableTiming) != cudaSuccess)
        break;
    if (events < 2) {
      cudaGetLastError();
      while (events > 0)
        cudaEventDestroy(polypragma_cuda_data.done[--events]);
      polypragma_cuda_data.staging = -1;
      return 0;
    }
    polypragma_cuda_data.staging = 1;
  }
  for (int k = 0; k < 2; ++k) {
    const size_t part = bytes <= (size_t)k * chunk ? 0 : bytes - (size_t)k * chunk < chunk ? bytes - (size_t)k * chunk : chunk;
    if (part <= polypragma_cuda_data.stage_bytes[k])
      continue;
    size_t grown = (size_t)1 << 20;
    while (grown < part)
      grown *= 2;
    grown = grown < chunk ? grown : chunk;
    if (polypragma_cuda_data.stage_bytes[k] > 0)
      cudaFreeHost(polypragma_cuda_data.stage[k]);
    polypragma_cuda_data.stage_bytes[k] = 0;
    if (cudaHostAlloc((void **)&polypragma_cuda_data.stage[k], grown, cudaHostAllocDefault) != cudaSuccess) {
      cudaGetLastError();  /* no pinned memory to be had: pageable copies */
      polypragma_stage_release();
      for (int e = 0; e < 2; ++e)
        cudaEventDestroy(polypragma_cuda_data.done[e]);
      polypragma_cuda_data.staging = -1;
      return 0;
    }
    polypragma_cuda_data.stage_bytes[k] = grown;
  }
  return 1;
}

static void polypragma_cuda_data_release(void)
{
  for (int k = 0; k < polypragma_cuda_data.pooled; ++k)
    cudaFree(polypragma_cuda_data.pool[k].buffer);
  polypragma_cuda_data.pooled = 0;
  if (polypragma_cuda_data.staging == 1) {
    for (int k = 0; k < 2; ++k)
      cudaEventDestroy(polypragma_cuda_data.done[k]);
    polypragma_cuda_data.staging = 0;
  }
  polypragma_stage_release();
  if (polypragma_profiling())
    fprintf(stderr, "polypragma: profile: transfers: %ld copies in (%zu bytes), %ld copies out (%zu bytes), "
            "%ld device allocations\n", polypragma_cuda_data.uploads, polypragma_cuda_data.uploaded,
            polypragma_cuda_data.downloads, polypragma_cuda_data.downloaded, polypragma_cuda_data.allocations);
}

static void polypragma_cuda_data_init(void)
{
  if (polypragma_cuda_data.ready)
    return;
  polypragma_cuda_data.ready = 1;
  const char *mode = getenv("POLYPRAGMA_COPY");
  polypragma_cuda_data.mode = mode == NULL || mode[0] == '\0' || strcmp(mode, "auto") == 0 ? 0
                              : strcmp(mode, "pageable") == 0 ? 1 : strcmp(mode, "stage") == 0 ? 2
                              : strcmp(mode, "register") == 0 ? 3 : strcmp(mode, "direct") == 0 ? 4 : 0;
  polypragma_cuda_data.stage_min = polypragma_size_env("POLYPRAGMA_STAGE_MIN", (size_t)1 << 20);
  polypragma_cuda_data.register_min = polypragma_size_env("POLYPRAGMA_REGISTER_MIN", (size_t)-1);
  polypragma_cuda_data.chunk = polypragma_size_env("POLYPRAGMA_STAGE_CHUNK", (size_t)32 << 20);
  size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    cudaGetLastError();
    total = (size_t)2 << 30;
  }
  polypragma_cuda_data.limit = polypragma_size_env("POLYPRAGMA_POOL_LIMIT", total / 2);
  atexit(polypragma_cuda_data_release);
}

static int polypragma_buffer_get(void **buffer, size_t bytes, const char *name, const char *where, int phase)
{
  polypragma_cuda_data_init();
  if (bytes == 0)
    bytes = 1;
  for (int k = 0; k < polypragma_cuda_data.pooled; ++k)
    if (polypragma_cuda_data.pool[k].bytes == bytes) {
      *buffer = polypragma_cuda_data.pool[k].buffer;
      polypragma_cuda_data.pool[k] = polypragma_cuda_data.pool[--polypragma_cuda_data.pooled];
      polypragma_cuda_data.cached -= bytes;
      return 0;
    }
  cudaError_t error = POLYPRAGMA_CALL(cudaMalloc(buffer, bytes));
  if (error == cudaErrorMemoryAllocation && polypragma_cuda_data.pooled > 0) {
    cudaGetLastError();
    while (polypragma_cuda_data.pooled > 0)
      cudaFree(polypragma_cuda_data.pool[--polypragma_cuda_data.pooled].buffer);
    polypragma_cuda_data.cached = 0;
    error = POLYPRAGMA_CALL(cudaMalloc(buffer, bytes));
  }
  if (error != cudaSuccess) {
    char call[200];
    *buffer = NULL;
    snprintf(call, sizeof call, "cudaMalloc(&dev_%s, %zu)", name, bytes);
    return polypragma_cuda_fail(call, error, where, phase);
  }
  polypragma_cuda_data.allocations++;
  return 0;
}

static int polypragma_buffer_put(void *buffer, size_t bytes, const char *name, const char *where, int phase)
{
  if (bytes == 0)
    bytes = 1;
  if (polypragma_cuda_data.pooled < 32 && polypragma_cuda_data.cached + bytes <= polypragma_cuda_data.limit) {
    polypragma_cuda_data.pool[polypragma_cuda_data.pooled].buffer = buffer;
    polypragma_cuda_data.pool[polypragma_cuda_data.pooled++].bytes = bytes;
    polypragma_cuda_data.cached += bytes;
    return 0;
  }
  cudaError_t error = POLYPRAGMA_CALL(cudaFree(buffer));
  if (error != cudaSuccess) {
    char call[200];
    snprintf(call, sizeof call, "cudaFree(dev_%s)", name);
    return polypragma_cuda_fail(call, error, where, phase);
  }
  return 0;
}

/* how to copy "bytes" from or to "host": 0 one cudaMemcpy, 1 staged, 2 registered */
static int polypragma_copy_method(const void *host, size_t bytes)
{
  polypragma_cuda_data_init();
  int mode = polypragma_cuda_data.mode;
  if (mode == 1 || mode == 4 || bytes < polypragma_cuda_data.stage_min)
    return 0;
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, host) == cudaSuccess && attributes.type != cudaMemoryTypeUnregistered)
    return 0;  /* pinned, managed or device memory */
  cudaGetLastError();
  if (mode == 3)
    return 2;
  return polypragma_cuda_data.staging >= 0 && polypragma_stage_ready(bytes) ? 1 : 0;
}

/* Whether the kernels may use a host array in place, without a buffer or copies: managed memory on a
   device with concurrent managed access (cudaDevAttrConcurrentManagedAccess), and under
   POLYPRAGMA_COPY=direct any host memory on a device with cudaDevAttrPageableMemoryAccess (HMM, or a
   coherent CPU-GPU link); copies otherwise. */
static int polypragma_direct(const void *host, size_t bytes)
{
  static int managed = -1, pageable = -1;
  (void)bytes;
  polypragma_cuda_data_init();
  if (managed < 0) {
    int device = 0, value = 0;
    managed = pageable = 0;
    if (cudaGetDevice(&device) == cudaSuccess) {
      if (cudaDeviceGetAttribute(&value, cudaDevAttrConcurrentManagedAccess, device) == cudaSuccess)
        managed = value != 0;
      if (cudaDeviceGetAttribute(&value, cudaDevAttrPageableMemoryAccess, device) == cudaSuccess)
        pageable = value != 0 && polypragma_cuda_data.mode == 4;
    }
    cudaGetLastError();
  }
  if (pageable)
    return 1;
  if (!managed)
    return 0;
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return attributes.type == cudaMemoryTypeManaged;
}

/* A data scope's array page-locked for the scope's life (cudaHostRegister), under POLYPRAGMA_COPY=register,
   or auto from POLYPRAGMA_REGISTER_MIN bytes on (never by default): registering costs about what two or three
   staged copies of the array do, so it pays where the scope copies the array more often (updates); the
   copies then find pinned memory and go directly.  1: registered (unpin at the scope's end). */
static int polypragma_pin(void *host, size_t bytes)
{
  polypragma_cuda_data_init();
  const int mode = polypragma_cuda_data.mode;
  if (!(mode == 3 || (mode == 0 && bytes >= polypragma_cuda_data.register_min)))
    return 0;
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, host) == cudaSuccess && attributes.type != cudaMemoryTypeUnregistered)
    return 0;
  cudaGetLastError();
  if (cudaHostRegister(host, bytes, cudaHostRegisterDefault) != cudaSuccess) {
    cudaGetLastError();  /* not registrable (read-only pages, a limit): staged copies */
    return 0;
  }
  return 1;
}

static void polypragma_unpin(void *host)
{
  if (cudaHostUnregister(host) != cudaSuccess)
    cudaGetLastError();
}

/* one copy between the host and device memory, by the method chosen for its size (see above) */
static int polypragma_copy(char *device, char *host, size_t bytes, int to_device, const char *name, const char *where,
                           int phase)
{
  const cudaMemcpyKind kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  const char *call = "cudaMemcpy";
  cudaError_t error = cudaSuccess;
  int method = polypragma_copy_method(host, bytes);
  if (to_device) {
    polypragma_cuda_data.uploads++;
    polypragma_cuda_data.uploaded += bytes;
  }
  else {
    polypragma_cuda_data.downloads++;
    polypragma_cuda_data.downloaded += bytes;
  }
  if (method == 2) {
    if (cudaHostRegister(host, bytes, cudaHostRegisterDefault) == cudaSuccess) {
      error = POLYPRAGMA_CALL(to_device ? cudaMemcpy(device, host, bytes, kind) : cudaMemcpy(host, device, bytes, kind));
      cudaError_t released = cudaHostUnregister(host);
      if (error == cudaSuccess && released != cudaSuccess) {
        error = released;
        call = "cudaHostUnregister";
      }
      method = -1;
    }
    else {  /* already registered, or not registrable: staged */
      cudaGetLastError();
      polypragma_cuda_data.mode = polypragma_cuda_data.mode == 3 ? 2 : polypragma_cuda_data.mode;
      method = polypragma_copy_method(host, bytes) == 1 ? 1 : 0;
    }
  }
  if (method == 0)
    error = POLYPRAGMA_CALL(to_device ? cudaMemcpy(device, host, bytes, kind) : cudaMemcpy(host, device, bytes, kind));
  else if (method == 1 && to_device) {
    const size_t chunk = polypragma_cuda_data.chunk;
    size_t last = 0;
    for (size_t done = 0, i = 0; done < bytes && error == cudaSuccess; done += chunk, ++i) {
      const size_t n = bytes - done < chunk ? bytes - done : chunk;
      const int k = (int)(i & 1);
      if (i >= 2 && (error = POLYPRAGMA_CALL(cudaEventSynchronize(polypragma_cuda_data.done[k]))) != cudaSuccess) {
        call = "cudaEventSynchronize";
        break;
      }
      polypragma_memcpy(polypragma_cuda_data.stage[k], host + done, n);
      call = "cudaMemcpyAsync";
      error = POLYPRAGMA_CALL(cudaMemcpyAsync(device + done, polypragma_cuda_data.stage[k], n, kind, 0));
      if (error == cudaSuccess && (error = POLYPRAGMA_CALL(cudaEventRecord(polypragma_cuda_data.done[k], 0))) != cudaSuccess)
        call = "cudaEventRecord";
      last = (size_t)k;
    }
    if (error == cudaSuccess && (error = POLYPRAGMA_CALL(cudaEventSynchronize(polypragma_cuda_data.done[last]))) != cudaSuccess)
      call = "cudaEventSynchronize";
  }
  else if (method == 1) {
    /* chunk i+1 crosses the link while the CPU empties chunk i */
    const size_t chunk = polypragma_cuda_data.chunk;
    const size_t count = (bytes + chunk - 1) / chunk;
    for (size_t i = 0; i < count + 1 && error == cudaSuccess; ++i) {
      if (i < count) {
        const size_t n = bytes - i * chunk < chunk ? bytes - i * chunk : chunk;
        call = "cudaMemcpyAsync";
        error = POLYPRAGMA_CALL(cudaMemcpyAsync(polypragma_cuda_data.stage[i & 1], device + i * chunk, n, kind, 0));
        if (error == cudaSuccess &&
            (error = POLYPRAGMA_CALL(cudaEventRecord(polypragma_cuda_data.done[i & 1], 0))) != cudaSuccess)
          call = "cudaEventRecord";
      }
      if (i > 0 && error == cudaSuccess) {
        const size_t j = i - 1, n = bytes - j * chunk < chunk ? bytes - j * chunk : chunk;
        if ((error = POLYPRAGMA_CALL(cudaEventSynchronize(polypragma_cuda_data.done[j & 1]))) != cudaSuccess)
          call = "cudaEventSynchronize";
        else
          polypragma_memcpy(host + j * chunk, polypragma_cuda_data.stage[j & 1], n);
      }
    }
  }
  if (error != cudaSuccess) {
    char text[200];
    snprintf(text, sizeof text, "%s (%s of %s, %zu bytes)", call, to_device ? "copy-in" : "copy-out", name, bytes);
    return polypragma_cuda_fail(text, error, where, phase);
  }
  return 0;
}

static int polypragma_upload(void *buffer, size_t offset, const void *host, size_t bytes, const char *name,
                             const char *where, int phase)
{
  return polypragma_copy((char *)buffer + offset, (char *)host, bytes, 1, name, where, phase);
}

static int polypragma_download(void *host, void *buffer, size_t offset, size_t bytes, const char *name,
                               const char *where, int phase)
{
  return polypragma_copy((char *)buffer + offset, (char *)host, bytes, 0, name, where, phase);
}
"""


def texture_arrays(region: GpuRegion) -> list[DeviceArray]:
    """Arrays some kernel of ``region`` reads through a texture object."""
    return [a for a in region.arrays
            if any(region.placement(k, a) is Placement.TEXTURE for k in region.mapping.kernels)]


def region_text(region: GpuRegion, source: str, device_entries: bool = False) -> RegionText:
    """``region``'s kernels, host function and constant memory, as text (region_text.printed)."""
    return dataclasses.replace(
        printed(region, CudaSyntax(), source, device_entries),
        constant_lines=tuple(f"__constant__ {a.device_type} {constant_symbol(region, a)}[{a.constant_elements}];"
                             for a in region.arrays if a.name in region.constant),
        texture_fetches=frozenset(TEXTURE_FETCH[a.device_type] for a in texture_arrays(region)))


def prototypes(texts: list[RegionText], data_source: str | None = None) -> tuple[list[str], list[list[str]]]:
    """Declarations for the C file: with ``data_source``, of the data scope's entry points of that
    source's .cu; and of each region's host function (which names the region's types)."""
    out = []
    if data_source is not None:
        out += ["#include <stddef.h>"] + host_data.types() + host_data.prototypes(symbol_stem(data_source))
    return out, [[text.prototype] for text in texts]


def generate(texts: list[RegionText], source: str, *, fp_contract: bool = True) -> list[str]:
    """The body of the ``.cu`` file, from its regions' texts."""
    syntax = CudaSyntax()
    # the types and enumerators the kernels use, as the source defines them (the .cu does not see it)
    kernels = type_declarations(texts) + all_device_functions(texts)
    kernels += [""] if kernels else []
    fetches = sorted(set().union(*(text.texture_fetches for text in texts)))
    kernels += fetches + ([""] if fetches else [])
    constants = [line for text in texts for line in text.constant_lines]
    kernels += constants + ([""] if constants else [])
    host: list[str] = []
    macros: set[str] = set()
    for text in texts:
        kernels += text.kernel_lines
        host += text.host_lines
        macros |= text.kernel_macros | text.host_macros
    includes = INCLUDES if fp_contract else INCLUDES + [
        "/* compile with nvcc -fmad=false for results that match the CPU bit for bit */"]
    if any("_Bool" in line for line in kernels + host):
        # C's boolean type in the region's arrays and scalars; CUDA C++ spells it bool (one byte in both)
        includes = includes + ["typedef bool _Bool;"]
    prelude = includes + [""] + runtime(syntax) + parallel_copy.SOURCE.strip("\n").split("\n")
    prelude += RUNTIME.rstrip("\n").split("\n")
    prelude += host_data.runtime(syntax.suffix, syntax.setup, symbol_stem(source), syntax.storage)
    return prelude + [""] + helper_macros(macros) + [""] + kernels + host


def empty_unit(stem: str) -> list[str]:
    """The ``.cu`` file of a source without regions: valid, and defines nothing."""
    return [f"/* no region in this file: nothing to run on the device ({symbol_stem(stem)}) */"]
