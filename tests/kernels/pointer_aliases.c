// RUN: -- 1 1 1
// RUN: -- 2 7 5
// RUN: -- 3 60 33
// covers: row-pointer, element-pointer, const-pointer, pointer-to-pointer-row, pointer-alias-deref,
//         pointer-alias-memcpy
// Pointers declared in a region to name a row or an element of an array, as C code often walks a
// matrix: 'double *Ci = C[i];', 'const double *a = &A[i * k];', 'b = B + j * k'.  Each is replaced by
// what it names (Ci[j] is C[i][j], a[p] is A[i * k + p]), so the region is modelled exactly and runs in
// kernels: a matrix product through row pointers, a scaled copy through a pointer to a row of an array
// of rows, and a normalisation that clears a row through its pointer with memset.
#include <string.h>
#include "kernels.h"

static void kernel_aliases(int n, int k, double C[n][n], const double *A, const double *B, double **R,
                           double *norm, double *out)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        double *Ci = C[i];
        const double *a = &A[i * k];
        for (int j = 0; j < n; j++) {
            const double *b = B + j * k;
            double sum = 0.0;
            for (int p = 0; p < k; p++)
                sum += a[p] * b[p];
            Ci[j] = 0.5 * Ci[j] + sum;
        }
    }
    for (int i = 0; i < n; i++) {
        double *r = R[i];
        const double *c = C[i];
        for (int j = 0; j < n; j++)
            r[j] = 2.0 * c[j] - *r;
    }
    for (int i = 0; i < n; i++) {
        double *row = out + i * n;
        double *s = norm;
        memset(row, 0, n * sizeof(double));
        for (int j = 0; j < n; j++)
            *(row + j) += R[i][j] * R[i][j];
        *(s + i) = row[n - 1] + *row;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 16);
    int k = arg_size(argc, argv, 3, 8);
    double (*C)[n] = (double (*)[n])alloc_doubles(n * n);
    double *A = alloc_doubles(n * k);
    double *B = alloc_doubles(n * k);
    double *flat = alloc_doubles(n * n);
    double **R = malloc(n * sizeof(double *));
    double *norm = alloc_doubles(n);
    double *out = alloc_doubles(n * n);

    rng_seed(seed);
    init_array_2d(&C[0][0], n, n);
    init_array_1d(A, n * k);
    init_array_1d(B, n * k);
    init_array_1d(flat, n * n);
    init_array_1d(out, n * n);
    for (int i = 0; i < n; i++)
        R[i] = flat + i * n;
    kernel_aliases(n, k, C, A, B, R, norm, out);
    print_array_2d("C", &C[0][0], n, n);
    print_array_1d("flat", flat, n * n);
    print_array_1d("norm", norm, n);
    print_array_1d("out", out, n * n);
    free(C);
    free(A);
    free(B);
    free(flat);
    free(R);
    free(norm);
    free(out);
    return 0;
}
