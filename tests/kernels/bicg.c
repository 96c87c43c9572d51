// RUN: -- 1 1 1
// RUN: -- 4 13 7
// RUN: -- 8 60 51
// covers: flat-pointer-linearised-subscripts, loop-var-declared-in-for,
//         imperfect-nest, several-statements-per-body, sequence-of-nests
// bicg: s = A^T r, q = A p  (A is n x m, stored flat)
#include "kernels.h"

static void kernel_bicg(int n, int m, double *A, double *s, double *q,
                        double *p, double *r)
{
#pragma scop
    for (int j = 0; j < m; j++)
        s[j] = 0.0;
    for (int i = 0; i < n; i++) {
        q[i] = 0.0;
        for (int j = 0; j < m; j++) {
            s[j] = s[j] + r[i] * A[i * m + j];
            q[i] = q[i] + A[i * m + j] * p[j];
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 25);
    double *A = alloc_doubles(n * m);
    double *s = alloc_doubles(m);
    double *q = alloc_doubles(n);
    double *p = alloc_doubles(m);
    double *r = alloc_doubles(n);

    rng_seed(seed);
    init_array_2d(A, n, m);
    init_array_1d(p, m);
    init_array_1d(r, n);

    kernel_bicg(n, m, A, s, q, p, r);

    print_array_1d("s", s, m);
    print_array_1d("q", q, n);
    free(A);
    free(s);
    free(q);
    free(p);
    free(r);
    return 0;
}
