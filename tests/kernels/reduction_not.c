// RUN: -DN=1 -- 1
// RUN: -DN=8 -- 2
// RUN: -DN=500 -- 3
// covers: not-a-reduction, prefix-sum, accumulator-read-in-loop, non-associative-update, reset-in-loop
// Accumulations that are not reductions, which must keep their order: a running sum read by another
// statement in the loop (a prefix sum), an update that is no associative operator (x = 2x + e), an
// accumulator reset inside its own loop, a sum that reads its own array elsewhere (a recurrence), and an
// integer accumulator of floating-point values (C rounds at each step).
#include "kernels.h"

#ifndef N
#define N 100
#endif

static double a[N];
static double prefix[N];
static double r[N + 1];
static double s, t, u;
static int truncated;

static void prefix_sum(void)
{
#pragma scop
    for (int i = 0; i < N; i++) {
        s += a[i];
        prefix[i] = s;
    }
#pragma endscop
}

static void doubling(void)
{
#pragma scop
    for (int i = 0; i < N; i++)
        t = t * 2.0 + a[i];
#pragma endscop
}

static void reset_inside(void)
{
#pragma scop
    for (int i = 0; i < N; i++) {
        if (i == N / 2)
            u = 1.0;
        u += a[i];
    }
#pragma endscop
}

static void recurrence(void)
{
#pragma scop
    for (int i = 1; i <= N; i++)
        r[i] += r[i - 1] * 0.5;
#pragma endscop
}

static void rounded_steps(void)
{
#pragma scop
    for (int i = 0; i < N; i++)
        truncated += a[i] * 3.0;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_array_1d(a, N);
    init_array_1d(r, N + 1);
    s = 1.0;
    t = 0.0;
    u = 2.0;
    truncated = 0;
    prefix_sum();
    doubling();
    reset_inside();
    recurrence();
    rounded_steps();
    print_scalar("s", s);
    print_scalar("t", t);
    print_scalar("u", u);
    print_array_1d("prefix", prefix, N);
    print_array_1d("r", r, N + 1);
    print_int_scalar("truncated", truncated);
    return 0;
}
// CHECK-DEFINES: -DN=500
// CHECK-CUDA: polypragma_reduction_not_region0_kernel0(
// CHECK-CUDA-NOT: polypragma_reduction0
// CHECK-CUDA-NOT: polypragma_atomic_
