// The link's copy bandwidth measured directly: 1 GiB (or argv[1] bytes) between a cudaMalloc buffer and
// pinned (cudaMallocHost) or pageable (malloc) host memory, best of 5 after a warm-up, timed with events.
// Prints one JSON object.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

static float best_ms(void *to, const void *from, size_t bytes, cudaMemcpyKind kind)
{
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaMemcpy(to, from, bytes, kind);
  float best = 1e30f;
  for (int k = 0; k < 5; ++k) {
    float ms = 0;
    cudaEventRecord(start, 0);
    cudaMemcpy(to, from, bytes, kind);
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&ms, start, stop);
    best = ms < best ? ms : best;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best;
}

int main(int argc, char **argv)
{
  size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 30;
  void *device = NULL, *pinned = NULL, *pageable = malloc(bytes);
  cudaError_t error = cudaMalloc(&device, bytes);
  if (error == cudaSuccess)
    error = cudaMallocHost(&pinned, bytes);
  if (error != cudaSuccess || pageable == NULL) {
    printf("{\"error\": \"%s\"}\n", error != cudaSuccess ? cudaGetErrorString(error) : "malloc failed");
    return 1;
  }
  memset(pinned, 1, bytes);
  memset(pageable, 1, bytes);
  const double gb = bytes / 1e9;
  int pageable_access = 0, managed_access = 0;
  cudaDeviceGetAttribute(&pageable_access, cudaDevAttrPageableMemoryAccess, 0);
  cudaDeviceGetAttribute(&managed_access, cudaDevAttrConcurrentManagedAccess, 0);
  printf("{\"bytes\": %zu, \"pinned_h2d_gbs\": %.3f, \"pinned_d2h_gbs\": %.3f, \"pageable_h2d_gbs\": %.3f, "
         "\"pageable_d2h_gbs\": %.3f, \"pageable_memory_access\": %d, \"concurrent_managed_access\": %d}\n", bytes,
         gb / (best_ms(device, pinned, bytes, cudaMemcpyHostToDevice) / 1e3),
         gb / (best_ms(pinned, device, bytes, cudaMemcpyDeviceToHost) / 1e3),
         gb / (best_ms(device, pageable, bytes, cudaMemcpyHostToDevice) / 1e3),
         gb / (best_ms(pageable, device, bytes, cudaMemcpyDeviceToHost) / 1e3), pageable_access, managed_access);
  return 0;
}
