// RUN: -- 1 1 1
// RUN: -- 2 13 4
// RUN: -- 3 24 6
// covers: 3d-arrays, flat-pointer-linearised-subscripts ((i*n + j)*n + k),
//         time-loop, 7-point stencil, sequence-of-nests inside a loop
// heat_3d: explicit heat equation on an n x n x n grid
#include "kernels.h"

static void kernel_heat_3d(int tsteps, int n, double *A, double *B)
{
    int t, i, j, k;

#pragma scop
    for (t = 1; t <= tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                for (k = 1; k < n - 1; k++)
                    B[(i * n + j) * n + k] =
                        0.125 * (A[((i + 1) * n + j) * n + k] - 2.0 * A[(i * n + j) * n + k]
                                 + A[((i - 1) * n + j) * n + k])
                        + 0.125 * (A[(i * n + j + 1) * n + k] - 2.0 * A[(i * n + j) * n + k]
                                   + A[(i * n + j - 1) * n + k])
                        + 0.125 * (A[(i * n + j) * n + k + 1] - 2.0 * A[(i * n + j) * n + k]
                                   + A[(i * n + j) * n + k - 1])
                        + A[(i * n + j) * n + k];
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                for (k = 1; k < n - 1; k++)
                    A[(i * n + j) * n + k] =
                        0.125 * (B[((i + 1) * n + j) * n + k] - 2.0 * B[(i * n + j) * n + k]
                                 + B[((i - 1) * n + j) * n + k])
                        + 0.125 * (B[(i * n + j + 1) * n + k] - 2.0 * B[(i * n + j) * n + k]
                                   + B[(i * n + j - 1) * n + k])
                        + 0.125 * (B[(i * n + j) * n + k + 1] - 2.0 * B[(i * n + j) * n + k]
                                   + B[(i * n + j) * n + k - 1])
                        + B[(i * n + j) * n + k];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 20);
    int tsteps = arg_size(argc, argv, 3, 5);
    double *A = alloc_doubles(n * n * n);
    double *B = alloc_doubles(n * n * n);
    int i;

    rng_seed(seed);
    init_array_3d(A, n, n, n);
    for (i = 0; i < n * n * n; i++)
        B[i] = A[i];

    kernel_heat_3d(tsteps, n, A, B);

    print_array_3d("A", A, n, n, n);
    print_array_3d("B", B, n, n, n);
    free(A);
    free(B);
    return 0;
}
