/* construct: labelled statements that no goto targets (pet names statements so) */
#include <stdio.h>
static void copy2(int n, int a[50], int b[50], int c[50])
{
#pragma scop
    for (int i = 0; i < n; i++) {
S1:     b[i] = a[i] + 1;
S2:     c[i] = b[i] * 2;
    }
#pragma endscop
}
int main(void)
{
    int a[50], b[50], c[50];
    for (int i = 0; i < 50; i++)
        a[i] = i;
    copy2(50, a, b, c);
    for (int i = 0; i < 50; i++)
        printf("%d %d\n", b[i], c[i]);
    return 0;
}
