// RUN: -- 1 1
// RUN: -- 2 9
// RUN: -- 3 40
// covers: pointers whose extent is the largest element the region reaches, here a minimum and a
//         maximum of a parameter and a constant (i < n && i < 16, j <= max(m, 3)): the host code once
//         sized the buffer with 'min(16, n)', which C does not define, so the OpenCL target did not link
// min_extent: a capped prefix update of two flat vectors
#include "kernels.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))

static void kernel_min_extent(int n, int m, double *x, double *y)
{
#pragma scop
    for (int i = 0; i < n && i < 16; i++)
        x[i] = 2.0 * x[i] + 1.0;
    for (int j = 0; j <= MAX(m, 3); j++)
        y[j] = y[j] * 0.5 + j;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = n / 2;
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(MAX(m, 3) + 1);

    rng_seed(seed);
    init_array_1d(x, n);
    init_array_1d(y, MAX(m, 3) + 1);

    kernel_min_extent(n, m, x, y);

    print_array_1d("x", x, n);
    print_array_1d("y", y, MAX(m, 3) + 1);
    free(x);
    free(y);
    return 0;
}
