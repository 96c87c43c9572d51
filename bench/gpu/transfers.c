// The copies polypragma's generated code makes, measured on one array (1 GiB by default): a region that
// reads and writes every element of A, so A is copied in and out; called twice, the second call's
// profile (POLYPRAGMA_PROFILE=1) times the copies with the device buffer already in the pool.
//     transfers ELEMENTS
#include <stdio.h>
#include <stdlib.h>

static void touch(long n, double *A)
{
#pragma scop
    for (long i = 0; i < n; i++)
        A[i] = 0.5 * A[i] + 1.0;
#pragma endscop
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : (1L << 30) / (long)sizeof(double);
    double *A = malloc(sizeof(double) * (size_t)n);
    if (A == NULL)
        return 2;
    for (long i = 0; i < n; i++)
        A[i] = (double)(i % 1000);
    touch(n, A);
    touch(n, A);
    printf("%.6f %.6f\n", A[0], A[n - 1]);
    free(A);
    return 0;
}
