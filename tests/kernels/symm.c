// RUN: -- 1 1 1
// RUN: -- 14 11 17
// RUN: -- 3 48 40
// covers: local-in-loop-body-used-by-inner-loop (temp2), triangular-loops
//         (k < i), vla-params, imperfect-nest, read-only-scalars
// symm: C = alpha A B + beta C with A symmetric (lower triangle stored)
#include "kernels.h"

static void kernel_symm(int m, int n, double alpha, double beta,
                        double C[m][n], double A[m][m], double B[m][n])
{
    int i, j, k;

#pragma scop
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            double temp2 = 0.0;
            for (k = 0; k < i; k++) {
                C[k][j] += alpha * B[i][j] * A[i][k];
                temp2 += B[k][j] * A[i][k];
            }
            C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int m = arg_size(argc, argv, 2, 20);
    int n = arg_size(argc, argv, 3, 30);
    double C[m][n];
    double A[m][m];
    double B[m][n];

    rng_seed(seed);
    init_array_2d(&C[0][0], m, n);
    init_array_2d(&A[0][0], m, m);
    init_array_2d(&B[0][0], m, n);

    kernel_symm(m, n, 1.5, 1.2, C, A, B);

    print_array_2d("C", &C[0][0], m, n);
    return 0;
}
