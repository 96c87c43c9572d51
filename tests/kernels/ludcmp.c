// RUN: -- 1 1
// RUN: -- 4 19
// RUN: -- 7 50
// covers: scalar-written-in-region (w, declared at function top, printed),
//         decrementing-loop (i = n - 1; i >= 0; i--), triangular-loops,
//         vla-params, sequence-of-nests, imperfect-nest
// ludcmp: LU decomposition followed by forward and backward substitution
#include "kernels.h"

static double kernel_ludcmp(int n, double A[n][n], double b[n], double x[n],
                          double y[n])
{
    int i, j, k;
    double w;

#pragma scop
    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) {
            w = A[i][j];
            for (k = 0; k < j; k++)
                w -= A[i][k] * A[k][j];
            A[i][j] = w / A[j][j];
        }
        for (j = i; j < n; j++) {
            w = A[i][j];
            for (k = 0; k < i; k++)
                w -= A[i][k] * A[k][j];
            A[i][j] = w;
        }
    }

    for (i = 0; i < n; i++) {
        w = b[i];
        for (j = 0; j < i; j++)
            w -= A[i][j] * y[j];
        y[i] = w;
    }

    for (i = n - 1; i >= 0; i--) {
        w = y[i];
        for (j = i + 1; j < n; j++)
            w -= A[i][j] * x[j];
        x[i] = w / A[i][i];
    }
#pragma endscop

    return w;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double A[n][n];
    double b[n], x[n], y[n];
    double w;

    rng_seed(seed);
    init_diag_dominant(&A[0][0], n, (double)n);
    init_array_1d(b, n);
    fill_array(x, n, 0.0);
    fill_array(y, n, 0.0);

    w = kernel_ludcmp(n, A, b, x, y);

    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("y", y, n);
    print_array_1d("x", x, n);
    print_scalar("w", w);
    return 0;
}
