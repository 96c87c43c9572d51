// RUN: -- 1 1 1
// RUN: -- 2 13 17
// RUN: -- 3 60 45
// covers: float-arrays, float math (sqrtf fabsf fminf fmaxf floorf ceilf
//         expf powf), float literals, local-in-loop-body-used-by-inner-loop
//         (float s), flat-pointer-linearised-subscripts (X[i*m + j]),
//         imperfect-nest, casts ((float)j)
// vecnorm_float: normalise the rows of a float matrix, then post-process
#include "kernels.h"

static void kernel_vecnorm(int n, int m, float *X, float *Y, float *Z, float *nrm)
{
    int i, j;

#pragma scop
    for (i = 0; i < n; i++) {
        float s = 0.0f;
        for (j = 0; j < m; j++)
            s += X[i * m + j] * X[i * m + j];
        nrm[i] = sqrtf(s + 1.0f);
        for (j = 0; j < m; j++)
            Y[i * m + j] = X[i * m + j] / nrm[i];
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            Z[i * m + j] = fminf(fmaxf(Y[i * m + j] - 0.3f, -0.2f), 0.2f)
                         + fabsf(Y[i * m + j] - 0.1f)
                         + floorf(4.0f * Y[i * m + j]) * 0.125f
                         + ceilf(2.0f * Y[i * m + j]) * 0.0625f
                         + expf(-(float)j / (float)m) * powf(Y[i * m + j], 1.5f);
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    float *X = alloc_floats(n * m);
    float *Y = alloc_floats(n * m);
    float *Z = alloc_floats(n * m);
    float *nrm = alloc_floats(n);

    rng_seed(seed);
    init_float_array(X, n * m);

    kernel_vecnorm(n, m, X, Y, Z, nrm);

    print_float_array_1d("nrm", nrm, n);
    print_float_array_2d("Y", Y, n, m);
    print_float_array_2d("Z", Z, n, m);
    free(X);
    free(Y);
    free(Z);
    free(nrm);
    return 0;
}
