/* The CUDA runtime calls of polypragma's generated host code, on host memory, for tests without a GPU
   (tests/test_cuda_runtime.py): device buffers are host allocations, copies are memcpy (asynchronous ones
   finish at once), events are counters.  It records the pinned allocations and registrations the code
   makes (mock_pinned_allocations, mock_pinned_bytes, mock_registrations), and fails the next pinned
   allocation when mock_fail_pinned is set.  Not CUDA: only what the generated code relies on. */
#ifndef POLYPRAGMA_CUDA_MOCK_H
#define POLYPRAGMA_CUDA_MOCK_H

#include <cstdlib>
#include <cstring>
#include <cstddef>

typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidValue = 1,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorHostMemoryAlreadyRegistered = 712
} cudaError_t;

enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
enum cudaMemoryType { cudaMemoryTypeUnregistered, cudaMemoryTypeHost, cudaMemoryTypeDevice, cudaMemoryTypeManaged };
enum cudaDeviceAttr { cudaDevAttrConcurrentManagedAccess = 89, cudaDevAttrPageableMemoryAccess = 88 };

struct cudaPointerAttributes { enum cudaMemoryType type; int device; void *devicePointer; void *hostPointer; };
typedef struct mock_event { int recorded; } *cudaEvent_t;

#define cudaHostAllocDefault 0
#define cudaHostRegisterDefault 0
#define cudaEventDisableTiming 2

/* what the code did, for the test's driver */
static int mock_pinned_allocations = 0;
static size_t mock_pinned_bytes = 0;   /* of the live pinned allocations */
static size_t mock_pinned_largest = 0; /* the largest one made */
static int mock_registrations = 0;
static int mock_fail_pinned = 0;

/* pinned ranges: allocated (cudaHostAlloc) or registered */
static struct { const char *start; size_t bytes; int allocated; } mock_ranges[64];
static int mock_range_count = 0;

static void mock_range_add(const void *start, size_t bytes, int allocated)
{
  if (mock_range_count < 64) {
    mock_ranges[mock_range_count].start = (const char *)start;
    mock_ranges[mock_range_count].bytes = bytes;
    mock_ranges[mock_range_count++].allocated = allocated;
  }
}

static int mock_range_remove(const void *start, int allocated)
{
  for (int k = 0; k < mock_range_count; ++k)
    if (mock_ranges[k].start == (const char *)start && mock_ranges[k].allocated == allocated) {
      if (allocated)
        mock_pinned_bytes -= mock_ranges[k].bytes;
      mock_ranges[k] = mock_ranges[--mock_range_count];
      return 1;
    }
  return 0;
}

static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline const char *cudaGetErrorString(cudaError_t error) { return error == cudaSuccess ? "no error" : "mock error"; }
static inline cudaError_t cudaGetDeviceCount(int *count) { *count = 1; return cudaSuccess; }
static inline cudaError_t cudaGetDevice(int *device) { *device = 0; return cudaSuccess; }
static inline cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr, int) { *value = 0; return cudaSuccess; }
static inline cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
  *free_bytes = *total = (size_t)1 << 30;
  return cudaSuccess;
}

static inline cudaError_t cudaMalloc(void **pointer, size_t bytes)
{
  *pointer = malloc(bytes ? bytes : 1);
  return *pointer ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFree(void *pointer) { free(pointer); return cudaSuccess; }

static inline cudaError_t cudaHostAlloc(void **pointer, size_t bytes, unsigned int)
{
  if (mock_fail_pinned) {
    *pointer = NULL;
    return cudaErrorMemoryAllocation;
  }
  *pointer = malloc(bytes ? bytes : 1);
  if (*pointer == NULL)
    return cudaErrorMemoryAllocation;
  mock_pinned_allocations++;
  mock_pinned_bytes += bytes;
  mock_pinned_largest = bytes > mock_pinned_largest ? bytes : mock_pinned_largest;
  mock_range_add(*pointer, bytes, 1);
  return cudaSuccess;
}
static inline cudaError_t cudaFreeHost(void *pointer)
{
  mock_range_remove(pointer, 1);
  free(pointer);
  return cudaSuccess;
}
static inline cudaError_t cudaHostRegister(void *pointer, size_t bytes, unsigned int)
{
  for (int k = 0; k < mock_range_count; ++k)
    if ((const char *)pointer >= mock_ranges[k].start && (const char *)pointer < mock_ranges[k].start + mock_ranges[k].bytes)
      return cudaErrorHostMemoryAlreadyRegistered;
  mock_registrations++;
  mock_range_add(pointer, bytes, 0);
  return cudaSuccess;
}
static inline cudaError_t cudaHostUnregister(void *pointer)
{
  return mock_range_remove(pointer, 0) ? cudaSuccess : cudaErrorInvalidValue;
}
static inline cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *pointer)
{
  attributes->type = cudaMemoryTypeUnregistered;
  for (int k = 0; k < mock_range_count; ++k)
    if ((const char *)pointer >= mock_ranges[k].start && (const char *)pointer < mock_ranges[k].start + mock_ranges[k].bytes)
      attributes->type = cudaMemoryTypeHost;
  return cudaSuccess;
}

static inline cudaError_t cudaMemcpy(void *to, const void *from, size_t bytes, enum cudaMemcpyKind)
{
  memcpy(to, from, bytes);
  return cudaSuccess;
}
static inline cudaError_t cudaMemcpyAsync(void *to, const void *from, size_t bytes, enum cudaMemcpyKind kind, int = 0)
{
  return cudaMemcpy(to, from, bytes, kind);
}

static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int)
{
  *event = (cudaEvent_t)calloc(1, sizeof(struct mock_event));
  return *event ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, 0); }
static inline cudaError_t cudaEventRecord(cudaEvent_t event, int = 0) { event->recorded++; return cudaSuccess; }
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { *ms = 0.0f; return cudaSuccess; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t event) { free(event); return cudaSuccess; }

#endif
