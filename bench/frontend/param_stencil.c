/* construct: time-iterated stencil on flat pointers with linearised subscripts */
#include <stdio.h>
#include <stdlib.h>
static void jacobi(int T, int n, double *A, double *B)
{
#pragma scop
    for (int t = 0; t < T; t++) {
        for (int i = 1; i < n - 1; i++)
            B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
        for (int i = 1; i < n - 1; i++)
            A[i] = B[i];
    }
#pragma endscop
}
int main(void)
{
    int n = 60;
    double *A = malloc(n * sizeof(double)), *B = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        A[i] = B[i] = (i % 5) * 1.5;
    jacobi(8, n, A, B);
    for (int i = 0; i < n; i++)
        printf("%.9f\n", A[i]);
    free(A);
    free(B);
    return 0;
}
