/* construct: loop iterator read after its loop */
#include <stdio.h>
static void last(int n, int a[50], int r[1])
{
    int i;
#pragma scop
    for (i = 0; i < n; i++)
        a[i] = i;
    r[0] = i;
#pragma endscop
}
int main(void)
{
    int a[50], r[1];
    last(43, a, r);
    printf("%d\n", r[0]);
    for (int i = 0; i < 43; i++)
        printf("%d\n", a[i]);
    return 0;
}
