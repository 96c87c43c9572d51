// RUN: -- 1 1 0
// RUN: -- 2 9 3
// RUN: -- 3 33 -2
// RUN: -- 4 20 40
// covers: 'if (c) break;' first in a loop body joins the loop's condition: a 'while (1)' loop counted
//         once its leading break is folded, a 'for' loop without a condition, two leading breaks, and a
//         leading break on data (the loop is then one statement, run as written, as a loop bounded by
//         data is), and a break on data in the middle of a body (the same)
// leading_breaks: prefix sums cut off at a parameter and at a threshold of the data
#include "kernels.h"

static void kernel_leading_breaks(int n, int m, double x[n], double y[n], double A[n][n])
{
    int i;
#pragma scop
    i = 0;
    while (1) {
        if (i >= n)
            break;
        y[i] = x[i] * 0.5;
        i++;
    }
    for (int r = 0; r < n; r++)
        for (int c = 0;; c++) {
            if (c > r + m)
                break;
            if (c >= n)
                break;
            A[r][c] += y[c];
        }
    for (int k = 1; k < n; k++) {
        if (y[k - 1] > 0.45)
            break;
        y[k] += y[k - 1];
    }
    for (int k = 0; k < n; k++) {
        x[k] -= 0.5 * y[k];
        if (x[k] < -0.2)
            break;
        x[k] *= 0.75;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_int(argc, argv, 3, 2);
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(x, n);
    init_array_1d(y, n);

    kernel_leading_breaks(n, m, x, y, A);

    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("x", x, n);
    print_array_1d("y", y, n);
    free(A);
    free(x);
    free(y);
    return 0;
}
