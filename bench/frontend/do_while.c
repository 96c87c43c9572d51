/* construct: do-while loop, counted */
#include <stdio.h>
static void fill(int n, int a[64])
{
    int i;
#pragma scop
    i = 0;
    do {
        a[i] = i * 3;
        i++;
    } while (i < n);
#pragma endscop
}
int main(void)
{
    int a[64];
    for (int i = 0; i < 64; i++)
        a[i] = -1;
    fill(50, a);
    for (int i = 0; i < 64; i++)
        printf("%d\n", a[i]);
    return 0;
}
