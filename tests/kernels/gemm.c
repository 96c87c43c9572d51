// RUN: -- 1 1 1 1
// RUN: -- 7 13 19 7
// RUN: -- 42 48 52 56
// the kernel, as a reader should see it: shared tiles of A and B indexed by the tile's own coordinates,
// a 4x4 register tile of C per thread (tile 64x64, block 16x16: the cost model's choice) inside the loop over k,
// one loop over the tiles of k with two barriers, each statement with its source line, global indices simplified
// by isl, and A's and B's tiles copied unrolled where all of the tile exists (8 elements a thread), in loops elsewhere
// CHECK-CUDA: __global__ void polypragma_gemm_region0_kernel0(
// CHECK-CUDA: __shared__ double shared_A[64][33];
// CHECK-CUDA-NEXT: __shared__ double shared_B[32][64];
// CHECK-CUDA: double private_C[4][4];
// CHECK-CUDA: private_C[0][0] = C[(t0 + 64 * k0) * nj + (t1 + 64 * k1)];
// CHECK-CUDA: for (int k2 = 0; {{.*}}; ++k2) {
// CHECK-CUDA-NEXT: if (ni >= 64 * k0 + 64 && nk >= 32 * k2 + 32) {
// CHECK-CUDA-NEXT: shared_A[t0][t1] = A[(t0 + 64 * k0) * nk + (t1 + 32 * k2)];
// CHECK-CUDA: shared_A[k3][k4] = A[(64 * k0 + k3) * nk + (32 * k2 + k4)];
// CHECK-CUDA: shared_B[k3][k4] = B[(32 * k2 + k3) * nj + (64 * k1 + k4)];
// CHECK-CUDA: __syncthreads();
// the register tile inside each step of k, in loops over its 4x4 slots that nvcc unrolls, with no guard per
// point: partial tiles are computed whole (in registers and shared memory only; the copies move the existing points)
// CHECK-CUDA: if (k2 == 0) {
// CHECK-CUDA-NEXT: #pragma unroll
// CHECK-CUDA-NEXT: for (int k5 = 0; k5 < 4; ++k5) {
// CHECK-CUDA-NOT: if (
// CHECK-CUDA: private_C[k5][k6] *= beta;  /* {{.*}}tests/kernels/gemm.c:{{[0-9]+}} */
// CHECK-CUDA: for (int k3 = 0; k3 <= polypragma_min(31, nk - 32 * k2 - 1); ++k3) {
// CHECK-CUDA-NEXT: #pragma unroll
// CHECK-CUDA-NEXT: for (int k5 = 0; k5 < 4; ++k5) {
// CHECK-CUDA-NEXT: #pragma unroll
// CHECK-CUDA-NEXT: for (int k6 = 0; k6 < 4; ++k6) {
// CHECK-CUDA-NEXT: private_C[k5][k6] += alpha * shared_A[t0 + 16 * k5][k3] * shared_B[k3][t1 + 16 * k6];  /* {{.*}}gemm.c:{{[0-9]+}} */
// CHECK-CUDA: C[(t0 + 64 * k0) * nj + (t1 + 64 * k1)] = private_C[0][0];
// CHECK-CUDA-NOT: double private_C
// CHECK-CUDA: __syncthreads();
// covers: vla-params, imperfect-nest, read-only-scalars (alpha, beta),
//         compound-assign (*= +=), loop-vars-declared-at-top
// gemm: C = alpha * A * B + beta * C
#include "kernels.h"

static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                        double C[ni][nj], double A[ni][nk], double B[nk][nj])
{
    int i, j, k;

#pragma scop
    for (i = 0; i < ni; i++) {
        for (j = 0; j < nj; j++)
            C[i][j] *= beta;
        for (k = 0; k < nk; k++) {
            for (j = 0; j < nj; j++)
                C[i][j] += alpha * A[i][k] * B[k][j];
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int ni = arg_size(argc, argv, 2, 20);
    int nj = arg_size(argc, argv, 3, 25);
    int nk = arg_size(argc, argv, 4, 30);
    double alpha = 1.5, beta = 1.2;
    double (*A)[nk] = malloc(sizeof(double[ni][nk]));
    double (*B)[nj] = malloc(sizeof(double[nk][nj]));
    double (*C)[nj] = malloc(sizeof(double[ni][nj]));

    rng_seed(seed);
    init_array_2d(&A[0][0], ni, nk);
    init_array_2d(&B[0][0], nk, nj);
    init_array_2d(&C[0][0], ni, nj);

    kernel_gemm(ni, nj, nk, alpha, beta, C, A, B);

    print_array_2d("C", &C[0][0], ni, nj);
    free(A);
    free(B);
    free(C);
    return 0;
}
