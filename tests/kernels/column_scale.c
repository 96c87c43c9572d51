// RUN: -- 1 1 1
// RUN: -- 2 37 45
// RUN: -- 3 70 33
// The loop along whose iterations the accesses are coalesced is the outer one of the band: the cost
// model (polypragma/gpu/cost.py) maps it to threads.x, so a warp's 32 threads read 32 consecutive
// elements of a row (t1, on x, indexes the column) instead of 32 rows.
// CHECK-CUDA: const int t1 = (int)threadIdx.x;
// CHECK-CUDA: B[{{.*}} * m + (32 * b1 + t1)] = 2.0 * A[{{.*}} * m + (32 * b1 + t1)] + shared_C[t1];
// covers: coalesced-loop-outside (the outer band member on threads.x), vla-params
// column_scale: B = 2 A + C broadcast along rows, with the row loop inside the column loop
#include "kernels.h"

static void kernel_column_scale(int n, int m, double A[n][m], double B[n][m], double C[m])
{
#pragma scop
    for (int j = 0; j < m; j++)
        for (int i = 0; i < n; i++)
            B[i][j] = 2.0 * A[i][j] + C[j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    double (*A)[m] = malloc(sizeof(double[n][m]));
    double (*B)[m] = malloc(sizeof(double[n][m]));
    double *C = alloc_doubles(m);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, m);
    init_array_1d(C, m);
    fill_array(&B[0][0], n * m, 0.0);

    kernel_column_scale(n, m, A, B, C);

    print_array_2d("B", &B[0][0], n, m);
    free(A);
    free(B);
    free(C);
    return 0;
}
