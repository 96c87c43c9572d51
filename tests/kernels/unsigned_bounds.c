// RUN: -- 1 0 2
// RUN: -- 5 4 1
// RUN: -- 2 1 3
// RUN: -- 3 37 5
// RUN: -- 4 300 64
// covers: parameters of unsigned types in loop bounds, extents and subscripts on every target: size_t
//         extents of a two-dimensional array (linearised on the GPU), unsigned bounds that may be 0
//         (i + 1 < n, j < m), a loop counting down to 1 on a size_t iterator, a triangular loop under an
//         unsigned bound; isl's expressions read the parameters converted to the signed iterator type
//         (n - 1 is -1 when n is 0), the statements as C has them (the GPU targets once left such
//         regions as written)
// unsigned_bounds: a running difference, a column sum and a triangular accumulation over size_t sizes
#include "kernels.h"
#include <stddef.h>

static void kernel_unsigned_bounds(size_t n, unsigned m, double A[n][m], double d[n], double s[m],
                                   double t[n])
{
#pragma scop
    for (size_t i = 0; i + 1 < n; i++)
        d[i] = A[i + 1][0 % (m + 1u)] - A[i][0] * (double)(m - 1u);
    for (unsigned j = 0; j < m; j++)
        for (size_t i = 0; i < n; i++)
            s[j] += A[i][j] * 0.5;
    for (size_t i = n; i > 0; i--)
        for (size_t k = 0; k < i && k < m; k++)
            t[i - 1] += A[i - 1][k] + (double)(n - i);
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_int(argc, argv, 2, 30);
    int m = arg_int(argc, argv, 3, 7);
    size_t rows = (size_t)n, cols = (size_t)m;
    double *A = alloc_doubles((int)(rows * cols) + 1);
    double *d = alloc_doubles(n + 1), *s = alloc_doubles((int)cols), *t = alloc_doubles(n + 1);

    rng_seed(seed);
    init_array_1d(A, (int)(rows * cols));
    init_array_1d(s, (int)cols);
    init_array_1d(t, n + 1);
    kernel_unsigned_bounds(rows, (unsigned)m, (double (*)[m])A, d, s, t);
    print_array_1d("d", d, n);
    print_array_1d("s", s, (int)cols);
    print_array_1d("t", t, n);
    free(A);
    free(d);
    free(s);
    free(t);
    return 0;
}
