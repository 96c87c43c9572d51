// RUN: -- 1 1 1
// RUN: -- 31 19 13
// RUN: -- 17 52 44
// covers: triangular-loops (j <= i), flat-pointer-linearised-subscripts,
//         imperfect-nest, compound-assign (*= +=), read-only-scalars
// syr2k: C = alpha A B^T + alpha B A^T + beta C   (lower triangle only)
#include "kernels.h"

static void kernel_syr2k(int n, int m, double alpha, double beta,
                         double *C, double *A, double *B)
{
    int i, j, k;

#pragma scop
    for (i = 0; i < n; i++) {
        for (j = 0; j <= i; j++)
            C[i * n + j] *= beta;
        for (k = 0; k < m; k++)
            for (j = 0; j <= i; j++)
                C[i * n + j] += A[j * m + k] * alpha * B[i * m + k]
                              + B[j * m + k] * alpha * A[i * m + k];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    double *C = alloc_doubles(n * n);
    double *A = alloc_doubles(n * m);
    double *B = alloc_doubles(n * m);

    rng_seed(seed);
    init_array_2d(C, n, n);
    init_array_2d(A, n, m);
    init_array_2d(B, n, m);

    kernel_syr2k(n, m, 1.5, 1.2, C, A, B);

    print_array_2d("C", C, n, n);
    free(C);
    free(A);
    free(B);
    return 0;
}
