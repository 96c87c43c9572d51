// RUN: -- 1 1
// RUN: -- 2 37
// RUN: -- 3 300
// covers: increments (i += 2, i = i + 3, ++i, j += 2, j = j + 3),
//         decrements (i--, i -= 2), loop-var-declared-in-for and
//         loop-vars-declared-at-function-top (mixed in one region),
//         flat-pointer (1-D heap arrays), 2-D strided nest (VLA param),
//         iterator-values-in-computations
// strides: loops with non-unit steps, forwards and backwards
#include "kernels.h"

static void kernel_strides(int n, int n2, double *a, double *b, double *c,
                           double M[n2][n2])
{
    int i, j;

#pragma scop
    for (int k = 0; k < n; k += 2)
        a[k] = a[k] * 0.5 + (double)k / n;
    for (int k = 1; k < n; k += 2)
        a[k] = a[k - 1] + a[k];
    for (i = 0; i < n; i = i + 3)
        b[i] = a[i] + 1.0;
    for (i = n - 1; i >= 0; i -= 2)
        c[i] = b[i] - a[i];
    for (i = n - 2; i >= 0; i -= 2)
        c[i] = c[i + 1] * 0.25 + b[i];
    for (i = 0; i < n; ++i)
        b[i] = b[i] + c[i];
    for (i = 0; i < n2; i += 2)
        for (j = i; j < n2; j = j + 3)
            M[i][j] = M[i][j] + (double)(i + 2 * j) / n2;
    for (i = n2 - 1; i >= 1; i--)
        for (j = 1; j < n2; j += 2)
            M[i][j] = M[i - 1][j - 1] * 0.5 + M[i][j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 100);
    int n2 = n < 50 ? n : 50;
    double *a = alloc_doubles(n);
    double *b = alloc_doubles(n);
    double *c = alloc_doubles(n);
    double (*M)[n2] = malloc(sizeof(double[n2][n2]));

    rng_seed(seed);
    init_array_1d(a, n);
    init_array_1d(b, n);
    init_array_1d(c, n);
    init_array_2d(&M[0][0], n2, n2);

    kernel_strides(n, n2, a, b, c, M);

    print_array_1d("a", a, n);
    print_array_1d("b", b, n);
    print_array_1d("c", c, n);
    print_array_2d("M", &M[0][0], n2, n2);
    free(a);
    free(b);
    free(c);
    free(M);
    return 0;
}
