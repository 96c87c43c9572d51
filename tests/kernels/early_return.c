// RUN: -- 1 1 3
// RUN: -- 2 9 20
// RUN: -- 3 31 -1
// RUN: -- 4 17 60
// RUN: -- 5 12 100
// covers: 'return' inside loops under affine conditions, modelled as pet does (an instance runs only
//         when no return was taken before it in the original order): a return with a value in a nested
//         loop, a second one in a decrementing loop, a return as the region's last statement, and a
//         void function returning from the middle of a loop body; the GPU targets (which once left these
//         regions as written) return after the call, the CPU fallback's original lines as written
// early_return: a triangular update and a scaling that stop at a step given by a parameter
#include "kernels.h"

static int kernel_scan(int n, int stop, double A[n][n], double x[n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        x[i] = 0.5 * i;
        for (int j = 0; j <= i; j++) {
            if (i + 2 * j == stop)
                return 1;
            A[i][j] += x[j];
        }
        x[i] += A[i][i];
    }
    for (int k = n - 1; k >= 0; k--) {
        if (k < stop - 2 * n)
            return 2;
        x[k] *= 0.25;
    }
    return 0;
#pragma endscop
}

static void kernel_void(int n, int m, double y[n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        y[i] += 1.0;
        if (i == m)
            return;
        y[i] *= 2.0;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int stop = arg_int(argc, argv, 3, 20);
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(x, n);
    init_array_1d(y, n);

    int status = kernel_scan(n, stop, A, x);
    kernel_void(n, stop / 3, y);

    printf("status %d\n", status);
    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("x", x, n);
    print_array_1d("y", y, n);
    free(A);
    free(x);
    free(y);
    return 0;
}
