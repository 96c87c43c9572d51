// RUN: -- 1 1
// RUN: -- 2 17
// RUN: -- 3 300
// covers: scalar temporaries written under a condition on data (may-writes), whose values are seen after
//         the region: 't', written in every iteration and then maybe again, gets a copy per iteration
//         of the parallel loop, and the last iteration's copy goes back to 't'; 'u', written only under
//         the condition, does not (no copy would hold the value of the iteration that wrote it last)
// may_write_temporaries: a conditional maximum-like scan and a blended copy
#include "kernels.h"

static double kernel_may_write_temporaries(int n, double A[n], double B[n], double C[n])
{
    double t = -1.0, u = -1.0;
#pragma scop
    for (int i = 0; i < n; i++) {
        if (A[i] > 0.5)
            u = A[i];
        B[i] = 2 * A[i];
    }
    for (int i = 0; i < n; i++) {
        t = A[i] * 0.5;
        if (A[i] > 0.25)
            t = t + B[i];
        C[i] = t;
    }
#pragma endscop
    return t + u;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double *A = alloc_doubles(n);
    double *B = alloc_doubles(n);
    double *C = alloc_doubles(n);

    rng_seed(seed);
    init_array_1d(A, n);

    double last = kernel_may_write_temporaries(n, A, B, C);

    print_array_1d("B", B, n);
    print_array_1d("C", C, n);
    print_scalar("last", last);
    free(A);
    free(B);
    free(C);
    return 0;
}
