// RUN: -DN=1 -- 1
// RUN: -DN=23 -- 6
// RUN: -DN=60 -- 12
// covers: integer-arrays, fixed-size-global-arrays, conditional-operator
//         on array values (min of path lengths), macro-params-in-bounds
// floyd_warshall: all-pairs shortest path lengths
#include "kernels.h"

#ifndef N
#define N 40
#endif

static int path[N][N];

static void kernel_floyd_warshall(void)
{
    int i, j, k;

#pragma scop
    for (k = 0; k < N; k++)
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++)
                path[i][j] = path[i][j] < path[i][k] + path[k][j]
                                 ? path[i][j]
                                 : path[i][k] + path[k][j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int i, j;

    rng_seed(seed);
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            /* sparse-ish graph: missing edges get a large but safe weight */
            int w = rng_int(1, 100);
            path[i][j] = (rng_int(0, 6) == 0) ? 100000 : w;
            if (i == j)
                path[i][j] = 0;
        }

    kernel_floyd_warshall();

    print_int_array_2d("path", &path[0][0], N, N);
    return 0;
}
