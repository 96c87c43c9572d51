// RUN: -- 1 1 1 1
// RUN: -- 2 7 13 5
// RUN: -- 3 70 45 50
// RUN: -- 4 33 65 1
// A similarity of the rows of X and Y: three local accumulators in one loop of k (the dot product and
// the two squared norms), one store of all three.  isl schedules the three sums as nests of k side by
// side below the parallel band; the GPU stage joins all of them to it (polypragma/gpu/extend.py,
// checked against the dependences), so k is tiled for shared memory as a matrix product's: X and Y
// in shared tiles, the sums in registers, the partial tiles padded but for the store.
// CHECK-CUDA: __shared__ double shared_X[
// CHECK-CUDA: __shared__ double shared_Y[
// covers: local-accumulator, several-accumulators, vla-params, imperfect-nest, register-tile
#include "kernels.h"

static void kernel_similarity(int n, int m, int p, double X[n][p], double Y[m][p], double S[n][m])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            double dot = 0.0, xx = 0.0, yy = 0.0;
            for (int k = 0; k < p; k++) {
                dot += X[i][k] * Y[j][k];
                xx += X[i][k] * X[i][k];
                yy += Y[j][k] * Y[j][k];
            }
            S[i][j] = dot / (1.0 + xx + yy);
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    int p = arg_size(argc, argv, 4, 25);
    double (*X)[p] = malloc(sizeof(double[n][p]));
    double (*Y)[p] = malloc(sizeof(double[m][p]));
    double (*S)[m] = malloc(sizeof(double[n][m]));

    rng_seed(seed);
    init_array_2d(&X[0][0], n, p);
    init_array_2d(&Y[0][0], m, p);

    kernel_similarity(n, m, p, X, Y, S);

    print_array_2d("S", &S[0][0], n, m);
    free(X);
    free(Y);
    free(S);
    return 0;
}
