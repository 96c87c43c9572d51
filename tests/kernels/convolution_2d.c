// RUN: -DNI=1 -DNJ=2 -- 1
// RUN: -DNI=17 -DNJ=23 -- 5
// RUN: -DNI=60 -DNJ=56 -- 9
// covers: fixed-size-global-arrays, two-regions-in-two-functions, fmin/fmax
//         calls, floor/ceil calls, macro-params-in-bounds (NI - 1),
//         local-in-loop-body-without-loops, loops starting at 1
// convolution_2d: 3x3 convolution, then clamping and quantisation
#include "kernels.h"

#ifndef NI
#define NI 32
#endif
#ifndef NJ
#define NJ 32
#endif

static double A[NI][NJ];
static double B[NI][NJ];
static double Q[NI][NJ];

static void kernel_conv2d(void)
{
    int i, j;
    double c11 = 0.2, c21 = 0.5, c31 = -0.8;
    double c12 = -0.3, c22 = 0.6, c32 = -0.9;
    double c13 = 0.4, c23 = 0.7, c33 = 0.10;

#pragma scop
    for (i = 1; i < NI - 1; ++i)
        for (j = 1; j < NJ - 1; ++j)
            B[i][j] = c11 * A[i - 1][j - 1] + c12 * A[i + 0][j - 1] + c13 * A[i + 1][j - 1]
                    + c21 * A[i - 1][j + 0] + c22 * A[i + 0][j + 0] + c23 * A[i + 1][j + 0]
                    + c31 * A[i - 1][j + 1] + c32 * A[i + 0][j + 1] + c33 * A[i + 1][j + 1];
#pragma endscop
}

static void kernel_clamp(double lo, double hi)
{
#pragma scop
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++) {
            double c = fmin(fmax(B[i][j], lo), hi);
            B[i][j] = c;
            Q[i][j] = floor(8.0 * c) + ceil(4.0 * c) / 4.0;
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_array_2d(&A[0][0], NI, NJ);
    fill_array(&B[0][0], NI * NJ, 0.0);

    kernel_conv2d();
    kernel_clamp(-0.5, 0.75);

    print_array_2d("B", &B[0][0], NI, NJ);
    print_array_2d("Q", &Q[0][0], NI, NJ);
    return 0;
}
