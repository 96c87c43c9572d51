// RUN: -DN=1 -- 1
// RUN: -DN=23 -- 9
// RUN: -DN=58 -- 2
// covers: sqrt-call, fixed-size-global-arrays, triangular-loops (k < j, j < i),
//         imperfect-nest, compound-assign (-= /=)
// cholesky: in-place Cholesky factorisation of an SPD matrix (lower triangle)
#include "kernels.h"

#ifndef N
#define N 40
#endif

static double A[N][N];
static double B[N][N];

static void kernel_cholesky(void)
{
    int i, j, k;

#pragma scop
    for (i = 0; i < N; i++) {
        for (j = 0; j < i; j++) {
            for (k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
        for (k = 0; k < i; k++)
            A[i][i] -= A[i][k] * A[i][k];
        A[i][i] = sqrt(A[i][i]);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int i, j, k;

    rng_seed(seed);
    /* A = B B^T / N + I: symmetric positive definite */
    init_array_2d(&B[0][0], N, N);
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            double s = 0.0;
            for (k = 0; k < N; k++)
                s += B[i][k] * B[j][k];
            A[i][j] = s / N + (i == j ? 1.0 : 0.0);
        }

    kernel_cholesky();

    print_array_2d("A", &A[0][0], N, N);
    return 0;
}
