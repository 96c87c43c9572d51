/* construct: return inside a loop under a condition on data */
#include <stdio.h>
static int check(int n, int a[60], int b[60])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        if (a[i] > 50)
            return i;
        b[i] = a[i] * 2;
    }
#pragma endscop
    return -1;
}
int main(void)
{
    int a[60], b[60];
    for (int i = 0; i < 60; i++) {
        a[i] = (i * 11) % 53;
        b[i] = 0;
    }
    printf("%d\n", check(60, a, b));
    for (int i = 0; i < 60; i++)
        printf("%d\n", b[i]);
    return 0;
}
