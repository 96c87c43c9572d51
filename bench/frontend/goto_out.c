/* construct: a forward goto out of a loop nest under an affine condition */
#include <stdio.h>
static void upto(int n, int stop, int A[20][20], int b[20])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i * 20 + j >= stop)
                goto done;
            A[i][j] = i + j;
        }
done:
    for (int i = 0; i < n; i++)
        b[i] = A[i][i];
#pragma endscop
}
int main(void)
{
    static int A[20][20];
    int b[20];
    upto(20, 137, A, b);
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 20; j++)
            printf("%d\n", A[i][j]);
    for (int i = 0; i < 20; i++)
        printf("%d\n", b[i]);
    return 0;
}
