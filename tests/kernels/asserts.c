// RUN: -- 1 1 1
// RUN: -- 2 9 14
// RUN: -- 3 40 33
// RUN: -DNDEBUG -- 4 20 17 0.5
// covers: C's assert in statements (on data and on iterators, in a 2-D nest and after a reduction):
//         kernels set a flag when one fails, and the host, before the copy-out, runs the original loops,
//         whose assert stops the program with C's message (tests/test_opencl.py makes one fail); under
//         NDEBUG nothing is checked
// asserts: a scaled copy with bounds checked, and the sums of its rows
#include "kernels.h"
#include <assert.h>
#include <stdlib.h>

static void kernel_asserts(int n, int m, double limit, double A[n][m], double B[n][m], double s[n])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            assert(A[i][j] < limit);
            B[i][j] = A[i][j] * 2.0 + (j > 0 ? A[i][j - 1] : 0.0);
        }
    for (int i = 0; i < n; i++) {
        s[i] = 0.0;
        for (int j = 0; j < m; j++)
            s[i] += B[i][j];
        assert(s[i] < 1.4 * limit * m && i < n);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    double limit = argc > 4 ? atof(argv[4]) : 2.0;
    double (*A)[m] = (double (*)[m])alloc_doubles(n * m);
    double (*B)[m] = (double (*)[m])alloc_doubles(n * m);
    double *s = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, m);

    kernel_asserts(n, m, limit, A, B, s);

    print_array_2d("B", &B[0][0], n, m);
    print_array_1d("s", s, n);
    free(A);
    free(B);
    free(s);
    return 0;
}
