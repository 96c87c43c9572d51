// RUN: -- 1 1
// RUN: -- 2 13
// RUN: -- 3 57
// covers: integer division and modulo by constants with possibly NEGATIVE
//         dividends (C truncates toward zero, unlike floor division):
//         in loop bounds (j <= (i - 3) / 2), in if conditions
//         ((i - j) % 3 == 1, (i - j) % 4 == -1, (j - i) / 2 == -1), and in
//         expressions; decrementing loop; vla-params
// negdiv: guarded updates whose guards depend on C's signed / and %
#include "kernels.h"

static void kernel_negdiv(int n, double A[n][n], double x[n])
{
    int i, j;

#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            if ((i - j) % 3 == 1)
                A[i][j] += 1.0;
            else if ((i - j) % 4 == -1)
                A[i][j] += 2.0;
            if ((j - i) / 2 == -1)
                A[i][j] -= 0.5;
            A[i][j] += (double)((i - j) / 3) * 0.125 + (double)((j - i) % 5) * 0.0625;
        }
    for (i = 0; i < n; i++)
        for (j = 0; j <= (i - 3) / 2; j++)
            x[i] += A[i][j];
    for (i = n - 1; i >= 0; i--)
        for (j = (i - 4) / 3; j < n; j++)
            if (j >= 0)
                x[i] -= 0.25 * A[j][i];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double A[n][n];
    double x[n];

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    fill_array(x, n, 0.0);

    kernel_negdiv(n, A, x);

    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("x", x, n);
    return 0;
}
