// RUN: -- 1 1
// RUN: -- 2 11
// RUN: -- 3 48
// covers: calls to pure functions defined in the file (scalar parameters, locals, loops and branches
//         inside, calls to math functions and to each other, a typedef'd return type), in statements of
//         every target: the GPU targets emit them, with their callees, as device functions
// pure_calls: a smoothed, clamped transform of a grid
#include "kernels.h"
#include <math.h>

typedef double real;

static inline real square(real v)
{
    return v * v;
}

static real clamp(real v, real lo, real hi)
{
    if (v < lo)
        return lo;
    return v > hi ? hi : v;
}

static int digits(int v)
{
    int count = 1;
    for (int k = 0; k < 6; k++)
        if (v >= 10) {
            v /= 10;
            count++;
        }
    return count;
}

static real blend(real a, real b, int i)
{
    real w = 1.0 / (1.0 + square((real)(i % 7)));
    return clamp(w * a + (1.0 - w) * b, -2.0, 2.0) + sqrtf((float)digits(i)) * 0.125;
}

static void kernel_pure_calls(int n, real A[n][n], real B[n][n], real x[n])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 1; j < n; j++)
            B[i][j] = blend(A[i][j], A[i][j - 1], i * j);
    for (int i = 0; i < n; i++)
        x[i] = square(B[i][i]) + (real)digits(i * 37);
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    real (*A)[n] = (real (*)[n])alloc_doubles(n * n);
    real (*B)[n] = (real (*)[n])alloc_doubles(n * n);
    real *x = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);

    kernel_pure_calls(n, A, B, x);

    print_array_2d("B", &B[0][0], n, n);
    print_array_1d("x", x, n);
    free(A);
    free(B);
    free(x);
    return 0;
}
