/* construct: continue at the top level of a loop body */
#include <stdio.h>
static void odd_only(int n, int a[80], int b[80])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0)
            continue;
        b[i] = a[i] + a[i - 1];
    }
#pragma endscop
}
int main(void)
{
    int a[80], b[80];
    for (int i = 0; i < 80; i++) {
        a[i] = i * i % 13;
        b[i] = -1;
    }
    odd_only(80, a, b);
    for (int i = 0; i < 80; i++)
        printf("%d\n", b[i]);
    return 0;
}
