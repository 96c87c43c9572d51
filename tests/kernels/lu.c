// RUN: -- 1 1
// RUN: -- 5 13
// RUN: -- 12 56
// covers: triangular-loops (j < i, j >= i), vla-params, imperfect-nest,
//         compound-assign (-= /=), sequence-of-nests inside a loop
// lu: in-place LU decomposition without pivoting (diagonally dominant input)
#include "kernels.h"

static void kernel_lu(int n, double A[n][n])
{
    int i, j, k;

#pragma scop
    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) {
            for (k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];
            A[i][j] /= A[j][j];
        }
        for (j = i; j < n; j++) {
            for (k = 0; k < i; k++)
                A[i][j] -= A[i][k] * A[k][j];
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double A[n][n];

    rng_seed(seed);
    init_diag_dominant(&A[0][0], n, (double)n);

    kernel_lu(n, A);

    print_array_2d("A", &A[0][0], n, n);
    return 0;
}
