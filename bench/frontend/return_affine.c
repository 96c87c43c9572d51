/* construct: return under an affine condition */
#include <stdio.h>
static int upto(int n, int stop, int a[60])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        if (i == stop)
            return 1;
        a[i] = 2 * i;
    }
#pragma endscop
    return 0;
}
int main(void)
{
    int a[60];
    for (int i = 0; i < 60; i++)
        a[i] = -1;
    int r = upto(60, 41, a);
    printf("%d\n", r);
    for (int i = 0; i < 60; i++)
        printf("%d\n", a[i]);
    return 0;
}
