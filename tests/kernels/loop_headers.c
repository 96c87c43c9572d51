// RUN: -- 1 1
// RUN: -- 2 7
// RUN: -- 3 30
// covers: for loops whose increment is the last statement of their body (an iterator declared before
//         the region and one declared in the header), and parameters that are pointers to arrays
//         (double (*A)[M], subscripted as double A[][M] is), read and written
// loop_headers: a transpose-and-scale of a tall matrix held as rows of M elements
#include "kernels.h"

#define M 12

static void kernel_headers(int n, double (*A)[M], double (*B)[M], double x[n])
{
    int i;
#pragma scop
    for (i = 0; i < n;) {
        for (int j = 0; j < M;) {
            B[i][j] = A[i][M - 1 - j] * 0.5;
            j++;
        }
        i++;
    }
    for (int k = 1; k < n;) {
        x[k] = B[k][0] + B[k - 1][M - 1];
        k += 2;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 20);
    double (*A)[M] = (double (*)[M])alloc_doubles(n * M);
    double (*B)[M] = (double (*)[M])alloc_doubles(n * M);
    double *x = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, M);
    init_array_1d(x, n);

    kernel_headers(n, A, B, x);

    print_array_2d("B", &B[0][0], n, M);
    print_array_1d("x", x, n);
    free(A);
    free(B);
    free(x);
    return 0;
}
