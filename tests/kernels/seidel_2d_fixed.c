// RUN: -DN=13 -DTSTEPS=3 -- 1
// RUN: -DN=3 -DTSTEPS=1 -- 2
// covers: fixed-size-global-arrays (sizes from macros, no parameter at all),
//         in-place 9-point stencil (loop-carried dependences in every dimension),
//         time-loop, checksum output
// seidel_2d_fixed: Gauss-Seidel sweeps as Pluto's test suite writes them (test/seidel.c: sizes
//                  as macros, a global a[N][N]; T is TSTEPS here, as nvcc's headers use T as a
//                  template parameter).  Kept for compile time (issue 16): without any parameter
//                  polypragma needed 2.6 s for cuda at N=13, TSTEPS=3 and 6.3 s at N=100,
//                  TSTEPS=100 (bench/results/compile_time_before.md).  Small sizes: PoCL needs
//                  14 s for the opencl test's wrapping tiles already at N=13.
// Expected lines (tests/test_checks.py): the c target's loops are rescheduled into a wavefront
// (the column index combines all three loops), with constant bounds: no parameter is left.
// CHECK-C: polypragma: region 0 (lines {{[0-9]+}}-{{[0-9]+}}) */
// CHECK-C-NEXT: {
// CHECK-C-NEXT: for (int c0 = {{[0-9]+}}; c0 <= {{[0-9]+}}; ++c0) {
// CHECK-C-NEXT: for (int c1 = {{.*}}; ++c1) {
// CHECK-C-NEXT: for (int c2 = {{.*}}; ++c2) {
// CHECK-C-NEXT: #line {{[0-9]+}} "{{.*}}seidel_2d_fixed.c"
// CHECK-C-NEXT: a[c2][(c0 - {{[0-9]+}} * c1 - {{[0-9]+}} * c2)] = (a[c2 - 1][(c0 - {{[0-9]+}} * c1 - {{[0-9]+}} * c2) - 1] +
// CHECK-C-NOT: polypragma_seidel_2d_fixed_region0
#include "kernels.h"

/* Pluto's sizes are 2000 and 1000 (8 s to compile for cuda); the defaults are the first RUN line's, for
   the tests that compile every corpus kernel without its -D options */
#ifndef N
#define N 13
#endif
#ifndef TSTEPS
#define TSTEPS 3
#endif

static double a[N][N];

static void kernel_seidel_2d_fixed(void)
{
    int t, i, j;

#pragma scop
    for (t = 0; t <= TSTEPS - 1; t++)
        for (i = 1; i <= N - 2; i++)
            for (j = 1; j <= N - 2; j++)
                a[i][j] = (a[i - 1][j - 1] + a[i - 1][j] + a[i - 1][j + 1]
                           + a[i][j - 1] + a[i][j] + a[i][j + 1]
                           + a[i + 1][j - 1] + a[i + 1][j] + a[i + 1][j + 1]) / 9.0;
#pragma endscop
}

int main(int argc, char **argv)
{
    int i, j;
    double sum = 0.0, weighted = 0.0;

    rng_seed(arg_int(argc, argv, 1, 1));
    init_array_2d(&a[0][0], N, N);

    kernel_seidel_2d_fixed();

    // a checksum and one row rather than every element, as for a large N
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            sum += a[i][j];
            weighted += a[i][j] * (double)((i * N + j) % 17 + 1);
        }
    printf("a: sum %.17g, weighted %.17g\n", sum, weighted);
    print_array_1d("a[N/2]", a[N / 2], N);
    return 0;
}
