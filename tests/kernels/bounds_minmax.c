// RUN: -- 1 1 1
// RUN: -- 6 19 13
// RUN: -- 9 60 47
// covers: min-max-macro-bounds (MAX(0, i - 2), MIN(m, i + 3)),
//         ternary-bounds (j < (i < m ? i : m), j = (i > 2 ? i - 2 : 0)),
//         integer-division-in-bounds (n / 2, (n + 1) / 3, (m + 2) / 4),
//         modulo-in-bounds (n - n % 3, j = m % 4),
//         comparisons (< <= > >=), decrementing-loops, iterator-values-in-
//         computations ((double)(i * j % 7) / n), vla-params, triangular
// bounds_minmax: assorted loop-bound shapes over an n x m grid
#include "kernels.h"

static void kernel_bounds(int n, int m, double A[n][m], double B[n][m],
                          double x[n], double y[m])
{
    int i, j;

#pragma scop
    /* band around the diagonal, clipped with MIN/MAX macros */
    for (i = 0; i < n; i++)
        for (j = MAX(0, i - 2); j < MIN(m, i + 3); j++)
            A[i][j] += (double)(i * j % 7) / n;

    /* triangular, upper bound given by a written-out ternary */
    for (i = 0; i < n; i++)
        for (j = 0; j < (i < m ? i : m); j++)
            B[i][j] = A[i][j] * 0.5 + B[i][j];

    /* lower bound given by a written-out ternary, <= upper bound */
    for (i = 0; i <= n - 1; i++)
        for (j = (i > 2 ? i - 2 : 0); j <= MIN(m - 1, i); j++)
            B[i][j] -= 0.25 * A[i][j];

    /* integer division by constants */
    for (i = 0; i < n / 2; i++)
        x[i] = A[i][0] + A[n - 1 - i][0];
    for (i = (n + 1) / 3; i <= n - 1; i++)
        x[i] = x[i] * 2.0 + (double)(i % 5);

    /* > and >= as loop conditions */
    for (i = n - 1; i > n / 2; i--)
        x[i] = x[i] - x[i - 1] * 0.5;
    for (j = m - 1; j >= (m + 2) / 4; j--)
        y[j] = B[(n - 1) / 2][j] + 1.0;
    for (j = 0; j < (m + 2) / 4; j++)
        y[j] = (double)(j * 3 % 4);

    /* modulo by a constant in a bound */
    for (i = 0; i < n - n % 3; i++)
        for (j = m % 4; j < m; j++)
            A[i][j] = A[i][j] * 0.5 + B[i][j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    double A[n][m];
    double B[n][m];
    double x[n], y[m];

    rng_seed(seed);
    init_array_2d(&A[0][0], n, m);
    init_array_2d(&B[0][0], n, m);
    init_array_1d(x, n);
    init_array_1d(y, m);

    kernel_bounds(n, m, A, B, x, y);

    print_array_2d("A", &A[0][0], n, m);
    print_array_2d("B", &B[0][0], n, m);
    print_array_1d("x", x, n);
    print_array_1d("y", y, m);
    return 0;
}
