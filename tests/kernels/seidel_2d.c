// RUN: -- 1 1 1
// RUN: -- 2 17 3
// RUN: -- 3 56 6
// covers: vla-params, in-place 9-point stencil (loop-carried dependences in
//         every dimension), time-loop, integer-params-in-bounds (n - 2)
// seidel_2d: Gauss-Seidel sweeps
#include "kernels.h"

static void kernel_seidel_2d(int tsteps, int n, double A[n][n])
{
    int t, i, j;

#pragma scop
    for (t = 0; t <= tsteps - 1; t++)
        for (i = 1; i <= n - 2; i++)
            for (j = 1; j <= n - 2; j++)
                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                           + A[i][j - 1] + A[i][j] + A[i][j + 1]
                           + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int tsteps = arg_size(argc, argv, 3, 4);
    double A[n][n];

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);

    kernel_seidel_2d(tsteps, n, A);

    print_array_2d("A", &A[0][0], n, n);
    return 0;
}
