// RUN: -DM=1 -DN=1 -- 1
// RUN: -DM=3 -DN=200 -- 2
// RUN: -DM=37 -DN=45 -- 4
// RUN: -DM=300 -DN=3 -- 6
// covers: parallel-reduction-rows, parallel-reduction-columns, reduction-loop-outer, short-parallel-loop
// Row and column sums of a matrix, with the summed loop inside and outside, and a matrix-vector product
// whose rows are summed in a loop of its own: a loop that is parallel only as a reduction is mapped where
// nothing else would be (the column sums with the summed loop outside update each element atomically).
#include "kernels.h"

#ifndef M
#define M 20
#endif
#ifndef N
#define N 30
#endif

static double A[M][N];
static double x[N];
static double rows[M];
static double rows_outer[M];
static double columns[N];
static double columns_inner[N];
static double product[M];

static void kernel_rows(void)
{
#pragma scop
    for (int i = 0; i < M; i++) {
        rows[i] = 0.0;
        for (int j = 0; j < N; j++)
            rows[i] += A[i][j];
    }
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            rows_outer[i] += A[i][j];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            columns[j] += A[i][j];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            columns_inner[j] = columns_inner[j] + A[i][j];
    for (int i = 0; i < M; i++) {
        double s = 0.5;
        for (int j = 0; j < N; j++)
            s += A[i][j] * x[j];
        product[i] = s;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_array_2d(&A[0][0], M, N);
    init_array_1d(x, N);
    for (int i = 0; i < M; i++)
        rows_outer[i] = i;
    for (int j = 0; j < N; j++) {
        columns[j] = 1.0;
        columns_inner[j] = -j;
    }
    kernel_rows();
    print_array_1d("rows", rows, M);
    print_array_1d("rows_outer", rows_outer, M);
    print_array_1d("columns", columns, N);
    print_array_1d("columns_inner", columns_inner, N);
    print_array_1d("product", product, M);
    return 0;
}
