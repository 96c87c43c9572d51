/* construct: declarations of several scalars at the top of the region, reductions into them */
#include <stdio.h>
static void f(int n, double a[64], double out[2])
{
#pragma scop
    double lo = a[0], hi = a[0];
    for (int i = 1; i < n; i++) {
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    out[0] = lo;
    out[1] = hi;
#pragma endscop
}
int main(void)
{
    double a[64], out[2];
    for (int i = 0; i < 64; i++) a[i] = (i * 37) % 64 - 20;
    f(64, a, out);
    printf("%g %g\n", out[0], out[1]);
    return 0;
}
