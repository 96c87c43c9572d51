// RUN: -- 1 1 0
// RUN: -- 2 29 3
// RUN: -- 3 300 7
// covers: banded-loops with MIN/MAX-macro-bounds (MAX(0, i - bw) ..
//         MIN(n - 1, i + bw)), flat-pointer-linearised-subscripts with a
//         parametric row length (Ab[i * (2 * bw + 1) + j - i + bw]),
//         local-in-loop-body-used-by-inner-loop, <= bounds, imperfect-nest
// banded: y = A x with A stored in LAPACK-like band format, then a
//         band-limited smoothing pass
#include "kernels.h"

static void kernel_banded(int n, int bw, double *Ab, double *x, double *y,
                          double *z)
{
    int i, j;

#pragma scop
    for (i = 0; i < n; i++) {
        double s = 0.0;
        for (j = MAX(0, i - bw); j <= MIN(n - 1, i + bw); j++)
            s += Ab[i * (2 * bw + 1) + j - i + bw] * x[j];
        y[i] = s;
    }
    for (i = 0; i < n; i++) {
        z[i] = 0.0;
        for (j = MAX(0, i - bw); j <= MIN(n - 1, i + bw); j++)
            z[i] += y[j] / (2 * bw + 1);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 100);
    int bw = arg_int(argc, argv, 3, 3);
    double *Ab, *x, *y, *z;

    if (bw < 0)
        bw = 0;
    if (bw > 64)
        bw = 64;
    Ab = alloc_doubles(n * (2 * bw + 1));
    x = alloc_doubles(n);
    y = alloc_doubles(n);
    z = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(Ab, n, 2 * bw + 1);
    init_array_1d(x, n);

    kernel_banded(n, bw, Ab, x, y, z);

    print_array_1d("y", y, n);
    print_array_1d("z", z, n);
    free(Ab);
    free(x);
    free(y);
    free(z);
    return 0;
}
