// RUN: -- 1 1 1
// RUN: -- 4 13 7
// RUN: -- 8 60 53
// covers: local-in-loop-body-without-loops ({ double t = A[i][j] * 2.0; ... }),
//         data-dependent-if (if (A[i][j] > 0.5) ...) with else, vla-params,
//         transposed-access, sequence-of-nests
// transpose: B = f(A)^T, plus a thresholded copy C
#include "kernels.h"

static void kernel_transpose(int n, int m, double A[n][m], double B[m][n],
                             double C[n][m])
{
    int i, j;

#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            double t = A[i][j] * 2.0;
            B[j][i] = t + t * t;
        }
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            if (A[i][j] > 0.5)
                C[i][j] = A[i][j];
            else
                C[i][j] = -B[j][i];
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    double A[n][m];
    double B[m][n];
    double C[n][m];

    rng_seed(seed);
    init_array_2d(&A[0][0], n, m);

    kernel_transpose(n, m, A, B, C);

    print_array_2d("B", &B[0][0], m, n);
    print_array_2d("C", &C[0][0], n, m);
    return 0;
}
