// RUN: -DM=1 -DN=1 -- 1
// RUN: -DM=13 -DN=7 -- 5
// RUN: -DM=52 -DN=60 -- 11
// RUN: -DM=70 -DN=130 -- 3
// covers: fixed-size-global-arrays, macro-params-in-bounds,
//         local-in-loop-body-used-by-inner-loop, loop-var-declared-in-for,
//         sequence-of-nests, imperfect-nest
// atax: y = A^T (A x)
#include "kernels.h"

#ifndef M
#define M 38
#endif
#ifndef N
#define N 42
#endif

static double A[M][N];
static double x[N];
static double y[N];
static double tmp[M];

static void kernel_atax(void)
{
#pragma scop
    for (int i = 0; i < N; i++)
        y[i] = 0.0;
    for (int i = 0; i < M; i++) {
        double s = 0.0;
        for (int j = 0; j < N; j++)
            s = s + A[i][j] * x[j];
        tmp[i] = s;
        for (int j = 0; j < N; j++)
            y[j] = y[j] + A[i][j] * s;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int i;

    rng_seed(seed);
    init_array_2d(&A[0][0], M, N);
    for (i = 0; i < N; i++)
        x[i] = 1.0 + (double)i / N;

    kernel_atax();

    print_array_1d("tmp", tmp, M);
    print_array_1d("y", y, N);
    return 0;
}
