// RUN: -- 1 1 1
// RUN: -- 2 9 2
// RUN: -- 3 31 -4
// covers: break at the top level of a loop body under affine conditions (as pet models it: the
//         statements before the break run up to the iteration that takes it, the ones after it only
//         before), two breaks in one body, a break in a decrementing loop, a break whose iteration
//         depends on a parameter that may make it the first
// breaks: banded row sums cut off at a distance from the diagonal
#include "kernels.h"

static void kernel_breaks(int n, int m, double A[n][n], double x[n], double y[n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        x[i] = 0.0;
        for (int j = 0; j < n; j++) {
            x[i] += A[i][j];
            if (j >= i + m)
                break;
            A[i][j] *= 0.5;
            if (2 * j > n + i) {
                break;
            }
            x[i] -= 0.125 * j;
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        if (i < n / 2)
            break;
        y[i] = x[i] + x[n - 1 - i];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_int(argc, argv, 3, 2);
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(y, n);

    kernel_breaks(n, m, A, x, y);

    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("x", x, n);
    print_array_1d("y", y, n);
    free(A);
    free(x);
    free(y);
    return 0;
}
