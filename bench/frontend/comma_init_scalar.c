/* construct: a comma expression that also sets a scalar in the for initialisation */
#include <stdio.h>
static void total(int n, int a[100], int s[1])
{
    int i, acc;
#pragma scop
    for (i = 0, acc = 0; i < n; i++)
        acc += a[i];
    s[0] = acc;
#pragma endscop
}
int main(void)
{
    int a[100], s[1];
    for (int i = 0; i < 100; i++)
        a[i] = i % 10;
    total(100, a, s);
    printf("%d\n", s[0]);
    return 0;
}
