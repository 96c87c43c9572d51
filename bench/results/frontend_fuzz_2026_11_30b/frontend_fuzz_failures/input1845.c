// RUN: -DM=1 -DN=1 -- 1
// RUN: -DM=3 -DN=200 -- 2
// RUN: -DM=37 -DN=45 -- 4
// RUN: -DM=300 -DN=3 -- 6
// covers: parallel-reduction-rows, parallel-reduction-columns, reduction-loop-outer, short-parallel-loop,
//         anti-diagonal-sums, atomic-updates
// Row and column sums of a matrix, with the summed loop inside and outside, and a matrix-vector product
// whose rows are summed in a loop of its own: a loop that is parallel only as a reduction is mapped where
// nothing else would be (the sums of the elements of each parity of i + j have no parallel loop but as
// reductions, and update two elements: each update is atomic).
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
static double diagonals[M + N];
static double parity[2];

static void (kernel_rowsvoid)
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
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            diagonals[i + j] += A[i][j];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            parity[(i + j) % 2] += A[i][j];
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
    for (int d = 0; d < M + N; d++)
        diagonals[d] = 0.25 * d;
    parity[0] = 1.5;
    parity[1] = -2.0;
    kernel_rows();
    print_array_1d("rows", rows, M);
    print_array_1d("rows_outer", rows_outer, M);
    print_array_1d("columns", columns, N);
    print_array_1d("columns_inner", columns_inner, N);
    print_array_1d("product", product, M);
    print_array_1d("diagonals", diagonals, M + N);
    print_array_1d("parity", parity, 2);
    return 0;
}
