// RUN: -DN=1 -- 1
// RUN: -DN=19 -- 23
// RUN: -DN=60 -- 5
// RUN: -DN=100 -- 7
// covers: fixed-size-global-arrays, local-in-loop-body-without-loops,
//         several-statements-per-body, imperfect-nest, read-only-scalars
// gesummv: y = alpha A x + beta B x
#include "kernels.h"

#ifndef N
#define N 40
#endif

static double A[N][N];
static double B[N][N];
static double tmp[N];
static double x[N];
static double y[N];

static void kernel_gesummv(double alpha, double beta)
{
    int i, j;

#pragma scop
    for (i = 0; i < N; i++) {
        tmp[i] = 0.0;
        y[i] = 0.0;
        for (j = 0; j < N; j++) {
            tmp[i] = A[i][j] * x[j] + tmp[i];
            y[i] = B[i][j] * x[j] + y[i];
        }
        {
            double a = alpha * tmp[i];
            double b = beta * y[i];
            y[i] = a + b;
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_array_2d(&A[0][0], N, N);
    init_array_2d(&B[0][0], N, N);
    init_array_1d(x, N);

    kernel_gesummv(1.5, 1.2);

    print_array_1d("tmp", tmp, N);
    print_array_1d("y", y, N);
    return 0;
}
