// RUN: -- 1 1 1
// RUN: -- 5 19 13
// RUN: -- 8 60 44
// covers: sqrt-call, SQR-macro, conditional-operator-on-array-values
//         (stddev <= eps ? 1.0 : stddev), vla-params, triangular-loops
//         (j = i + 1 .. m), imperfect-nest, sequence-of-nests, statement
//         after the last nest, read-only-scalars, compound-assign (+= -= /=)
// correlation: correlation matrix of an n x m data set
#include "kernels.h"

static void kernel_correlation(int m, int n, double float_n, double data[n][m],
                               double corr[m][m], double mean[m], double stddev[m])
{
    int i, j, k;
    double eps = 0.1;

#pragma scop
    for (j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (i = 0; i < n; i++)
            mean[j] += data[i][j];
        mean[j] /= float_n;
    }

    for (j = 0; j < m; j++) {
        stddev[j] = 0.0;
        for (i = 0; i < n; i++)
            stddev[j] += SQR(data[i][j] - mean[j]);
        stddev[j] /= float_n;
        stddev[j] = sqrt(stddev[j]);
        stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
    }

    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            data[i][j] -= mean[j];
            data[i][j] /= sqrt(float_n) * stddev[j];
        }

    for (i = 0; i < m - 1; i++) {
        corr[i][i] = 1.0;
        for (j = i + 1; j < m; j++) {
            corr[i][j] = 0.0;
            for (k = 0; k < n; k++)
                corr[i][j] += data[k][i] * data[k][j];
            corr[j][i] = corr[i][j];
        }
    }
    corr[m - 1][m - 1] = 1.0;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    double data[n][m];
    double corr[m][m];
    double mean[m], stddev[m];

    rng_seed(seed);
    init_array_2d(&data[0][0], n, m);
    fill_array(&corr[0][0], m * m, 0.0);

    kernel_correlation(m, n, (double)n, data, corr, mean, stddev);

    print_array_2d("corr", &corr[0][0], m, m);
    print_array_1d("mean", mean, m);
    print_array_1d("stddev", stddev, m);
    print_array_2d("data", &data[0][0], n, m);
    return 0;
}
