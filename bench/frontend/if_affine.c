/* construct: affine conditions, min/max bounds, modulo */
#include <stdio.h>
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
static void band(int n, int w, int A[50][50])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = max(0, i - w); j < min(n, i + w + 1); j++)
            if (i % 2 == 0 || j > i)
                A[i][j] = i + 2 * j;
            else
                A[i][j] = -A[i][j];
#pragma endscop
}
int main(void)
{
    static int A[50][50];
    for (int i = 0; i < 50; i++)
        for (int j = 0; j < 50; j++)
            A[i][j] = i - j;
    band(47, 3, A);
    for (int i = 0; i < 50; i++)
        for (int j = 0; j < 50; j++)
            printf("%d\n", A[i][j]);
    return 0;
}
