// RUN: -- 1 1
// RUN: -- 6 19
// RUN: -- 10 60
// covers: vla-params, pre-increment (++i ++j), decrementing-loop (i--),
//         sequence-of-nests, transposed-access
// mvt: x1 += A y1;  x2 += A^T y2
#include "kernels.h"

static void kernel_mvt(int n, double x1[n], double x2[n], double y1[n],
                       double y2[n], double A[n][n])
{
    int i, j;

#pragma scop
    for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j)
            x1[i] = x1[i] + A[i][j] * y1[j];
    for (i = n - 1; i >= 0; i--)
        for (j = 0; j < n; ++j)
            x2[i] = x2[i] + A[j][i] * y2[j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double A[n][n];
    double x1[n], x2[n], y1[n], y2[n];

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(x1, n);
    init_array_1d(x2, n);
    init_array_1d(y1, n);
    init_array_1d(y2, n);

    kernel_mvt(n, x1, x2, y1, y2, A);

    print_array_1d("x1", x1, n);
    print_array_1d("x2", x2, n);
    return 0;
}
