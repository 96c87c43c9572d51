// RUN: -- 1 1
// RUN: -- 6 19
// RUN: -- 10 60
// the kernels: y1 (then y2) in shared memory, a tile at a time; x1 (x2) in a register; A read along a
// row (x1) staged through shared memory by every thread of a block of 256, j tiled by 16 (the 256x16
// tile fits where 256x32 does not, for twice the threads of a 128x32 one), and read from global memory
// down a column (x2), two columns a thread inside each step of the loop over y2's tile of 32
// CHECK-CUDA: __global__ void polypragma_mvt_region0_kernel0(
// CHECK-CUDA: __shared__ double shared_A[256][17];
// CHECK-CUDA: __shared__ double shared_y1[16];
// CHECK-CUDA: double private_x1[1];
// CHECK-CUDA: private_x1[0] = x1[t0 + 256 * k0];
// CHECK-CUDA: for (int k2 = t0; k2 <= {{.*}}; k2 += 256) {
// CHECK-CUDA: shared_A[k2 / 16][k2 % 16] = A[(256 * k0 + k2 / 16) * n + (k2 % 16 + 16 * k1)];
// CHECK-CUDA: shared_y1[t0] = y1[t0 + 16 * k1];
// CHECK-CUDA-NEXT: }
// CHECK-CUDA-NEXT: __syncthreads();
// CHECK-CUDA: private_x1[0] = private_x1[0] + shared_A[t0][k3] * shared_y1[k3];  /* {{.*}}tests/kernels/mvt.c:{{[0-9]+}} */
// CHECK-CUDA: x1[t0 + 256 * k0] = private_x1[0];
// CHECK-CUDA: __global__ void polypragma_mvt_region0_kernel1(
// CHECK-CUDA: private_x2[0] = private_x2[0] + A[(32 * k1 + k2) * n + (t0 + 256 * k0)] * shared_y2[k2];
// CHECK-CUDA-NEXT: private_x2[1] = private_x2[1] + A[(32 * k1 + k2) * n + (t0 + 256 * k0 + 128)] * shared_y2[k2];
// covers: vla-params, pre-increment (++i ++j), decrementing-loop (i--),
//         sequence-of-nests, transposed-access
// mvt: x1 += A y1;  x2 += A^T y2
#include "kernels.h"

static void kernel_mvt(int n, double x1[n], double x2[n], double y1[n],
                       double y2[n], double A[n][n])
{
    int i, j;

#pragma scop
    for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j)
            x1[i] = x1[i] + A[i][j] * y1[j];
    for (i = n - 1; i >= 0; i--)
        for (j = 0; j < n; ++j)
            x2[i] = x2[i] + A[j][i] * y2[j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double A[n][n];
    double x1[n], x2[n], y1[n], y2[n];

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(x1, n);
    init_array_1d(x2, n);
    init_array_1d(y1, n);
    init_array_1d(y2, n);

    kernel_mvt(n, x1, x2, y1, y2, A);

    print_array_1d("x1", x1, n);
    print_array_1d("x2", x2, n);
    return 0;
}
