// RUN: -DN=1 -- 1
// RUN: -DN=9 -- 2
// RUN: -DN=700 -- 3
// covers: integer-reduction, product-reduction, min-reduction, max-reduction, unsigned-reduction, long-reduction
// Integer reductions (exact in any order): sum, product, minimum and maximum written as C writes them,
// an unsigned sum that wraps around and a long sum.  Floating-point minimum and maximum too (fmin, fmax).
#include <math.h>
#include "kernels.h"

#ifndef N
#define N 100
#endif

static int v[N];
static int small[N];
static double d[N];
static int sum, product, lowest, highest, lowest2, highest2;
static unsigned int wrapped;
static long wide;
static double dmin, dmax;

static void kernel_int(void)
{
#pragma scop
    for (int i = 0; i < N; i++)
        sum += v[i] * 3 - i;
    for (int i = 0; i < N; i++)
        product *= small[i];
    for (int i = 0; i < N; i++)
        lowest = lowest < v[i] ? lowest : v[i];
    for (int i = 0; i < N; i++)
        highest = v[i] > highest ? v[i] : highest;
    for (int i = 0; i < N; i++)
        lowest2 = v[i] - i < lowest2 ? v[i] - i : lowest2;
    for (int i = 0; i < N; i++)
        highest2 = highest2 >= v[i] + i ? highest2 : v[i] + i;
    for (int i = 0; i < N; i++)
        wrapped += (unsigned int)v[i] * 2654435761u;
    for (int i = 0; i < N; i++)
        wide += (long)v[i] * 100000;
    for (int i = 0; i < N; i++)
        dmin = fmin(dmin, d[i]);
    for (int i = 0; i < N; i++)
        dmax = fmax(d[i] - 0.5, dmax);
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_int_array(v, N, -1000, 1000);
    init_int_array(small, N, -2, 2);
    for (int i = 0; i < N; i++)
        if (small[i] == 0)
            small[i] = 1;
    init_array_1d(d, N);
    sum = 5;
    product = -1;
    lowest = 500;
    highest = -500;
    lowest2 = 0;
    highest2 = 0;
    wrapped = 12345u;
    wide = -3;
    dmin = 0.75;
    dmax = 0.0;
    kernel_int();
    printf("sum %d product %d lowest %d highest %d lowest2 %d highest2 %d wrapped %u wide %ld\n", sum, product,
           lowest, highest, lowest2, highest2, wrapped, wide);
    print_scalar("dmin", dmin);
    print_scalar("dmax", dmax);
    return 0;
}
// CHECK-DEFINES: -DN=700
// CHECK-OPENCL: #define polypragma_atomic_max_int(p, v) atomic_max((volatile __global int *)(p), (v))
// CHECK-OPENCL: #define polypragma_atomic_mul_int(p, v) do {
// CHECK-OPENCL: polypragma_reduction0 = polypragma_reduction0 * (small[
