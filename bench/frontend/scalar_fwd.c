/* construct: a scalar of the function written then read in the region, read after it */
#include <stdio.h>
static double f(int n, double a[50], double b[50])
{
    double t = 0;
#pragma scop
    for (int i = 0; i < n; i++) {
        t = a[i] * 2;
        b[i] = t + 1;
    }
#pragma endscop
    return t;
}
int main(void)
{
    double a[50], b[50];
    for (int i = 0; i < 50; i++) a[i] = i % 7;
    printf("%g\n", f(50, a, b));
    for (int i = 0; i < 50; i++) printf("%g\n", b[i]);
    return 0;
}
