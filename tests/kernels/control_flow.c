// RUN: -- 1 1
// RUN: -- 2 8
// RUN: -- 3 33
// covers: labels that no goto targets (ignored), counted while loops (an iterator assigned or declared
//         just before, its increment last in the body, also by 2), continue at the top of a loop body on
//         an affine condition and on data, a continue that ends the body
// control_flow: the constructs third-party polyhedral tests write instead of plain for loops
#include "kernels.h"

static void kernel_control_flow(int n, double A[n][n], double x[n], double y[n])
{
    int i, j;

#pragma scop
    i = 0;
    while (i < n) {
    row:
        j = 0;
        while (j < n) {
            A[i][j] = A[i][j] * 0.5 + x[j];
            j++;
        }
        i = i + 1;
    }
    for (i = 0; i < n; i++) {
        if (i % 3 == 1)
            continue;
        y[i] = x[i] * 2.0;
        for (j = 0; j < i; j++) {
            if (A[i][j] > 0.5) {
                y[i] -= 0.25;
                continue;
            }
            y[i] += A[i][j];
            continue;
        }
    }
    int k = 1;
    while (k < n) {
        x[k] += x[k - 1] * 0.125;
    done:
        k += 2;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(x, n);
    init_array_1d(y, n);

    kernel_control_flow(n, A, x, y);

    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("x", x, n);
    print_array_1d("y", y, n);
    free(A);
    free(x);
    free(y);
    return 0;
}
