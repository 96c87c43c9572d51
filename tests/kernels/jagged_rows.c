// RUN: -- 1 1 1
// RUN: -- 2 9 4
// RUN: -- 3 37 21
// covers: arrays of rows through pointers (double **A, A[i][j]) on the GPU targets: a lower triangle whose
//         row i holds exactly i + 1 elements (read whole), rows longer than the region's prefix of them
//         (written in the even rows only: a subset of the rows), rows read and written in place (a stencil
//         over the inner rows), a triangle written whole without being read (nothing copied in), and a
//         row of flat data beside them; the device holds a dense copy, packed on the host and copied in one
//         copy each way, and the elements
//         of each row past what the region touches must stay as they were; long long iterators (OpenCL
//         kernels spell them long: PoCL took a long long parameter for more than 8 bytes)
// CHECK-CUDA: D[{{.*}} * n + {{.*}}] = {{.*}}jagged_rows.c:{{[0-9]+}} */
// CHECK-CUDA: extern "C" int polypragma_jagged_rows_region0(int n, int m, double ** B, double ** C, double ** D, double ** L, double * x, double * y)
// CHECK-CUDA: polypragma_span_array(&spans, y, bytes_y, 1, "y");
// CHECK-CUDA: polypragma_span_add(&spans, L[polypragma_row], 0, polypragma_row, sizeof(double), 0, 1, "L");
// CHECK-CUDA: if (polypragma_spans_overlap(&spans, polypragma_where, said)) {
// CHECK-CUDA: POLYPRAGMA_DATA_STEP(polypragma_bind(&bind_D, NULL, bytes_D, 0, 0, 0, 0, "D", polypragma_where));
// CHECK-CUDA: POLYPRAGMA_DATA_STEP(polypragma_row_pack(pack_D, D[polypragma_row], polypragma_row - (0), 0, polypragma_row, n, sizeof(double), 0, polypragma_where));
// (D is written whole without being read: nothing of it crosses in)
// CHECK-CUDA-NEXT: }
// CHECK-CUDA-NEXT: POLYPRAGMA_DATA_STEP(polypragma_pack_reserve(&pack_L,
// CHECK-CUDA: polypragma_phase = POLYPRAGMA_COPYING_OUT;
// CHECK-CUDA-NEXT: POLYPRAGMA_DATA_STEP(polypragma_rows_cross(bind_B.buffer, pack_B, 0, (((n % 2) + n) - 2), m, sizeof(double), bytes_B, 0, "B", polypragma_where));
// CHECK-CUDA: if (!((polypragma_row % 2) == 0))
// CHECK-CUDA: polypragma_row_unpack(B[polypragma_row], pack_B, polypragma_row - (0), 0, (m - 1), m, sizeof(double), polypragma_where);
// CHECK-CUDA: POLYPRAGMA_DATA_STEP(polypragma_rows_cross(bind_C.buffer, pack_C, 1, (n - 2), m, sizeof(double), bytes_C, 0, "C", polypragma_where));
// CHECK-CUDA-NEXT: for (long polypragma_row = 1; polypragma_row <= (n - 2); ++polypragma_row) {
// CHECK-CUDA-NEXT: polypragma_row_unpack(C[polypragma_row], pack_C, polypragma_row - (1), 1, (m - 2), m, sizeof(double), polypragma_where);
// CHECK-CUDA-NOT: polypragma_row_unpack(L
// CHECK-CUDA: polypragma_release:
// CHECK-OPENCL: "__kernel void polypragma_jagged_rows_region0_kernel0(
// CHECK-OPENCL-NOT: long long
// CHECK-OPENCL: static int polypragma_jagged_rows_region0(
// CHECK-OPENCL: POLYPRAGMA_DATA_STEP(polypragma_row_pack_jagged_rows(pack_L, L[polypragma_row], polypragma_row - (0), 0, polypragma_row, n, sizeof(double), 1, polypragma_where));
// CHECK-OPENCL-NEXT: }
// CHECK-OPENCL-NEXT: POLYPRAGMA_DATA_STEP(polypragma_rows_cross_jagged_rows(bind_L.buffer, pack_L, 0, (n - 1), n, sizeof(double), bytes_L, 1, "L", polypragma_where));
// jagged_rows: a triangular matrix-vector product and row updates on rows malloc'ed one by one
#include "kernels.h"

static void kernel_jagged_rows(int n, int m, double **L, double **B, double **C, double **D, double *x,
                               double *y)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        y[i] = 0;
        for (int j = 0; j <= i; j++)
            y[i] += L[i][j] * x[j];
    }
    for (int i = 0; 2 * i < n; i++)
        for (int j = 0; j < m; j++)
            B[2 * i][j] = 0.5 * B[2 * i][j] + y[2 * i] * (j + 1);
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < m - 1; j++)
            C[i][j] = 0.25 * (C[i - 1][j] + C[i + 1][j] + C[i][j - 1] + C[i][j + 1]) + B[i][j];
    for (long long i = 0; i < n; i++)
        for (long long j = 0; j <= i; j++)
            D[i][j] = y[i] * (j + 1) - L[i][i - j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 20);
    int m = arg_size(argc, argv, 3, 25);
    double **L = malloc(sizeof(double *) * (size_t)n);
    double **B = malloc(sizeof(double *) * (size_t)n);
    double **C = malloc(sizeof(double *) * (size_t)n);
    double **D = malloc(sizeof(double *) * (size_t)n);
    double *x = alloc_doubles(n);
    double *y = alloc_doubles(n);

    rng_seed(seed);
    for (int i = 0; i < n; i++) {
        L[i] = alloc_doubles(i + 1);  /* exactly the triangle's row */
        init_array_1d(L[i], i + 1);
        B[i] = alloc_doubles(m + i % 3);  /* longer than the region touches */
        init_array_1d(B[i], m + i % 3);
        C[i] = alloc_doubles(m);
        init_array_1d(C[i], m);
        D[i] = alloc_doubles(i + 2);  /* one element past the triangle, never touched */
        init_array_1d(D[i], i + 2);
    }
    init_array_1d(x, n);

    kernel_jagged_rows(n, m, L, B, C, D, x, y);

    print_array_1d("y", y, n);
    for (int i = 0; i < n; i++) {
        print_array_1d("B", B[i], m + i % 3);
        print_array_1d("C", C[i], m);
        print_array_1d("D", D[i], i + 2);
    }
    for (int i = 0; i < n; i++) {
        free(L[i]);
        free(B[i]);
        free(C[i]);
        free(D[i]);
    }
    free(L);
    free(B);
    free(C);
    free(D);
    free(x);
    free(y);
    return 0;
}
