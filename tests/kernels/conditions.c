// RUN: -DNX=1 -DNY=2 -DNZ=1 -- 1
// RUN: -DNX=7 -DNY=13 -DNZ=5 -- 2
// RUN: -DNX=24 -DNY=20 -DNZ=22 -- 3
// covers: affine-if-conditions with && || ! == != and % by constant,
//         if/else and else-if chains, 3d-arrays (fixed-size globals),
//         casts ((double)i, (int)), floor/ceil/fabs calls, integer-array
//         written from doubles, iterator-values-in-computations,
//         conditional-operator in expressions
// conditions: guarded statements inside a 3-D and a 2-D nest
#include "kernels.h"

#ifndef NX
#define NX 12
#endif
#ifndef NY
#define NY 10
#endif
#ifndef NZ
#define NZ 8
#endif

static double G[NX][NY][NZ];
static double H[NX][NY][NZ];
static int K[NX][NY];

static void kernel_conditions(void)
{
    int i, j, k;

#pragma scop
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++)
            for (k = 0; k < NZ; k++) {
                if (i == j || k == 0)
                    H[i][j][k] = G[i][j][k] * 2.0;
                else if (!(i < k) && j != k)
                    H[i][j][k] = G[i][j][k] - (double)(i + j + k) / NX;
                else
                    H[i][j][k] = fabs(G[i][j][k] - 0.5);
                if (i % 2 == 0 && (j + k) % 3 != 1)
                    H[i][j][k] += 1.0;
                if (!(k % 2 == 1) || i + j >= NY)
                    H[i][j][k] *= 0.75;
            }

    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) {
            K[i][j] = (int)floor(G[i][j][0] * 10.0) + (int)ceil(H[i][j][NZ - 1]);
            if ((i + 2 * j) % 4 == 1)
                K[i][j] = -K[i][j];
            else if (i >= j && j > 0)
                K[i][j] = K[i][j] * 2 + (i > j ? 1 : 0);
            if (i != 0 && (i - j) % 3 == 0)
                K[i][j] += 100;
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_array_3d(&G[0][0][0], NX, NY, NZ);

    kernel_conditions();

    print_array_3d("H", &H[0][0][0], NX, NY, NZ);
    print_int_array_2d("K", &K[0][0], NX, NY);
    return 0;
}
