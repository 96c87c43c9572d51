/* construct: break under a condition on data */
#include <stdio.h>
static void first_negative(int n, int a[64], int pos[1])
{
#pragma scop
    pos[0] = n;
    for (int i = 0; i < n; i++) {
        if (a[i] < 0)
            break;
        pos[0] = i;
    }
#pragma endscop
}
int main(void)
{
    int a[64], pos[1];
    for (int i = 0; i < 64; i++)
        a[i] = 40 - i;
    first_negative(64, a, pos);
    printf("%d\n", pos[0]);
    return 0;
}
