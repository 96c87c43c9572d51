// RUN: -- 1 1
// RUN: -- 2 7
// RUN: -- 3 40
// covers: dereferences of pointer sums, read as the subscripts C defines them to be: *(y + i) is y[i],
//         *(A + i * n + j) is A[i * n + j] (then delinearised), *(x - 1 + j) is x[j - 1], *s is s[0]
// pointer_deref: a flat matrix-vector product written with pointer arithmetic
#include "kernels.h"

static void kernel_pointer_deref(int n, double *A, double *x, double *y, double *s)
{
#pragma scop
    *s = 0.0;
    for (int i = 0; i < n; i++) {
        *(y + i) = 0.0;
        for (int j = 1; j < n; j++)
            *(y + i) += *(A + i * n + j) * *(x - 1 + j);
        *s += *(y + i);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double *A = alloc_doubles(n * n);
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(n);
    double s = 0.0;

    rng_seed(seed);
    init_array_1d(A, n * n);
    init_array_1d(x, n);

    kernel_pointer_deref(n, A, x, y, &s);

    print_array_1d("y", y, n);
    print_scalar("s", s);
    free(A);
    free(x);
    free(y);
    return 0;
}
