// RUN: -- 1 1
// RUN: -- 6 19
// RUN: -- 10 60
// one kernel (gpu/fuse.py): both sums read A alike, so they run in one band over A's elements, which
// reads A once where a kernel a sum read it twice.  Each sum's loop is parallel only as a reduction and
// spreads over threads: j (A's columns) on x, coalesced, and a thread runs a run of rows i on y.  x2[j]'s
// updates then stay on the thread's element, accumulated in a register; x1[i]'s change element every
// step, and the warp's threads, which share it, combine theirs with shuffles before one atomic update.
// A is read from global memory (the two reads of one element at one point, not copied), y1 and y2 are
// in shared memory
// CHECK-CUDA: #define polypragma_warp_atomic_add_double(p, v) do {{.*}}__match_any_sync(__activemask(){{.*}}__shfl_xor_sync
// CHECK-CUDA: __global__ void polypragma_mvt_region0_kernel0(
// CHECK-CUDA-NOT: __global__
// CHECK-CUDA: __shared__ double shared_y1[32];
// CHECK-CUDA: __shared__ double shared_y2[512];
// CHECK-CUDA: for (int k2 = t0; k2 <= {{.*}}; k2 += 16) {
// CHECK-CUDA-NEXT: { double *polypragma_element = &x2[32 * b1 + t1]; {{.*}} polypragma_reduction1 = polypragma_reduction1 + (A[(512 * k0 + k2) * n + (32 * b1 + t1)] * shared_y2[k2]); }  /* {{.*}}tests/kernels/mvt.c:{{[0-9]+}} */
// CHECK-CUDA-NEXT: { double *polypragma_element = &x1[512 * k0 + k2]; if (polypragma_element != polypragma_reduction0_at) { if (polypragma_reduction0_at) polypragma_warp_atomic_add_double(polypragma_reduction0_at, polypragma_reduction0); {{.*}} (A[(512 * k0 + k2) * n + (32 * b1 + t1)] * shared_y1[t1]); }  /* {{.*}}tests/kernels/mvt.c:{{[0-9]+}} */
// CHECK-CUDA: if (__all_sync(0xffffffffu, polypragma_reduction0_at == polypragma_first)) {
// CHECK-CUDA-NOT: __global__
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
