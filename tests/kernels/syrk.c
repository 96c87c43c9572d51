// RUN: -- 1 1 1
// RUN: -- 12 13 7
// RUN: -- 99 56 48
// covers: triangular-loops (j <= i), vla-params, imperfect-nest,
//         compound-assign (*= +=), read-only-scalars
// syrk: C = alpha A A^T + beta C   (lower triangle only)
#include "kernels.h"

static void kernel_syrk(int n, int m, double alpha, double beta,
                        double C[n][n], double A[n][m])
{
    int i, j, k;

#pragma scop
    for (i = 0; i < n; i++) {
        for (j = 0; j <= i; j++)
            C[i][j] *= beta;
        for (k = 0; k < m; k++) {
            for (j = 0; j <= i; j++)
                C[i][j] += alpha * A[i][k] * A[j][k];
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    double C[n][n];
    double A[n][m];

    rng_seed(seed);
    init_array_2d(&C[0][0], n, n);
    init_array_2d(&A[0][0], n, m);

    kernel_syrk(n, m, 1.5, 1.2, C, A);

    print_array_2d("C", &C[0][0], n, n);
    return 0;
}
