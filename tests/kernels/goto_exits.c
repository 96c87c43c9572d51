// RUN: -- 1 1 5
// RUN: -- 2 9 40
// RUN: -- 3 17 -3
// RUN: -- 4 23 400
// covers: forward gotos under affine conditions, modelled as pet models an early return (an instance
//         runs only when no goto taken before it skips it): out of a loop nest to the statement after it
//         (a break out of both loops), to the end of a loop body (a continue), to a label further in the
//         same block, and a goto to a nearer label that jumps over a goto to a farther one
// goto_exits: a triangular accumulation cut off after a number of points given by a parameter
#include "kernels.h"

static void kernel_goto(int n, int stop, double A[n][n], double x[n], double y[n])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            if (3 * i + j >= stop)
                goto cut;
            A[i][j] += x[j];
        }
cut:
    for (int i = 0; i < n; i++) {
        x[i] = 0.0;
        for (int j = 0; j < n; j++) {
            if (j > i + 2)
                goto next_row;
            x[i] += A[i][j];
        }
        x[i] *= 0.5;
next_row:
        y[i] = x[i] + 1.0;
    }
    for (int i = 0; i < n; i++) {
        if (2 * i < stop)
            goto keep;
        y[i] = -y[i];
keep:
        if (i > n - 3)
            goto last;
        for (int j = 0; j < n; j++) {
            if (j == i)
                goto diagonal;
            A[i][j] -= y[j];
        }
        A[i][i] += 1.0;
diagonal:
        A[i][0] += 0.25;
    }
last:
    y[0] += 1.0;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 20);
    int stop = arg_int(argc, argv, 3, 50);
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(x, n);
    init_array_1d(y, n);

    kernel_goto(n, stop, A, x, y);

    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("x", x, n);
    print_array_1d("y", y, n);
    free(A);
    free(x);
    free(y);
    return 0;
}
