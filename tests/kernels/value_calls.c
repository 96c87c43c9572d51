// RUN: -- 1 1
// RUN: -- 2 17
// RUN: -- 3 40
// covers: calls to functions of the file that return a value and read (or write) through pointer
//         parameters, in expressions: each call's body runs before its statement, setting a variable
//         of its own to the value its last 'return' gives, which the statement then reads (C sequences
//         a call indeterminately with the rest of its expression); two calls in one expression, a call
//         in a declaration's initialiser, a call in an inlined body, one whose body writes through a
//         pointer; the bodies' locals become private to the parallel loops
// value_calls: a matrix-vector product, row norms and a residual written with helper functions
#include "kernels.h"

#define N 64

static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += a[k] * b[k];
    return s;
}

static double norm2(int n, const double *a)
{
    return dot(n, a, a);
}

static double scale_and_sum(int n, double *a, double f)
{
    double s = 0.0;
    for (int k = 0; k < n; k++) {
        a[k] *= f;
        s += a[k];
    }
    return s;
}

static void kernel_value_calls(int n, double A[n][n], double B[n][n], double *x, double *y, double *r)
{
#pragma scop
    for (int i = 0; i < n; i++)
        y[i] = 0.5 * dot(n, A[i], x) - 0.25 * dot(n, B[i], x);
    for (int i = 0; i < n; i++) {
        double norm = norm2(n, A[i]) + 1.0;
        r[i] = (y[i] - dot(n, B[i], y)) / norm;
    }
    for (int i = 0; i < n; i++)
        x[i] += scale_and_sum(n, B[i], 0.5 + 0.125 * (i % 3));
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    if (n > N)
        n = N;
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double (*B)[n] = (double (*)[n])alloc_doubles(n * n);
    double *x = alloc_doubles(n), *y = alloc_doubles(n), *r = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_2d(&B[0][0], n, n);
    init_array_1d(x, n);
    init_array_1d(y, n);
    init_array_1d(r, n);

    kernel_value_calls(n, A, B, x, y, r);

    print_array_2d("B", &B[0][0], n, n);
    print_array_1d("x", x, n);
    print_array_1d("y", y, n);
    print_array_1d("r", r, n);
    free(A);
    free(B);
    free(x);
    free(y);
    free(r);
    return 0;
}
