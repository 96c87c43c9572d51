/* construct: math functions of the C library without a body in the file (rounding, gamma, ldexp) */
#include <stdio.h>
#include <math.h>
static void f(int n, double a[40], long r[40], double g[40])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        r[i] = lround(a[i] * 2.5) + labs(i - 20);
        g[i] = tgamma(fabs(a[i]) / 4 + 1) + ldexp(a[i], i % 4) + rint(a[i]);
    }
#pragma endscop
}
int main(void)
{
    double a[40], g[40];
    long r[40];
    for (int i = 0; i < 40; i++)
        a[i] = i * 0.3 - 5;
    f(40, a, r, g);
    for (int i = 0; i < 40; i++)
        printf("%ld %.12g\n", r[i], g[i]);
    return 0;
}
