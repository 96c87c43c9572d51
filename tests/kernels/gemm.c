// RUN: -- 1 1 1 1
// RUN: -- 7 13 19 7
// RUN: -- 42 48 52 56
// covers: vla-params, imperfect-nest, read-only-scalars (alpha, beta),
//         compound-assign (*= +=), loop-vars-declared-at-top
// gemm: C = alpha * A * B + beta * C
#include "kernels.h"

static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                        double C[ni][nj], double A[ni][nk], double B[nk][nj])
{
    int i, j, k;

#pragma scop
    for (i = 0; i < ni; i++) {
        for (j = 0; j < nj; j++)
            C[i][j] *= beta;
        for (k = 0; k < nk; k++) {
            for (j = 0; j < nj; j++)
                C[i][j] += alpha * A[i][k] * B[k][j];
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int ni = arg_size(argc, argv, 2, 20);
    int nj = arg_size(argc, argv, 3, 25);
    int nk = arg_size(argc, argv, 4, 30);
    double alpha = 1.5, beta = 1.2;
    double (*A)[nk] = malloc(sizeof(double[ni][nk]));
    double (*B)[nj] = malloc(sizeof(double[nk][nj]));
    double (*C)[nj] = malloc(sizeof(double[ni][nj]));

    rng_seed(seed);
    init_array_2d(&A[0][0], ni, nk);
    init_array_2d(&B[0][0], nk, nj);
    init_array_2d(&C[0][0], ni, nj);

    kernel_gemm(ni, nj, nk, alpha, beta, C, A, B);

    print_array_2d("C", &C[0][0], ni, nj);
    free(A);
    free(B);
    free(C);
    return 0;
}
