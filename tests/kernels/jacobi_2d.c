// RUN: -DN=1 -DTSTEPS=1 -- 1
// RUN: -DN=19 -DTSTEPS=7 -- 4
// RUN: -DN=60 -DTSTEPS=10 -- 6
// CHECK-DEFINES: -DN=30 -DTSTEPS=2
// the kernels: the tile of A (then of B) in shared memory with its halo, read with simple indices; the
// barriers outside every condition; the tile (the whole array here) copied unrolled, two elements a copy
// CHECK-CUDA: __global__ void polypragma_jacobi_2d_region0_kernel0(
// CHECK-CUDA: __shared__ __align__(16) double shared_A[30][30];
// CHECK-CUDA: polypragma_copy_in_double2(&shared_A[t0][2 * t1], &A[t0 * 30 + 2 * t1]);
// CHECK-CUDA: }
// CHECK-CUDA-NEXT: }
// CHECK-CUDA-NEXT: }
// CHECK-CUDA-NEXT: __syncthreads();
// CHECK-CUDA: B[(k2 + 1) * 30 + (t1 + 1)] = 0.2 * (shared_A[k2 + 1][t1 + 1] + shared_A[k2 + 1][t1] + shared_A[k2 + 1][t1 + 2] + shared_A[k2 + 2][t1 + 1] + shared_A[k2][t1 + 1]);  /* {{.*}}tests/kernels/jacobi_2d.c:{{[0-9]+}} */
// CHECK-CUDA: __global__ void polypragma_jacobi_2d_region0_kernel1(
// CHECK-CUDA: __shared__ __align__(16) double shared_B[30][30];
// CHECK-CUDA: A[(k2 + 1) * 30 + (t1 + 1)] = 0.2 * (shared_B[k2 + 1][t1 + 1] + {{.*}});  /* {{.*}}tests/kernels/jacobi_2d.c:{{[0-9]+}} */
// covers: fixed-size-global-arrays, macro-params-in-bounds (N - 1, TSTEPS),
//         time-loop, 5-point stencil, sequence-of-nests inside a loop
// jacobi_2d: 5-point Jacobi stencil, ping-pong between A and B
#include "kernels.h"

#ifndef N
#define N 30
#endif
#ifndef TSTEPS
#define TSTEPS 8
#endif

static double A[N][N];
static double B[N][N];

static void kernel_jacobi_2d(void)
{
    int t, i, j;

#pragma scop
    for (t = 0; t < TSTEPS; t++) {
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j]
                                 + A[1 + i][j] + A[i - 1][j]);
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j]
                                 + B[1 + i][j] + B[i - 1][j]);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_array_2d(&A[0][0], N, N);
    init_array_2d(&B[0][0], N, N);

    kernel_jacobi_2d();

    print_array_2d("A", &A[0][0], N, N);
    print_array_2d("B", &B[0][0], N, N);
    return 0;
}
