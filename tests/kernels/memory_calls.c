// RUN: -DN=1 -DM=1 -- 1
// RUN: -DN=7 -DM=5 -- 2
// RUN: -DN=130 -DM=67 -- 3
// covers: memcpy-rows, memcpy-whole-array, memcpy-offset, memset-zero, memset-bytes, sizeof-expression,
//         memcpy-time-loop, memcpy-left-as-call, memmove-within-a-row
// memcpy, memmove and memset of whole elements are the loops they mean, so they run in kernels: a row copied
// into a shifted row, a whole array copied each time step of a stencil (its count spelled as the
// product of the extents, and as sizeof of the array), rows copied from an offset (&A[i][1], x + 1),
// arrays cleared with memset(.., 0, ..), a byte array set to a character, a history moved up by one
// element each time step and rows moved up by one (memmove: loops that run away from the overlap).  A memcpy across the end of
// a row, and a memset of a non-zero byte into ints, are left as calls: region 1 stays on the CPU for
// the GPU targets (a warning says why), and prints the same.
#include <string.h>
#include "kernels.h"

#ifndef N
#define N 64
#endif
#ifndef M
#define M 32
#endif
#define STEPS 3

typedef double real;

static real A[N][M];
static real B[N][M];
static double grid[N][M];
static double next[N][M];
static double x[N + 1];
static double y[N + 1];
static int hits[N][M];
static long total[N];
static char tag[N];
static unsigned char mask[M];
static int filled[N][M];
static double wide[2][M];
static double pair[2][M];

static void kernel_copies(void)
{
#pragma scop
    for (int i = 1; i < N; i++)
        memcpy(B[i], A[i - 1], M * sizeof(real));
    memcpy(B[0], A[N - 1], sizeof(B[0][0]) * M);
    for (int t = 0; t < STEPS; t++) {
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < M - 1; j++)
                next[i][j] = 0.25 * (grid[i - 1][j] + grid[i + 1][j] + grid[i][j - 1] + grid[i][j + 1]);
        memcpy(grid, next, N * M * sizeof(double));
        memcpy(next, grid, sizeof next);
        memmove(&x[1], &x[0], N * sizeof(double));
        x[0] = grid[N / 2][M / 2];
    }
    for (int i = 0; i < N; i++) {
        memmove(A[i] + 1, A[i], (M - 1) * sizeof(real));
        memcpy(&A[i][1], &B[i][0], (M - 1) * sizeof *B[i]);
    }
    memcpy(x + 1, y, N * sizeof(x[0]));
    memset(hits, 0, sizeof(int) * N * M);
    memset(total, 0, N * sizeof(long));
    memset(tag, 'p', N);
    memset(mask, 255, M * sizeof(unsigned char));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            hits[i][j] += (A[i][j] > 0.5) + (B[i][j] > 0.5) + mask[j] % 7;
            total[i] += hits[i][j] + tag[i];
        }
#pragma endscop
}

static void kernel_left(void)
{
#pragma scop
    memset(filled, 1, N * M * sizeof(int));
    memcpy(wide[0], &pair[0][0], 2 * M * sizeof(double));
    for (int i = 0; i < N; i++)
        filled[i][i % M] += (int)(10.0 * wide[i % 2][i % M]);
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_array_2d(&A[0][0], N, M);
    init_array_2d(&B[0][0], N, M);
    init_array_2d(&grid[0][0], N, M);
    init_array_2d(&next[0][0], N, M);
    init_array_1d(x, N + 1);
    init_array_2d(&pair[0][0], 2, M);
    init_array_1d(y, N + 1);
    init_int_array(&hits[0][0], N * M, -3, 3);
    for (int i = 0; i < N; i++) {
        total[i] = -i;
        tag[i] = 'a';
    }
    kernel_copies();
    kernel_left();
    print_array_2d("A", &A[0][0], N, M);
    print_array_2d("B", &B[0][0], N, M);
    print_array_2d("grid", &grid[0][0], N, M);
    print_array_2d("next", &next[0][0], N, M);
    print_array_1d("x", x, N + 1);
    print_int_array_2d("hits", &hits[0][0], N, M);
    print_int_array_2d("filled", &filled[0][0], N, M);
    for (int i = 0; i < N; i++)
        printf("total[%d] %ld tag %c\n", i, total[i], tag[i]);
    for (int j = 0; j < M; j++)
        printf("mask[%d] %u\n", j, mask[j]);
    print_array_2d("wide", &wide[0][0], 2, M);
    return 0;
}
// CHECK-DEFINES: -DN=130 -DM=67
// CHECK-OPENCL: B[{{.*}}] = A[{{.*}}];  /* {{.*}}memory_calls.c:44 */
// CHECK-OPENCL: mask[t0] = (unsigned char) 255;
// CHECK-OPENCL: x[t0 + 1] = y[t0];
