/* construct: a static inline function writing through its pointer parameter, called in a nest */
#include <stdio.h>
static inline void axpy(int n, double alpha, const double *x, double *y)
{
    for (int k = 0; k < n; k++)
        y[k] += alpha * x[k];
}
static void f(int n, double A[16][16], double x[16], double Y[16][16])
{
#pragma scop
    for (int i = 0; i < n; i++)
        axpy(n, A[i][i], x, Y[i]);
#pragma endscop
}
int main(void)
{
    double A[16][16], x[16], Y[16][16] = {{0}};
    for (int i = 0; i < 16; i++) { x[i] = i; for (int j = 0; j < 16; j++) A[i][j] = i + j; }
    f(16, A, x, Y);
    for (int i = 0; i < 16; i++) for (int j = 0; j < 16; j++) printf("%g\n", Y[i][j]);
    return 0;
}
