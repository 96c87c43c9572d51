// RUN: -- 1 1
// RUN: -- 2 12
// RUN: -- 3 45
// covers: the loops of data_bounds.c written in C89 style, every variable declared at the top of the
//         function: loops run as written (a bound on data, a break on data) whose iterators are the
//         function's (each kernel thread declares its own, as OpenMP makes them private), and scalar
//         temporaries written by such a loop or under a condition on data (may-writes), which get a copy
//         per iteration of the parallel loop, so that the rows run in parallel
// data_bounds_c89: sparse matrix-vector product, a prefix of each row, and a clamped copy
#include "kernels.h"

static void kernel_data_bounds_c89(int n, int nnz, int rowptr[n + 1], int col[nnz], double val[nnz],
                                   double x[n], double y[n], double z[n], double w[n])
{
    int i, k;
    double t, u;
#pragma scop
    for (i = 0; i < n; i++) {
        t = 0.0;
        for (k = rowptr[i]; k < rowptr[i + 1]; k++)
            t += val[k] * x[col[k]];
        y[i] = t;
    }
    for (i = 0; i < n; i++) {
        z[i] = 0.0;
        for (k = rowptr[i]; k < rowptr[i + 1]; k++) {
            if (val[k] < 0.2)
                break;
            z[i] += val[k];
        }
    }
    for (i = 0; i < n; i++) {
        u = y[i] - z[i];
        if (u > 0.5)
            u = 0.5 + 0.25 * u;
        w[i] = u * x[i];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int *rowptr = alloc_ints(n + 1);
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(n);
    double *z = alloc_doubles(n);
    double *w = alloc_doubles(n);

    rng_seed(seed);
    rowptr[0] = 0;
    for (int r = 0; r < n; r++)
        rowptr[r + 1] = rowptr[r] + rng_int(0, 5);
    int nnz = rowptr[n] > 0 ? rowptr[n] : 1;
    int *col = alloc_ints(nnz);
    double *val = alloc_doubles(nnz);
    for (int e = 0; e < nnz; e++)
        col[e] = rng_int(0, n - 1);
    init_array_1d(val, nnz);
    init_array_1d(x, n);

    kernel_data_bounds_c89(n, nnz, rowptr, col, val, x, y, z, w);

    print_array_1d("y", y, n);
    print_array_1d("z", z, n);
    print_array_1d("w", w, n);
    free(rowptr);
    free(x);
    free(y);
    free(z);
    free(w);
    free(col);
    free(val);
    return 0;
}
