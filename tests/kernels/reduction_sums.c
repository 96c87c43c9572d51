// RUN: -DN=1 -- 1
// RUN: -DN=7 -- 3
// RUN: -DN=300 -- 5
// RUN: -DN=1000 -- 9
// covers: parallel-reduction-scalar, dot-product, accumulator-with-initial-value, reduction-minus
// Sums into one element: the loop of each is parallel only as a reduction (GPU targets: every thread
// accumulates in a register, the block combines, one atomic update per block).
#include "kernels.h"

#ifndef N
#define N 100
#endif

static double a[N];
static double b[N];
static double total;
static double dot;
static double start;
static double difference;

static void kernel_sums(void)
{
#pragma scop
    total = 0.0;
    for (int i = 0; i < N; i++)
        total += a[i];
    for (int i = 0; i < N; i++)
        dot = dot + a[i] * b[i];
    for (int i = 0; i < N; i++)
        start += 2.0 * b[i];
    for (int i = 0; i < N; i++)
        difference -= a[i];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_array_1d(a, N);
    init_array_1d(b, N);
    dot = 0.0;
    start = 1000.5;
    difference = 7.25;
    kernel_sums();
    print_scalar("total", total);
    print_scalar("dot", dot);
    print_scalar("start", start);
    print_scalar("difference", difference);
    return 0;
}
// CHECK-DEFINES: -DN=1000
// CHECK-CUDA: __global__ void polypragma_reduction_sums_region0_kernel2(
// CHECK-CUDA: double polypragma_reduction0 = -0.0;
// CHECK-CUDA-NEXT: __shared__ double polypragma_reduction0_block[8];
// CHECK-CUDA: polypragma_reduction0 = polypragma_reduction0 + (a[256 * b0 + t0]);
// CHECK-CUDA: { const double polypragma_other = __shfl_down_sync(0xffffffffu, polypragma_reduction0, polypragma_step);
// CHECK-CUDA-NEXT: polypragma_reduction0 = polypragma_reduction0 + polypragma_other; }
// CHECK-CUDA: polypragma_reduction0_block[polypragma_lane / 32] = polypragma_reduction0;
// CHECK-CUDA: polypragma_atomic_add_double(&total[0], polypragma_reduction0);
// CHECK-OPENCL: polypragma_reduction0 = polypragma_reduction0 - (a[
// CHECK-OPENCL: polypragma_reduction0_block[polypragma_lane] = polypragma_reduction0_block[polypragma_lane] + polypragma_reduction0_block[polypragma_lane + polypragma_step];
// CHECK-OPENCL: polypragma_atomic_add_double(&difference[0], polypragma_reduction0);
