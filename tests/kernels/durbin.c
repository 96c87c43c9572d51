// RUN: -- 1 1
// RUN: -- 3 37
// RUN: -- 5 300
// covers: scalars-written-in-region (alpha, beta, sum), scalars printed after,
//         vla-params (1-D), index arithmetic (k - i - 1), sequence-of-nests
//         inside a loop, imperfect-nest
// durbin: Levinson-Durbin recursion for a Toeplitz system
#include "kernels.h"

static void kernel_durbin(int n, double r[n], double y[n], double z[n],
                          double *out_alpha, double *out_beta, double *out_sum)
{
    int i, k;
    double alpha, beta, sum;

    sum = 0.0;
#pragma scop
    y[0] = -r[0];
    beta = 1.0;
    alpha = -r[0];

    for (k = 1; k < n; k++) {
        beta = (1 - alpha * alpha) * beta;
        sum = 0.0;
        for (i = 0; i < k; i++)
            sum += r[k - i - 1] * y[i];
        alpha = -(r[k] + sum) / beta;

        for (i = 0; i < k; i++)
            z[i] = y[i] + alpha * y[k - i - 1];
        for (i = 0; i < k; i++)
            y[i] = z[i];
        y[k] = alpha;
    }
#pragma endscop
    *out_alpha = alpha;
    *out_beta = beta;
    *out_sum = sum;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 40);
    double r[n], y[n], z[n];
    double alpha, beta, sum;
    int i;

    rng_seed(seed);
    /* autocorrelation of an AR(1) process, slightly perturbed: the
       Toeplitz matrix stays well conditioned */
    for (i = 0; i < n; i++)
        r[i] = pow(0.6, i + 1) + 0.01 * (rng_double() - 0.5) / (i + 1);
    fill_array(y, n, 0.0);
    fill_array(z, n, 0.0);

    kernel_durbin(n, r, y, z, &alpha, &beta, &sum);

    print_array_1d("y", y, n);
    print_array_1d("z", z, n);
    print_scalar("alpha", alpha);
    print_scalar("beta", beta);
    print_scalar("sum", sum);
    return 0;
}
