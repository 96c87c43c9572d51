/* construct: a counter incremented in a subscript (stream compaction) */
#include <stdio.h>
static int f(int n, int a[64], int b[64])
{
    int k = 0;
#pragma scop
    for (int i = 0; i < n; i++)
        if (a[i] % 2)
            b[k++] = a[i];
#pragma endscop
    return k;
}
int main(void)
{
    int a[64], b[64] = {0};
    for (int i = 0; i < 64; i++) a[i] = i * 5 % 11;
    printf("%d\n", f(64, a, b));
    for (int i = 0; i < 64; i++) printf("%d\n", b[i]);
    return 0;
}
