/* construct: counted while loop */
#include <stdio.h>
static void scale(int n, int a[100])
{
    int i;
#pragma scop
    i = 0;
    while (i < n) {
        a[i] = 3 * a[i] + 1;
        i += 2;
    }
#pragma endscop
}
int main(void)
{
    int a[100];
    for (int i = 0; i < 100; i++)
        a[i] = i;
    scale(91, a);
    for (int i = 0; i < 100; i++)
        printf("%d\n", a[i]);
    return 0;
}
