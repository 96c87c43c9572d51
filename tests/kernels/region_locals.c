// RUN: -- 1 1 1
// RUN: -- 2 40 7
// RUN: -- 3 90 2
// covers: locals declared at the top level of a region, which code after the region reads: scalars
//         initialised from data (two declarators on one line), a variable-length array sized by
//         parameters, a declaration over two lines; the GPU targets declare them before the call and
//         copy them back (the original lines kept as the CPU fallback assign them instead of declaring
//         them again; they once left such regions as written); and a variable-length array declared in a
//         loop body without loops, privatised per thread on the GPU targets
// region_locals: the range of a signal, its smoothed copy and windowed sums, reported after the region
#include "kernels.h"

static double kernel_region_locals(int n, int m, double a[n], double b[n], double out[4])
{
#pragma scop
    double lo = a[0], hi = a[0];
    double smooth[n + 2];
    double total =
        0.0;
    for (int i = 1; i < n; i++) {
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    for (int i = 0; i < n + 2; i++)
        smooth[i] = i > 0 && i <= n ? a[i - 1] : 0.0;
    for (int i = 0; i < n; i++) {
        double w[m + 1];
        w[0] = smooth[i] + smooth[i + 1] + smooth[i + 2];
        w[m] = w[0] / 3.0 - lo;
        b[i] = w[m] * (hi - lo);
    }
    for (int i = 0; i < n; i++)
        total += b[i];
#pragma endscop
    out[0] = lo;
    out[1] = hi;
    out[2] = smooth[n / 2] + smooth[n + 1];
    out[3] = total;
    return total;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_int(argc, argv, 3, 4);
    double *a = alloc_doubles(n), *b = alloc_doubles(n), out[4];

    rng_seed(seed);
    init_array_1d(a, n);
    double r = kernel_region_locals(n, m, a, b, out);
    print_array_1d("b", b, n);
    print_array_1d("out", out, 4);
    print_scalar("r", r);
    free(a);
    free(b);
    return 0;
}
