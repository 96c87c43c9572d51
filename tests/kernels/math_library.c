// RUN: -- 1 1
// RUN: -- 2 9
// RUN: -- 3 70
// covers: functions of <math.h> and <stdlib.h> the file does not define (rounding to integers, rint,
//         nearbyint, fdim, ldexp, scalbn, ilogb, logb, gamma functions, remainder, nextafter, inverse
//         hyperbolic functions, their float variants, abs and labs in signed arithmetic), called with
//         integer and float arguments: the GPU targets call their device versions, OpenCL under its own
//         names (lround as a conversion of round, abs converted back to a signed integer)
// math_library: per element, a row of library results
#include "kernels.h"
#include <math.h>
#include <stdlib.h>

static void kernel_math_library(int n, double x[n], double R[n][12], float F[n][4], long L[n][3])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        L[i][0] = lround(x[i] * 2.5) + 1;
        L[i][1] = llround(x[i] * 7.0) - lrint(x[i] * 3.0);
        L[i][2] = labs(i - n / 2) * 3 - abs(n - 2 * i);
        F[i][0] = lroundf((float)x[i] * 1.5f) + rintf((float)x[i]);
        F[i][1] = fdimf((float)x[i], 0.25f) + ldexpf((float)x[i], i % 3);
        F[i][2] = tgammaf(fabsf((float)x[i]) / 4 + 0.5f);
        F[i][3] = i - abs(i - n / 2);
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 12; k++) {
            double v = x[i] + k * 0.375;
            if (k == 0)
                R[i][k] = rint(v * 3.0) + nearbyint(v);
            else if (k == 1)
                R[i][k] = fdim(v, x[(i + 1) % n]);
            else if (k == 2)
                R[i][k] = ldexp(v, i % 5) + scalbn(v, 3 - i % 4);
            else if (k == 3)
                R[i][k] = ilogb(fabs(v) + 20) + logb(v * v + 1);
            else if (k == 4)
                R[i][k] = tgamma(fabs(v) / 4 + 0.5);
            else if (k == 5)
                R[i][k] = lgamma(fabs(v) + 0.25);
            else if (k == 6)
                R[i][k] = remainder(v, 1.5);
            else if (k == 7)
                R[i][k] = nextafter(v, 0.0) - v;
            else if (k == 8)
                R[i][k] = asinh(v) + acosh(fabs(v) + 1) + atanh(v / 16);
            else if (k == 9)
                R[i][k] = cbrt(v) * exp2(i % 4) - expm1(v / 8);
            else if (k == 10)
                R[i][k] = sqrt(i) + pow(2, k) + fmax(i, v);
            else
                R[i][k] = (double)(k - abs(i - n / 2)) / (1 + labs(i - 3));
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double *x = alloc_doubles(n);
    double (*R)[12] = (double (*)[12])alloc_doubles(n * 12);
    float (*F)[4] = (float (*)[4])alloc_floats(n * 4);
    long (*L)[3] = (long (*)[3])malloc(sizeof(long) * 3 * (size_t)n);

    rng_seed(seed);
    init_array_range(x, n, -8.0, 8.0);

    kernel_math_library(n, x, R, F, L);

    print_array_2d("R", &R[0][0], n, 12);
    for (int i = 0; i < n; i++)
        printf("F[%d] = %.7g %.7g %.7g %.7g\n", i, F[i][0], F[i][1], F[i][2], F[i][3]);
    for (int i = 0; i < n; i++)
        printf("L[%d] = %ld %ld %ld\n", i, L[i][0], L[i][1], L[i][2]);
    free(x);
    free(R);
    free(F);
    free(L);
    return 0;
}
