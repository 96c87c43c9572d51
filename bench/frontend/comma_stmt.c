/* construct: a comma expression as a statement */
#include <stdio.h>
static void pair(int n, int a[70], int b[70])
{
#pragma scop
    for (int i = 0; i < n; i++)
        a[i] = i, b[i] = a[i] * 3;
#pragma endscop
}
int main(void)
{
    int a[70], b[70];
    pair(70, a, b);
    for (int i = 0; i < 70; i++)
        printf("%d %d\n", a[i], b[i]);
    return 0;
}
