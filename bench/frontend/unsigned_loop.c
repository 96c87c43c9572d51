/* construct: unsigned iterator and bound */
#include <stdio.h>
static void halve(unsigned n, int a[128])
{
#pragma scop
    for (unsigned i = 1; i < n; i++)
        a[i] = a[i] / 2 + a[i - 1];
#pragma endscop
}
int main(void)
{
    int a[128];
    for (int i = 0; i < 128; i++)
        a[i] = (i * 37) % 101;
    halve(128, a);
    for (int i = 0; i < 128; i++)
        printf("%d\n", a[i]);
    return 0;
}
