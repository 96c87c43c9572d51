// RUN: -- 1 1
// RUN: -- 6 19
// RUN: -- 10 60
// the kernels: one parallel loop of unknown extent gives too few threads to fill the device, so each
// also maps its reduction loop j (gpu/mapping.py's spread_reduction): a thread runs 32 points of j,
// accumulating its run of updates of x1[i] (x2[i]) in a register, merged into the element with one
// atomic update at its end.  Along a row (x1) j goes to x, coalesced, and a warp whose threads end on
// one element combines them with shuffles; down a column (x2) i stays on x, j on y.  y1 (y2) in shared
// memory, a tile at a time; A read from global memory
// CHECK-CUDA: __global__ void polypragma_mvt_region0_kernel0(
// CHECK-CUDA: __shared__ __align__(16) double shared_y1[1024];
// CHECK-CUDA: double *polypragma_reduction0_at = 0;
// CHECK-CUDA: for (int k3 = t1; k3 <= {{.*}}; k3 += 32) {
// CHECK-CUDA-NEXT: { double *polypragma_element = &x1[t0 + 16 * k0]; if (polypragma_element != polypragma_reduction0_at) {{.*}} polypragma_reduction0 = polypragma_reduction0 + (A[(t0 + 16 * k0) * n + (1024 * k1 + k3)] * shared_y1[k3]); }  /* {{.*}}tests/kernels/mvt.c:{{[0-9]+}} */
// CHECK-CUDA: if (__all_sync(0xffffffffu, polypragma_reduction0_at == polypragma_first)) {
// CHECK-CUDA: __global__ void polypragma_mvt_region0_kernel1(
// CHECK-CUDA: for (int k2 = t0; k2 <= {{.*}}; k2 += 8) {
// CHECK-CUDA-NEXT: { double *polypragma_element = &x2[32 * b1 + t1]; {{.*}} polypragma_reduction0 = polypragma_reduction0 + (A[(256 * k0 + k2) * n + (32 * b1 + t1)] * shared_y2[k2]); }  /* {{.*}}tests/kernels/mvt.c:{{[0-9]+}} */
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
