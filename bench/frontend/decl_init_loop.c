/* construct: locals declared with an initialiser inside a loop body, forward substitution */
#include <stdio.h>
static void diff(int n, double a[60], double b[60])
{
#pragma scop
    for (int i = 1; i < n; i++) {
        double prev = a[i - 1];
        double cur = a[i];
        const int k = 2;
        b[i] = k * (cur - prev);
    }
#pragma endscop
}
int main(void)
{
    double a[60], b[60];
    for (int i = 0; i < 60; i++) { a[i] = i * i % 17; b[i] = 0; }
    diff(60, a, b);
    for (int i = 0; i < 60; i++) printf("%g\n", b[i]);
    return 0;
}
