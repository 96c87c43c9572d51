// RUN: -DN=1 -DB=1 -- 1
// RUN: -DN=9 -DB=4 -- 2
// RUN: -DN=700 -DB=13 -- 3
// RUN: -DN=3000 -DB=64 -- 5
// covers: histogram, data-dependent-subscript-reduction, conditional-reduction, increment-reduction,
//         decrement-reduction, per-row-histogram
// Reductions on data: histograms (the element updated is chosen by the data, count[key[i]]++), and
// counts, sums and extremes under a condition on data (if (a[i] > 0.25) pos++).  Each loop runs in
// parallel on the GPU: every update of an element chosen by the data is atomic, and a conditional
// update of one element is accumulated by each thread, then by its block.  Integer results are exact
// in any order; the weighted histogram's sums change only their last bits.
#include <math.h>
#include "kernels.h"

#ifndef N
#define N 100
#endif
#ifndef B
#define B 8
#endif
#define ROWS 5

static int key[N];
static int v[N];
static double a[N];
static double w[N];
static int img[ROWS][N];
static int count[B];
static int signed_count[B];
static int twice[B];
static double weight[B];
static unsigned int hashed[B];
static int row_count[ROWS][B];
static long wide[B];
static int pos, tri, seen;
static double best, lowest_above;
static int total;

static void kernel_data(void)
{
#pragma scop
    for (int i = 0; i < N; i++)
        count[key[i]]++;
    for (int i = 0; i < N; i++)
        ++signed_count[key[i]];
    for (int i = 0; i < N; i++)
        if (key[i] > 1)
            signed_count[key[i] - 1]--;
    for (int i = 0; i < N; i++)
        twice[key[N - 1 - i]] = twice[key[N - 1 - i]] + 2;
    for (int i = 0; i < N; i++)
        weight[key[i]] += w[i];
    for (int i = 0; i < N; i++)
        hashed[key[i]] += (unsigned int)v[i] * 2654435761u;
    for (int i = 0; i < N; i++)
        wide[key[i]] -= (long)v[i] * 100000;
    for (int r = 0; r < ROWS; r++)
        for (int j = 0; j < N; j++)
            row_count[r][img[r][j]] += 1;
    for (int i = 0; i < N; i++)
        if (a[i] > 0.25)
            pos++;
    for (int i = 0; i < N; i++)
        if (v[i] % 3 == 0) {
            tri += v[i];
        }
    for (int i = 0; i < N; i++)
        if (a[i] < 0.5)
            best = fmax(best, a[i]);
    for (int i = 0; i < N; i++)
        if (w[i] > a[i])
            lowest_above = lowest_above < w[i] - a[i] ? lowest_above : w[i] - a[i];
    for (int i = 0; i < N; i++)
        if (key[i] == 0 && v[i] > 0)
            seen = seen > v[i] ? seen : v[i];
    for (int b = 0; b < B; b++)
        total += count[b] * (b + 1);
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_int_array(key, N, 0, B - 1);
    init_int_array(v, N, -1000, 1000);
    init_array_1d(a, N);
    init_array_range(w, N, 0.0, 2.0);
    init_int_array(&img[0][0], ROWS * N, 0, B - 1);
    init_int_array(count, B, 0, 3);
    fill_int_array(signed_count, B, 0);
    init_int_array(twice, B, -5, 5);
    init_array_range(weight, B, 0.0, 1.0);
    for (int b = 0; b < B; b++) {
        hashed[b] = 7u * (unsigned int)b;
        wide[b] = -3L * b;
    }
    fill_int_array(&row_count[0][0], ROWS * B, 1);
    pos = 2;
    tri = -7;
    seen = 0;
    best = -1.0;
    lowest_above = 10.0;
    total = 0;
    kernel_data();
    print_int_array_1d("count", count, B);
    print_int_array_1d("signed_count", signed_count, B);
    print_int_array_1d("twice", twice, B);
    print_array_1d("weight", weight, B);
    print_int_array_1d("row_count", &row_count[0][0], ROWS * B);
    for (int b = 0; b < B; b++)
        printf("hashed[%d] %u wide[%d] %ld\n", b, hashed[b], b, wide[b]);
    printf("pos %d tri %d seen %d total %d\n", pos, tri, seen, total);
    print_scalar("best", best);
    print_scalar("lowest_above", lowest_above);
    return 0;
}
// CHECK-DEFINES: -DN=700 -DB=13
// CHECK-OPENCL: __local int polypragma_block_count[13];
// CHECK-OPENCL: polypragma_atomic_add_int_local(&polypragma_block_count[key[
// CHECK-OPENCL: polypragma_atomic_add_int(&count[polypragma_e], polypragma_block_count[polypragma_e]);
// CHECK-OPENCL: if (a[{{.*}}] > 0.25) polypragma_reduction0 = polypragma_reduction0 + (1);
