// RUN: -- 1 1 0
// RUN: -- 2 9 4
// RUN: -- 3 40 0
// RUN: -- 4 33 32
// Statements whose dependences inside an iteration of their outer loops all leave from (or arrive at)
// one hyperplane of their domain: the row and column k of a closure, the pivot row and column p of an
// elimination step, the element p every instance reads.  Each is scheduled as the pieces on either
// side of the hyperplane and on it (polypragma/index_sets.py), and the pieces' loops run in parallel: one
// launch of each piece per k, where one schedule for the whole statement runs a wavefront (a launch
// per anti-diagonal) or the loop in sequence.
// CHECK-CUDA: polypragma_index_set_split_region0_kernel1<<<
// CHECK-CUDA: polypragma_index_set_split_region1_kernel1<<<
// CHECK-CUDA: polypragma_index_set_split_region2_kernel1<<<
// covers: index-set-splitting, vla-params, integer-arrays, parameter-subscripts
// index_set_split: Warshall's transitive closure, one elimination step with pivot p, x += x[p]
#include "kernels.h"

static void closure(int n, int R[n][n])
{
#pragma scop
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                R[i][j] = R[i][j] | (R[i][k] & R[k][j]);
#pragma endscop
}

static void elimination_step(int n, int p, double B[n][n])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            B[i][j] = B[i][j] - 0.25 * B[i][p] * B[p][j];
#pragma endscop
}

static void add_element(int n, int p, double x[n])
{
#pragma scop
    for (int i = 0; i < n; i++)
        x[i] = x[i] + 0.5 * x[p];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int p = arg_int(argc, argv, 3, 0);
    if (p >= n)
        p = n - 1;
    int (*R)[n] = malloc(sizeof(int[n][n]));
    double (*B)[n] = malloc(sizeof(double[n][n]));
    double *x = alloc_doubles(n);

    rng_seed(seed);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            R[i][j] = i == j || rng_int(0, 9) == 0;
    init_array_2d(&B[0][0], n, n);
    init_array_1d(x, n);

    closure(n, R);
    elimination_step(n, p, B);
    add_element(n, p, x);

    print_int_array_2d("R", &R[0][0], n, n);
    print_array_2d("B", &B[0][0], n, n);
    print_array_1d("x", x, n);
    free(R);
    free(B);
    free(x);
    return 0;
}
