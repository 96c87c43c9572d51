/* construct: size_t and long iterators, casts */
#include <stdio.h>
#include <stddef.h>
static void f(size_t n, long m, double a[64], double b[64])
{
#pragma scop
    for (size_t i = 0; i < n; i++)
        a[i] = (double)i / 2;
    for (long j = 1; j < m; j++)
        b[j] = a[j - 1] + (double)(j % 3);
#pragma endscop
}
int main(void)
{
    double a[64], b[64] = {0};
    f(64, 64, a, b);
    for (int i = 0; i < 64; i++) printf("%g %g\n", a[i], b[i]);
    return 0;
}
