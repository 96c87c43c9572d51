// RUN: -- 1 1 1 1
// RUN: -- 2 7 13 5
// RUN: -- 3 70 45 50
// RUN: -- 4 33 65 1
// Loop nests as people write them: a product whose every element sums into a local accumulator, and a
// row sum kept in a local.  The parallel loops and the loop of the sum are two bands (the reset and
// the store stand beside the sum's loop); the GPU stage joins them into one (polypragma/gpu/extend.py),
// so that the sum's loop is tiled for shared memory as a matrix product's k: A and B in shared tiles,
// the accumulators in registers, A's rows read along x in the row sum.
// CHECK-CUDA: __shared__ double shared_A[
// CHECK-CUDA: __shared__ double shared_B[
// covers: local-accumulator, vla-params, imperfect-nest, register-tile
// local_accumulators: C = A B with a local sum per element, y = A x + 1 with a local sum per row
#include "kernels.h"

static void kernel_local_accumulators(int n, int m, int p, double A[n][p], double B[p][m], double C[n][m],
                                      double x[p], double y[n])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            double sum = 0.0;
            for (int k = 0; k < p; k++)
                sum += A[i][k] * B[k][j];
            C[i][j] = sum;
        }
    for (int i = 0; i < n; i++) {
        double s = 1.0;
        for (int k = 0; k < p; k++)
            s += A[i][k] * x[k];
        y[i] = s;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    int p = arg_size(argc, argv, 4, 25);
    double (*A)[p] = malloc(sizeof(double[n][p]));
    double (*B)[m] = malloc(sizeof(double[p][m]));
    double (*C)[m] = malloc(sizeof(double[n][m]));
    double *x = malloc(sizeof(double[p]));
    double *y = malloc(sizeof(double[n]));

    rng_seed(seed);
    init_array_2d(&A[0][0], n, p);
    init_array_2d(&B[0][0], p, m);
    init_array_1d(x, p);

    kernel_local_accumulators(n, m, p, A, B, C, x, y);

    print_array_2d("C", &C[0][0], n, m);
    print_array_1d("y", y, n);
    free(A);
    free(B);
    free(C);
    free(x);
    free(y);
    return 0;
}
