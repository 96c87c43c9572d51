/* construct: scalars declared and written in the region */
#include <stdio.h>
static void rowsum(int n, int m, int A[40][40], int s[40])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        int t = 0;
        for (int j = 0; j < m; j++)
            t += A[i][j];
        s[i] = t;
    }
#pragma endscop
}
int main(void)
{
    static int A[40][40], s[40];
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 40; j++)
            A[i][j] = (i * 7 + j * 3) % 11;
    rowsum(37, 29, A, s);
    for (int i = 0; i < 40; i++)
        printf("%d\n", s[i]);
    return 0;
}
