/* construct: arrays of pointers (double **) and long long iterators, sizeof */
#include <stdio.h>
#include <stdlib.h>
static void f(long long n, double **A, double *s)
{
#pragma scop
    for (long long i = 0; i < n; i++) {
        s[i] = 0;
        for (long long j = 0; j < n; j++)
            s[i] += A[i][j] * (double)sizeof(double);
    }
#pragma endscop
}
int main(void)
{
    int n = 12;
    double **A = malloc(n * sizeof(double *)), s[12];
    for (int i = 0; i < n; i++) { A[i] = malloc(n * sizeof(double)); for (int j = 0; j < n; j++) A[i][j] = i - j; }
    f(n, A, s);
    for (int i = 0; i < n; i++) printf("%g\n", s[i]);
    return 0;
}
