// RUN: -- 1 1
// RUN: -- 2 9
// RUN: -- 3 50
// covers: GCC's extended floating types (_Float16, _Float64) in a file: the whole file once failed to
//         parse, so no region of it was generated; now the c target regenerates the region that uses
//         them, the GPU targets leave it as written with a located warning (kernels have no such types),
//         and every target generates the other region
// extended_types: half-precision inputs scaled into float and double outputs
#include "kernels.h"

static void kernel_half(int n, _Float16 h[n], float x[n], _Float64 y[n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        x[i] = (float)h[i] * 0.5f + 1.0f;
        y[i] = (_Float64)x[i] * 3.0;
    }
#pragma endscop
}

static void kernel_float(int n, float x[n], float z[n])
{
#pragma scop
    for (int i = 1; i < n; i++)
        z[i] = x[i] - x[i - 1];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    _Float16 *h = (_Float16 *)calloc((size_t)n, sizeof(_Float16));
    float *x = alloc_floats(n);
    float *z = alloc_floats(n);
    double *y = alloc_doubles(n);

    rng_seed(seed);
    for (int i = 0; i < n; i++)
        h[i] = (_Float16)rng_range(-4.0, 4.0);

    kernel_half(n, h, x, (_Float64 *)y);
    kernel_float(n, x, z);

    print_float_array_1d("x", x, n);
    print_float_array_1d("z", z, n);
    print_array_1d("y", y, n);
    free(h);
    free(x);
    free(z);
    free(y);
    return 0;
}
