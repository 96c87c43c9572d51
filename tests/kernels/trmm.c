// RUN: -- 1 1 1
// RUN: -- 8 13 19
// RUN: -- 21 50 44
// covers: triangular-loops (k = i + 1 .. m), vla-params, imperfect-nest,
//         compound-assign (+=), read-only-scalars
// trmm: B = alpha * A^T * B, A unit lower triangular (only A[k][i], k > i, read)
#include "kernels.h"

static void kernel_trmm(int m, int n, double alpha, double A[m][m], double B[m][n])
{
    int i, j, k;

#pragma scop
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            for (k = i + 1; k < m; k++)
                B[i][j] += A[k][i] * B[k][j];
            B[i][j] = alpha * B[i][j];
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int m = arg_size(argc, argv, 2, 20);
    int n = arg_size(argc, argv, 3, 30);
    double A[m][m];
    double B[m][n];

    rng_seed(seed);
    init_array_2d(&A[0][0], m, m);
    init_array_2d(&B[0][0], m, n);

    kernel_trmm(m, n, 0.5, A, B);

    print_array_2d("B", &B[0][0], m, n);
    return 0;
}
