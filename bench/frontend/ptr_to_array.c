/* construct: pointer-to-array parameters and short iterators */
#include <stdio.h>
#define N 24
static void f(int n, double (*A)[N], double (*B)[N])
{
#pragma scop
    for (short i = 0; i < n; i++)
        for (short j = 0; j < n; j++)
            B[j][i] = A[i][j] * 2;
#pragma endscop
}
int main(void)
{
    static double A[N][N], B[N][N];
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = i * N + j;
    f(N, A, B);
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) printf("%g\n", B[i][j]);
    return 0;
}
