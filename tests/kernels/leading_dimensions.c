// RUN: -- 1 1 1 1
// RUN: -- 2 13 7 29
// RUN: -- 3 70 45 33
// covers: leading-dimension (A[i * lda + p] with p < k), submatrix, run-time-assumption,
//         assumption-fails-original-loops, row-first-element (x[i * m])
// Flat subscripts whose rows hold only where the parameters say so (Scop.assumed): a product on
// submatrices of larger matrices, their rows lda, ldb, ldc elements apart (BLAS's leading dimensions:
// A[i * lda + p] is A[i][p] where k <= lda); each row's first element x[i * m] (a row where m >= 1); and
// windows of w elements s apart, rows where w <= s.  Each is compiled for those parameters, checked at
// run time: the windows are called once apart and once overlapping (w > s), where the original loops
// run.  The submatrices end before their parents' rows do, so a copy past a submatrix's last element
// would read past its parent.
#include "kernels.h"

/* C = alpha A B + beta C, A m x k, B k x n, C m x n, their rows lda, ldb, ldc apart */
static void gemm_ld(int m, int n, int k, double alpha, const double *A, int lda, const double *B, int ldb,
                    double beta, double *C, int ldc)
{
    int i, j, p;
#pragma scop
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            double s = 0.0;
            for (p = 0; p < k; p++)
                s += A[i * lda + p] * B[p * ldb + j];
            C[i * ldc + j] = alpha * s + beta * C[i * ldc + j];
        }
#pragma endscop
}

/* each row's largest element, then the row less it */
static void row_max(int n, int m, double *x, double *out)
{
    int i, j;
#pragma scop
    for (i = 0; i < n; i++) {
        double mx = x[i * m];
        for (j = 1; j < m; j++)
            mx = MAX(mx, x[i * m + j]);
        out[i] = mx;
        for (j = 0; j < m; j++)
            x[i * m + j] -= mx;
    }
#pragma endscop
}

/* windows of w elements, s apart: the later of two overlapping windows sees the earlier's values */
static void windows(int count, int w, int s, double *y)
{
    int i, p;
#pragma scop
    for (i = 0; i < count; i++)
        for (p = 0; p < w; p++)
            y[i * s + p] = 0.5 * y[i * s + p] + i;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int m = arg_size(argc, argv, 2, 30);
    int n = arg_size(argc, argv, 3, 20);
    int k = arg_size(argc, argv, 4, 25);
    /* parents: A in rows of k + 5 from row 2, column 1; B in rows of n + 2; C in rows of n + 4 from column 3,
       its parent's last row ending right after the submatrix's */
    int lda = k + 5, ldb = n + 2, ldc = n + 4;
    int pa = (m + 3) * lda, pb = k * ldb, pc = (m - 1) * ldc + n + 3;
    double *PA = alloc_doubles(pa), *PB = alloc_doubles(pb), *PC = alloc_doubles(pc);
    double *x = alloc_doubles(m * n), *out = alloc_doubles(m);
    int w = k % 7 + 1, count = n;
    double *y1 = alloc_doubles(count * w), *y2 = alloc_doubles((count - 1) * (w - 1) + w);

    rng_seed(seed);
    init_array_1d(PA, pa);
    init_array_1d(PB, pb);
    init_array_1d(PC, pc);
    init_array_1d(x, m * n);
    init_array_1d(y1, count * w);
    init_array_1d(y2, (count - 1) * (w - 1) + w);

    gemm_ld(m, n, k, 1.5, PA + 2 * lda + 1, lda, PB, ldb, 0.5, PC + 3, ldc);
    row_max(m, n, x, out);
    windows(count, w, w, y1);
    windows(count, w, w - 1, y2);

    print_array_1d("PA", PA, pa);
    print_array_1d("PC", PC, pc);
    print_array_1d("x", x, m * n);
    print_array_1d("out", out, m);
    print_array_1d("y1", y1, count * w);
    print_array_1d("y2", y2, (count - 1) * (w - 1) + w);
    free(PA);
    free(PB);
    free(PC);
    free(x);
    free(out);
    free(y1);
    free(y2);
    return 0;
}
