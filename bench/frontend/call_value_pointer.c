/* construct: calls to functions returning a number that read through pointer parameters (a dot product per row, a norm in an initialiser) */
#include <stdio.h>
static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += a[k] * b[k];
    return s;
}
static double norm2(int n, const double *a)
{
    return dot(n, a, a);
}
static void residual(int n, double A[16][16], double x[16], double b[16], double r[16])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        double scale = 1.0 + norm2(n, A[i]);
        r[i] = (b[i] - dot(n, A[i], x)) / scale;
    }
#pragma endscop
}
int main(void)
{
    double A[16][16], x[16], b[16], r[16];
    for (int i = 0; i < 16; i++) {
        x[i] = i % 5 - 2;
        b[i] = i * 0.5;
        for (int j = 0; j < 16; j++)
            A[i][j] = (i + 3 * j) % 7 - 3;
    }
    residual(16, A, x, b, r);
    for (int i = 0; i < 16; i++)
        printf("%.17g\n", r[i]);
    return 0;
}
