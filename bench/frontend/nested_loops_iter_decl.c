/* construct: iterators declared at the top of the function, reused by several nests */
#include <stdio.h>
static void f(int n, int A[20][20], int B[20][20])
{
    int i, j, k;
#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            A[i][j] = i ^ j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            B[i][j] = 0;
            for (k = 0; k < n; k++)
                B[i][j] += A[i][k] & A[k][j];
        }
#pragma endscop
}
int main(void)
{
    static int A[20][20], B[20][20];
    f(20, A, B);
    for (int i = 0; i < 20; i++) for (int j = 0; j < 20; j++) printf("%d\n", B[i][j]);
    return 0;
}
