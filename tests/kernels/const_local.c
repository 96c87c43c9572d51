// RUN: -- 1 1
// RUN: -- 2 17
// RUN: -- 3 40
// covers: const locals declared in the region: one in a block with a loop (hoisted to the top of the
//         generated block, where it must lose its const: it was once printed 'const int a;' and assigned
//         later, which does not compile), one in a block without loops (private to a statement instance)
// const_local: scaled prefix updates
#include "kernels.h"

static void kernel_const_local(int n, double A[n][n], double x[n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        const int a = 3;
        const double w = 0.5 * i;
        for (int j = 0; j < n; j++)
            A[i][j] = A[i][j] * a + w;
    }
    for (int i = 0; i < n; i++) {
        const double h = A[i][i];
        x[i] = h * h - 1.0;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double *x = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    fill_array(x, n, 0.0);

    kernel_const_local(n, A, x);

    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("x", x, n);
    free(A);
    free(x);
    return 0;
}
