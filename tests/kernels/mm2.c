// RUN: -- 1 1 1 1 1
// RUN: -- 5 7 13 11 19
// RUN: -- 9 40 44 48 52
// covers: two-regions-in-one-function, vla-params (stack VLAs in main),
//         sequence-of-nests, imperfect-nest, read-only-scalars, compound-assign
// 2mm: tmp = alpha * A * B;  D = beta * D + tmp * C
#include "kernels.h"

static void kernel_2mm(int ni, int nj, int nk, int nl, double alpha, double beta,
                       double tmp[ni][nj], double A[ni][nk], double B[nk][nj],
                       double C[nj][nl], double D[ni][nl])
{
    int i, j, k;

#pragma scop
    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++) {
            tmp[i][j] = 0.0;
            for (k = 0; k < nk; ++k)
                tmp[i][j] += alpha * A[i][k] * B[k][j];
        }
#pragma endscop

#pragma scop
    for (i = 0; i < ni; i++)
        for (j = 0; j < nl; j++) {
            D[i][j] *= beta;
            for (k = 0; k < nj; ++k)
                D[i][j] += tmp[i][k] * C[k][j];
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int ni = arg_size(argc, argv, 2, 16);
    int nj = arg_size(argc, argv, 3, 18);
    int nk = arg_size(argc, argv, 4, 22);
    int nl = arg_size(argc, argv, 5, 24);
    double alpha = 1.5, beta = 1.2;
    double tmp[ni][nj];
    double A[ni][nk];
    double B[nk][nj];
    double C[nj][nl];
    double D[ni][nl];

    rng_seed(seed);
    init_array_2d(&A[0][0], ni, nk);
    init_array_2d(&B[0][0], nk, nj);
    init_array_2d(&C[0][0], nj, nl);
    init_array_2d(&D[0][0], ni, nl);
    fill_array(&tmp[0][0], ni * nj, 0.0);

    kernel_2mm(ni, nj, nk, nl, alpha, beta, tmp, A, B, C, D);

    print_array_2d("tmp", &tmp[0][0], ni, nj);
    print_array_2d("D", &D[0][0], ni, nl);
    return 0;
}
