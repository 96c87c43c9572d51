/* construct: array declared in the region, private to each iteration */
#include <stdio.h>
static void prefix(int n, int A[30][8], int out[30])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        int t[8];
        t[0] = A[i][0];
        for (int k = 1; k < 8; k++)
            t[k] = t[k - 1] + A[i][k];
        out[i] = t[7];
    }
#pragma endscop
}
int main(void)
{
    int A[30][8], out[30];
    for (int i = 0; i < 30; i++)
        for (int k = 0; k < 8; k++)
            A[i][k] = i + k;
    prefix(30, A, out);
    for (int i = 0; i < 30; i++)
        printf("%d\n", out[i]);
    return 0;
}
