/* construct: integer division and modulo by constants in subscripts */
#include <stdio.h>
static void pack(int n, int a[128], int b[64])
{
#pragma scop
    for (int i = 0; i < n; i++)
        b[i / 2] += a[i] * (i % 2 == 0 ? 1 : -1);
#pragma endscop
}
int main(void)
{
    int a[128], b[64];
    for (int i = 0; i < 128; i++)
        a[i] = i * 3 % 17;
    for (int i = 0; i < 64; i++)
        b[i] = 0;
    pack(128, a, b);
    for (int i = 0; i < 64; i++)
        printf("%d\n", b[i]);
    return 0;
}
