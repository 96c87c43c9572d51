// RUN: -- 1 1
// RUN: -- 2 10
// RUN: -- 3 40
// covers: calls to void functions of the file that write through pointer and array parameters: the
//         call is replaced by the function's body (parameters by the arguments, a last 'return;'
//         dropped, a global array read inside), so what it writes becomes accesses of the region; a
//         function called from an inlined one is inlined too, scalar arguments that are expressions of
//         the iterators
// inline_calls: row updates and an axpy written as helper functions
#include "kernels.h"

#define N 64

static double G[N];

static void axpy(int n, double a, double *x, double *y)
{
    for (int k = 0; k < n; k++)
        y[k] += a * x[k];
}

static void row_update(int n, double A[n][n], int i, double s)
{
    for (int j = 0; j < n; j++) {
        A[i][j] = A[i][j] * s + G[j];
    }
    return;
}

static void sweep(int n, double A[n][n], double *x, double *y)
{
    for (int i = 1; i < n; i++)
        row_update(n, A, i, 0.5 + 0.25 * i);
    axpy(n, 2.0, x, y);
}

static void kernel_inline_calls(int n, double A[n][n], double *x, double *y)
{
#pragma scop
    sweep(n, A, x, y);
    for (int i = 0; i < n; i++)
        axpy(n, 0.125 * i, x, y);
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    if (n > N)
        n = N;
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(x, n);
    init_array_1d(y, n);
    init_array_1d(G, N);

    kernel_inline_calls(n, A, x, y);

    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("y", y, n);
    free(A);
    free(x);
    free(y);
    return 0;
}
