/* construct: continue under a condition on data, in the middle of a body */
#include <stdio.h>
static void f(int n, int a[50], int b[50], int c[50])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        b[i] = a[i] * 2;
        if (a[i] % 3 == 0)
            continue;
        c[i] = b[i] + 1;
    }
#pragma endscop
}
int main(void)
{
    int a[50], b[50] = {0}, c[50] = {0};
    for (int i = 0; i < 50; i++) a[i] = i * 7 % 11;
    f(50, a, b, c);
    for (int i = 0; i < 50; i++) printf("%d %d\n", b[i], c[i]);
    return 0;
}
