/* construct: switch on an affine expression, every case ending in break */
#include <stdio.h>
static void colour(int n, int a[90])
{
#pragma scop
    for (int i = 0; i < n; i++)
        switch (i % 3) {
        case 0:
            a[i] = 10;
            break;
        case 1:
            a[i] += 5;
            break;
        default:
            a[i] = -a[i];
            break;
        }
#pragma endscop
}
int main(void)
{
    int a[90];
    for (int i = 0; i < 90; i++)
        a[i] = i;
    colour(90, a);
    for (int i = 0; i < 90; i++)
        printf("%d\n", a[i]);
    return 0;
}
