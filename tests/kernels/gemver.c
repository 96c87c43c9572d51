// RUN: -- 1 1
// RUN: -- 2 17
// RUN: -- 3 57
// covers: vla-params, sequence-of-nests (4 nests), read-only-scalars,
//         several-statements-per-expression, compound-assign (+=)
// gemver: A = A + u1 v1^T + u2 v2^T; x = x + beta A^T y + z; w = w + alpha A x
#include "kernels.h"

static void kernel_gemver(int n, double alpha, double beta, double A[n][n],
                          double u1[n], double v1[n], double u2[n], double v2[n],
                          double w[n], double x[n], double y[n], double z[n])
{
    int i, j;

#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            x[i] = x[i] + beta * A[j][i] * y[j];

    for (i = 0; i < n; i++)
        x[i] += z[i];

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double alpha = 1.5, beta = 1.2;
    double A[n][n];
    double u1[n], v1[n], u2[n], v2[n], w[n], x[n], y[n], z[n];

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(u1, n);
    init_array_1d(v1, n);
    init_array_1d(u2, n);
    init_array_1d(v2, n);
    init_array_1d(y, n);
    init_array_1d(z, n);
    fill_array(w, n, 0.0);
    fill_array(x, n, 0.0);

    kernel_gemver(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);

    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("x", x, n);
    print_array_1d("w", w, n);
    return 0;
}
