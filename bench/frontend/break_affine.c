/* construct: break under an affine condition */
#include <stdio.h>
static void cut(int n, int m, int A[30][30])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] += 1;
            if (j > i + m)
                break;
            A[i][j] *= 2;
        }
#pragma endscop
}
int main(void)
{
    static int A[30][30];
    cut(30, 3, A);
    for (int i = 0; i < 30; i++)
        for (int j = 0; j < 30; j++)
            printf("%d\n", A[i][j]);
    return 0;
}
