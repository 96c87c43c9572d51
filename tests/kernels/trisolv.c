// RUN: -DN=1 -- 1
// RUN: -DN=17 -- 3
// RUN: -DN=60 -- 8
// covers: fixed-size-global-arrays, triangular-loops, decrementing-loop
//         (i = N - 1; i >= 0; i--), imperfect-nest, compound-assign (-= /=),
//         sequence-of-nests
// trisolv: forward substitution L y = b, then backward substitution U x = y
#include "kernels.h"

#ifndef N
#define N 40
#endif

static double L[N][N];
static double U[N][N];
static double b[N];
static double y[N];
static double x[N];

static void kernel_trisolv(void)
{
    int i, j;

#pragma scop
    for (i = 0; i < N; i++) {
        y[i] = b[i];
        for (j = 0; j < i; j++)
            y[i] -= L[i][j] * y[j];
        y[i] = y[i] / L[i][i];
    }
    for (i = N - 1; i >= 0; i--) {
        x[i] = y[i];
        for (j = i + 1; j < N; j++)
            x[i] -= U[i][j] * x[j];
        x[i] /= U[i][i];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int i, j;

    rng_seed(seed);
    for (i = 0; i < N; i++) {
        for (j = 0; j < N; j++) {
            L[i][j] = rng_double() / N;
            U[i][j] = rng_double() / N;
        }
        L[i][i] += 1.0;
        U[i][i] += 1.0;
        b[i] = rng_double();
    }

    kernel_trisolv();

    print_array_1d("y", y, N);
    print_array_1d("x", x, N);
    return 0;
}
