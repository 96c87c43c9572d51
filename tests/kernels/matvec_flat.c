// RUN: -- 1 1 1
// RUN: -- 2 13 29
// RUN: -- 3 60 57
// covers: flat-pointer-linearised-subscripts (A[i*m + j]), scalar-written-
//         in-region (total, asum: reductions printed afterwards), fabs-call,
//         imperfect-nest, sequence-of-nests, several-statements-per-body
// matvec_flat: y = A x on a flat row-major matrix, plus sum reductions
#include "kernels.h"

static double kernel_matvec(int n, int m, double *A, double *x, double *y,
                            double *out_asum)
{
    int i, j;
    double total = 0.0;
    double asum = 0.0;

#pragma scop
    for (i = 0; i < n; i++) {
        y[i] = 0.0;
        for (j = 0; j < m; j++)
            y[i] += A[i * m + j] * x[j];
    }
    for (i = 0; i < n; i++) {
        total += y[i];
        asum += fabs(y[i] - 0.25 * (double)m);
    }
#pragma endscop

    *out_asum = asum;
    return total;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 40);
    int m = arg_size(argc, argv, 3, 30);
    double *A = alloc_doubles(n * m);
    double *x = alloc_doubles(m);
    double *y = alloc_doubles(n);
    double total, asum;

    rng_seed(seed);
    init_array_2d(A, n, m);
    init_array_1d(x, m);

    total = kernel_matvec(n, m, A, x, y, &asum);

    print_array_1d("y", y, n);
    print_scalar("total", total);
    print_scalar("asum", asum);
    free(A);
    free(x);
    free(y);
    return 0;
}
