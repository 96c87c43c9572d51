/* construct: a forward goto to the end of a loop body (a continue) under an affine condition */
#include <stdio.h>
static void skip(int n, int A[24][24])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            if (j > 2 * i)
                goto next;
            A[i][j] = i - j;
        }
        A[i][0] += 100;
next:
        A[i][n - 1] += 1;
    }
#pragma endscop
}
int main(void)
{
    static int A[24][24];
    skip(24, A);
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++)
            printf("%d\n", A[i][j]);
    return 0;
}
