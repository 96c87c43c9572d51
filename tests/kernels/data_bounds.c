// RUN: -- 1 1
// RUN: -- 2 12
// RUN: -- 3 45
// covers: loops whose start or bound is read from data (a CSR sparse matrix-vector product,
//         k = rowptr[i] to rowptr[i + 1]; row lengths j < len[i]): such a loop is one statement of its
//         own, its iterator private, its accesses over whole dimensions, and runs as written inside the
//         generated loops (per thread on the GPU targets); such a loop holding a loop of its own (a
//         ragged row times a small fixed stencil), and loops under a condition on data (the
//         condition and its loops one statement, run as written)
// data_bounds: sparse matrix-vector product and ragged row scaling
#include "kernels.h"

static void kernel_data_bounds(int n, int nnz, int rowptr[n + 1], int col[nnz], double val[nnz],
                               int len[n], double x[n], double y[n], double R[n][n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        y[i] = 0.0;
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
            y[i] += val[k] * x[col[k]];
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < len[i]; j++)
            R[i][j] = R[i][j] * y[i] + 1.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < len[i]; j++)
            for (int d = 0; d < 3; d++)
                R[i][j] += 0.25 * d * x[(j + d) % n];
    for (int i = 0; i < n; i++)
        if (y[i] > 0.5)
            for (int j = 0; j < n; j++)
                R[i][j] -= 0.5 * x[j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int *rowptr = alloc_ints(n + 1);
    int *len = alloc_ints(n);
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(n);
    double (*R)[n] = (double (*)[n])alloc_doubles(n * n);

    rng_seed(seed);
    rowptr[0] = 0;
    for (int i = 0; i < n; i++) {
        rowptr[i + 1] = rowptr[i] + rng_int(0, 4);
        len[i] = rng_int(0, n);
    }
    int nnz = rowptr[n] > 0 ? rowptr[n] : 1;
    int *col = alloc_ints(nnz);
    double *val = alloc_doubles(nnz);
    for (int k = 0; k < nnz; k++)
        col[k] = rng_int(0, n - 1);
    init_array_1d(val, nnz);
    init_array_1d(x, n);
    init_array_2d(&R[0][0], n, n);

    kernel_data_bounds(n, nnz, rowptr, col, val, len, x, y, R);

    print_array_1d("y", y, n);
    print_array_2d("R", &R[0][0], n, n);
    free(rowptr);
    free(len);
    free(col);
    free(val);
    free(x);
    free(y);
    free(R);
    return 0;
}
