// RUN: -- 1 1 1
// RUN: -- 2 37 5
// RUN: -- 3 300 20
// covers: flat-pointer (1-D heap arrays), time-loop (t++), stencil,
//         pre-increment (++i), sequence-of-nests inside a loop,
//         integer-params-in-bounds (n - 1)
// jacobi_1d: 3-point Jacobi stencil, ping-pong between A and B
#include "kernels.h"

static void kernel_jacobi_1d(int tsteps, int n, double *A, double *B)
{
    int t, i;

#pragma scop
    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; ++i)
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
        for (i = 1; i < n - 1; ++i)
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 100);
    int tsteps = arg_size(argc, argv, 3, 10);
    double *A = alloc_doubles(n);
    double *B = alloc_doubles(n);

    rng_seed(seed);
    init_array_1d(A, n);
    init_array_1d(B, n);

    kernel_jacobi_1d(tsteps, n, A, B);

    print_array_1d("A", A, n);
    print_array_1d("B", B, n);
    free(A);
    free(B);
    return 0;
}
