// RUN: -- 1 1 1
// RUN: -- 2 13 4
// RUN: -- 3 29 -2
// RUN: -- 4 18 40
// covers: break and continue inside ifs of a loop body, brought to its top level (if (d) { X; if (c)
//         break; Z } is if (d) { X } if (d && c) break; if (d) { Z }): under affine conditions, in an
//         else branch, two levels deep, and a continue on data; an inlined function given an element
//         of an array it does not write as a scalar argument
// nested_exits: partial row updates that stop at a column given by a parameter
#include "kernels.h"

static void add_scaled(int n, double alpha, const double *x, double *y)
{
    for (int k = 0; k < n; k++)
        y[k] += alpha * x[k];
}

static void kernel_nested(int n, int m, double A[n][n], double x[n], double y[n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        x[i] += 1.0;
        if (i > 2) {
            y[i] = x[i] * 0.5;
            if (i >= m + 3)
                break;
            y[i] += 1.0;
        }
        x[i] *= 2.0;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (j < i) {
                A[i][j] += 1.0;
            } else {
                if (j > i + m) {
                    if (i % 2 == 0)
                        break;
                    A[i][j] -= 2.0;
                }
                A[i][j] *= 0.5;
            }
        }
    for (int i = 0; i < n; i++) {
        if (i > 1) {
            y[i] -= A[i][0];
            if (A[i][i] > 0.5)
                continue;
            y[i] += A[i][i];
        }
        x[i] -= y[i];
    }
    for (int i = 0; i < n; i++)
        add_scaled(n, x[i], y, A[(i + 1) % n]);
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 20);
    int m = arg_int(argc, argv, 3, 4);
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(x, n);
    init_array_1d(y, n);

    kernel_nested(n, m, A, x, y);

    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("x", x, n);
    print_array_1d("y", y, n);
    free(A);
    free(x);
    free(y);
    return 0;
}
