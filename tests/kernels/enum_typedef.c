// RUN: -- 1 1
// RUN: -- 2 23
// RUN: -- 3 64
// covers: enum constants and typedefs used in statements (a cast to a typedef, an enum in an
//         expression and in a subscript): the kernels of the GPU targets live in another unit (.cu, an
//         OpenCL program) and once lacked their definitions, so they did not compile
// enum_typedef: weighted three-point smoothing
#include "kernels.h"

typedef double real;
typedef real weight_t;
enum { LEFT = 0, CENTRE, RIGHT, TAPS };
enum scale { HALF = 2, QUARTER = 4 };

static void kernel_enum_typedef(int n, real x[n], real y[n], double w[TAPS])
{
#pragma scop
    for (int i = 1; i < n - 1; i++)
        y[i] = w[LEFT] * x[i - 1] + w[CENTRE] * x[i] + w[RIGHT] * x[i + 1] + (weight_t)i / QUARTER;
    for (int i = 0; i < n; i++)
        x[i] = y[i] / (real)HALF + (real)(i % TAPS);
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    real *x = alloc_doubles(n);
    real *y = alloc_doubles(n);
    double w[TAPS];

    rng_seed(seed);
    init_array_1d(x, n);
    fill_array(y, n, 0.0);
    init_array_1d(w, TAPS);

    kernel_enum_typedef(n, x, y, w);

    print_array_1d("x", x, n);
    print_array_1d("y", y, n);
    free(x);
    free(y);
    return 0;
}
