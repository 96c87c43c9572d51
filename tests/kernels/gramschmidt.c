// RUN: -- 1 1 1
// RUN: -- 6 17 11
// RUN: -- 13 60 48
// covers: scalar-reduction-written-in-region (double nrm), sqrt-call,
//         vla-params, triangular-loops (j = k + 1 .. n), imperfect-nest,
//         sequence-of-nests inside a loop, compound-assign (+= -=)
// gramschmidt: QR decomposition by modified Gram-Schmidt (A is m x n, m >= n)
#include "kernels.h"

static double kernel_gramschmidt(int m, int n, double A[m][n], double R[n][n],
                               double Q[m][n])
{
    int i, j, k;
    double nrm;

#pragma scop
    for (k = 0; k < n; k++) {
        nrm = 0.0;
        for (i = 0; i < m; i++)
            nrm += A[i][k] * A[i][k];
        R[k][k] = sqrt(nrm);
        for (i = 0; i < m; i++)
            Q[i][k] = A[i][k] / R[k][k];
        for (j = k + 1; j < n; j++) {
            R[k][j] = 0.0;
            for (i = 0; i < m; i++)
                R[k][j] += Q[i][k] * A[i][j];
            for (i = 0; i < m; i++)
                A[i][j] = A[i][j] - Q[i][k] * R[k][j];
        }
    }
#pragma endscop

    return nrm;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int m = arg_size(argc, argv, 2, 30);
    int n = arg_size(argc, argv, 3, 20);
    int i;

    if (m < n)
        m = n; /* keep the columns independent */
    {
        double A[m][n];
        double R[n][n];
        double Q[m][n];

        rng_seed(seed);
        init_array_2d(&A[0][0], m, n);
        for (i = 0; i < n; i++)
            A[i][i] += 2.0; /* well-conditioned columns */
        fill_array(&R[0][0], n * n, 0.0);
        fill_array(&Q[0][0], m * n, 0.0);

        double nrm = kernel_gramschmidt(m, n, A, R, Q);

        print_array_2d("A", &A[0][0], m, n);
        print_array_2d("R", &R[0][0], n, n);
        print_array_2d("Q", &Q[0][0], m, n);
        print_scalar("nrm", nrm);
    }
    return 0;
}
