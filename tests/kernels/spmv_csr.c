// RUN: -- 1 1 1
// RUN: -- 2 60 4
// RUN: -- 3 900 16
// covers: csr-spmv through pointers without extents (inspected extents: the host sizes col, val and x
//         before each call), a row's start and end in locals, the product called twice (y = A x, x = A y)
// A sparse matrix in compressed rows times a vector, as a library writes it: every array a pointer, the
// row's bounds read into locals.  bench/gpu/suite.py runs it at 2,000,000 rows of 16 entries.
#include "kernels.h"

static void spmv(int n, const int *rowptr, const int *col, const double *val, const double *x, double *y)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        int start = rowptr[i], end = rowptr[i + 1];
        double s = 0.0;
        for (int j = start; j < end; j++)
            s += val[j] * x[col[j]];
        y[i] = s;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 100);
    int per_row = arg_size(argc, argv, 3, 8);
    long nnz = (long)n * per_row;
    int *rowptr = alloc_ints(n + 1);
    int *col = (int *)malloc(sizeof(int) * nnz);
    double *val = (double *)malloc(sizeof(double) * nnz);
    double *x = alloc_doubles(n), *y = alloc_doubles(n);
    if (col == NULL || val == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    rng_seed(seed);
    for (int i = 0; i <= n; i++)
        rowptr[i] = i * per_row;
    for (long e = 0; e < nnz; e++) {
        col[e] = rng_int(0, n - 1);
        val[e] = rng_range(-1.0, 1.0) / per_row;
    }
    init_array_1d(x, n);
    spmv(n, rowptr, col, val, x, y);
    spmv(n, rowptr, col, val, y, x);
    print_array_1d("y", y, n);
    print_array_1d("x", x, n);
    free(rowptr);
    free(col);
    free(val);
    free(x);
    free(y);
    return 0;
}
