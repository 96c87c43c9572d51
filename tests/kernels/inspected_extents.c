// RUN: -- 1 1 1
// RUN: -- 2 13 7
// RUN: -- 3 90 41
// covers: inspected-extent (pointers without extents reached through subscripts on data: the host finds
//         how many elements each call needs), csr-spmv with its row's start and end in locals,
//         gather-with-holes (if (map[i] >= 0) ... x[map[i]]), scatter through a permutation, histogram on
//         pointers, permuted rows (int r = perm[i]; A[r][j]), transposed spmv (scatter-add), a search
//         whose loop body is one if, without braces, holding a break on data
// Sparse and indirect code as libraries write it: every array a pointer, no extent declared.  The GPU
// targets copy as many elements of x, col, val, h and A as the subscripts on data reach, found on the host
// before each call from the index arrays (gpu/inspection.py); the locals holding a row's start and end,
// or a permuted row, are the elements they were read from (frontend/aliases.py).
#include "kernels.h"

/* y = A x and z = A^T w, A n x m in compressed rows */
static void spmv(int n, const int *rowptr, const int *col, const double *val, const double *x, double *y,
                 const double *w, double *z)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        int start = rowptr[i], end = rowptr[i + 1];
        double s = 0.0;
        for (int j = start; j < end; j++)
            s += val[j] * x[col[j]];
        y[i] = s;
    }
    for (int i = 0; i < n; i++)
        for (int j = rowptr[i]; j < rowptr[i + 1]; j++)
            z[col[j]] += val[j] * w[i];
#pragma endscop
}

/* a gather through a map with holes (-1), a scatter through a permutation, a histogram */
static void indirect(int n, int bins, const int *map, const int *perm, const double *x, double *y, double *z,
                     const int *key, int *h)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        if (map[i] >= 0)
            y[i] = 2.0 * x[map[i]];
        z[perm[i]] = y[i] + 1.0;
    }
    for (int b = 0; b < bins; b++)
        h[b] = 0;
    for (int i = 0; i < n; i++)
        h[key[i] % bins]++;
#pragma endscop
}

/* rows picked by a permutation */
static void permuted_rows(int n, int m, const int *perm, double (*A)[5], double *out)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        int r = perm[i];
        for (int j = 0; j < m; j++)
            out[i * 5 + j] = A[r][j] * (j + 1);
    }
#pragma endscop
}

/* each key's first position in a table (-1: absent) */
static void lookup(int m, int n, const int *keys, const int *table, int *pos)
{
#pragma scop
    for (int i = 0; i < m; i++) {
        pos[i] = -1;
        for (int j = 0; j < n; j++)
            if (table[j] == keys[i]) {
                pos[i] = j;
                break;
            }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    rng_seed(seed);
    int *rowptr = alloc_ints(n + 1);
    rowptr[0] = 0;
    for (int i = 0; i < n; i++)
        rowptr[i + 1] = rowptr[i] + rng_int(0, 5);
    int nnz = rowptr[n] > 0 ? rowptr[n] : 1;
    int *col = alloc_ints(nnz), *map = alloc_ints(n), *perm = alloc_ints(n), *key = alloc_ints(n);
    int *h = alloc_ints(m);
    double *val = alloc_doubles(nnz), *x = alloc_doubles(m), *y = alloc_doubles(n), *w = alloc_doubles(n);
    double *z = alloc_doubles(m > n ? m : n), *out = alloc_doubles(n * 5);
    double (*A)[5] = (double (*)[5])alloc_doubles(n * 5);
    init_int_array(col, nnz, 0, m - 1);
    init_array_1d(val, nnz);
    init_array_1d(x, m);
    init_array_1d(w, n);
    init_array_1d(&A[0][0], n * 5);
    for (int i = 0; i < n; i++) {
        map[i] = rng_int(0, 2) == 0 ? -1 : rng_int(0, m - 1);
        perm[i] = i;
        key[i] = rng_int(0, 1000);
    }
    for (int i = n - 1; i > 0; i--) {
        int k = rng_int(0, i), t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }

    spmv(n, rowptr, col, val, x, y, w, z);
    print_array_1d("y", y, n);
    print_array_1d("z", z, m);
    indirect(n, m, map, perm, x, y, z, key, h);
    print_array_1d("y", y, n);
    print_array_1d("z", z, n);
    for (int b = 0; b < m; b++)
        printf("h%d %d\n", b, h[b]);
    permuted_rows(n, m < 5 ? m : 5, perm, A, out);
    print_array_1d("out", out, n * 5);
    for (int i = 0; i < n; i++)
        key[i] %= 2 * n;
    int keys = m < n ? m : n;
    lookup(keys, n, perm, key, h);
    for (int i = 0; i < keys; i++)
        printf("pos%d %d\n", i, h[i]);
    free(rowptr);
    free(col);
    free(map);
    free(perm);
    free(key);
    free(h);
    free(val);
    free(x);
    free(y);
    free(w);
    free(z);
    free(out);
    free(A);
    return 0;
}
