// RUN: -- 1 1 1 1
// RUN: -- 2 13 17 4
// RUN: -- 3 48 60 8
// covers: integer-arrays, flat-pointer-linearised-subscripts (G[i*m + j]),
//         data-dependent conditions on int array values (cnt == 3 || ...),
//         conditional-operator, time-loop with ping-pong, local-in-loop-body-
//         without-loops (int cnt), iterator-values-in-computations
//         ((i * 7 + j * 3) % 5), casts ((double)), scalar-written-in-region
// int_stencil: Game-of-Life style integer cellular automaton on a torus-free
//              grid, followed by an integer checksum
#include "kernels.h"

static int kernel_life(int tsteps, int n, int m, int *G, int *T, double *W)
{
    int t, i, j;
    int live = 0;

#pragma scop
    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < m - 1; j++) {
                int cnt = G[(i - 1) * m + j - 1] + G[(i - 1) * m + j] + G[(i - 1) * m + j + 1]
                        + G[i * m + j - 1] + G[i * m + j + 1]
                        + G[(i + 1) * m + j - 1] + G[(i + 1) * m + j] + G[(i + 1) * m + j + 1];
                T[i * m + j] = (cnt == 3 || (cnt == 2 && G[i * m + j] == 1)) ? 1 : 0;
            }
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < m - 1; j++)
                G[i * m + j] = T[i * m + j];
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            W[i * m + j] = (double)(G[i * m + j] * ((i * 7 + j * 3) % 5)) / 4.0;
            live += G[i * m + j];
        }
#pragma endscop

    return live;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 30);
    int tsteps = arg_size(argc, argv, 4, 5);
    int *G = alloc_ints(n * m);
    int *T = alloc_ints(n * m);
    double *W = alloc_doubles(n * m);
    int live;

    rng_seed(seed);
    init_int_array(G, n * m, 0, 1);

    live = kernel_life(tsteps, n, m, G, T, W);

    print_int_array_2d("G", G, n, m);
    print_int_array_2d("T", T, n, m);
    print_array_2d("W", W, n, m);
    print_int_scalar("live", live);
    free(G);
    free(T);
    free(W);
    return 0;
}
