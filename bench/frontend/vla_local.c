/* construct: a variable-length array declared at the top of the region */
#include <stdio.h>
static void f(int n, double a[50], double b[50])
{
#pragma scop
    double tmp[n];
    for (int i = 0; i < n; i++)
        tmp[i] = a[i] * 2;
    for (int i = 1; i < n; i++)
        b[i] = tmp[i] - tmp[i - 1];
#pragma endscop
}
int main(void)
{
    double a[50], b[50] = {0};
    for (int i = 0; i < 50; i++) a[i] = i * i % 13;
    f(50, a, b);
    for (int i = 0; i < 50; i++) printf("%g\n", b[i]);
    return 0;
}
