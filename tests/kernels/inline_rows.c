// RUN: -- 1 1
// RUN: -- 2 9
// RUN: -- 3 33
// covers: calls to void functions of the file given a row of an array (copy(B[i], A[i]), a[1] for a
//         parameter named like the caller's array), the address of an element or a pointer offset
//         (&x[i], y + i, read through '*' and subscripts): the parameter's subscripts go after the row's,
//         or add to the element's; a body looping on its own 'i' called with arguments that read the
//         caller's 'i' (its local is renamed, not captured, and its assignments to it are not to the
//         caller's 'i')
// inline_rows: row copies, scaled rows and a running update written as helper functions
#include "kernels.h"

static void copy_row(int n, double *b, const double *a)
{
    for (int i = 0; i < n; i++)
        b[i] = a[i];
}

static void scale_row(int n, double a[n], double s)
{
    for (int j = 0; j < n; j++)
        a[j] *= s;
}

static void halve_odd(int n, double *a)
{
    for (int i = 1; i < n; i += 2)
        a[i] = 0.5 * a[i - 1];
}

static void bump(double *p, double v)
{
    *p = *p + v;
    p[1] = p[1] - 0.5 * v;
}

static void kernel_inline_rows(int n, double A[n][n], double B[n][n], double a[2][n], double *x)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        copy_row(n, B[i], A[i]);
        scale_row(n, B[i], 0.5 + 0.125 * i);
        halve_odd(n, B[i]);
    }
    for (int i = 0; i < n; i++)
        copy_row(n, a[1], a[0]);
    for (int i = 0; i < n - 1; i++) {
        bump(&x[i], 0.125 * i);
        bump(x + i + 1, 0.25);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double (*B)[n] = (double (*)[n])alloc_doubles(n * n);
    double (*a)[n] = (double (*)[n])alloc_doubles(2 * n);
    double *x = alloc_doubles(n + 1);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_2d(&B[0][0], n, n);
    init_array_2d(&a[0][0], 2, n);
    init_array_1d(x, n + 1);

    kernel_inline_rows(n, A, B, a, x);

    print_array_2d("B", &B[0][0], n, n);
    print_array_2d("a", &a[0][0], 2, n);
    print_array_1d("x", x, n + 1);
    free(A);
    free(B);
    free(a);
    free(x);
    return 0;
}
