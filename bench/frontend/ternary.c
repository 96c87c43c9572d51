/* construct: conditional expressions in statements */
#include <stdio.h>
static void relu(int n, int a[90], int b[90])
{
#pragma scop
    for (int i = 0; i < n; i++)
        b[i] = a[i] > 0 ? a[i] : (i > 10 ? 0 : -a[i]);
#pragma endscop
}
int main(void)
{
    int a[90], b[90];
    for (int i = 0; i < 90; i++)
        a[i] = (i * 29) % 23 - 11;
    relu(90, a, b);
    for (int i = 0; i < 90; i++)
        printf("%d\n", b[i]);
    return 0;
}
