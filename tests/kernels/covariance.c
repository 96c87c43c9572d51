// RUN: -- 1 1 1
// RUN: -- 4 13 19
// RUN: -- 9 56 40
// covers: flat-pointer-linearised-subscripts (data[i*m + j]),
//         triangular-loops (j = i .. m), imperfect-nest, sequence-of-nests,
//         read-only-scalars, compound-assign (+= -= /=)
// covariance: covariance matrix of an n x m data set
#include "kernels.h"

static void kernel_covariance(int m, int n, double float_n, double denom,
                              double *data, double *cov, double *mean)
{
    int i, j, k;

#pragma scop
    for (j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (i = 0; i < n; i++)
            mean[j] += data[i * m + j];
        mean[j] /= float_n;
    }

    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            data[i * m + j] -= mean[j];

    for (i = 0; i < m; i++)
        for (j = i; j < m; j++) {
            cov[i * m + j] = 0.0;
            for (k = 0; k < n; k++)
                cov[i * m + j] += data[k * m + i] * data[k * m + j];
            cov[i * m + j] /= denom;
            cov[j * m + i] = cov[i * m + j];
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    double *data = alloc_doubles(n * m);
    double *cov = alloc_doubles(m * m);
    double *mean = alloc_doubles(m);

    rng_seed(seed);
    init_array_2d(data, n, m);

    /* the unbiased estimator divides by n - 1; avoid 0 for n == 1 */
    kernel_covariance(m, n, (double)n, n > 1 ? (double)(n - 1) : 1.0,
                      data, cov, mean);

    print_array_2d("cov", cov, m, m);
    print_array_1d("mean", mean, m);
    print_array_2d("data", data, n, m);
    free(data);
    free(cov);
    free(mean);
    return 0;
}
