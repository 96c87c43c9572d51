/* construct: affine loop nest (baseline) */
#include <stdio.h>
#define N 24
static void matmul(int n, double A[N][N], double B[N][N], double C[N][N])
{
    int i, j, k;
#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            C[i][j] = 0;
            for (k = 0; k < n; k++)
                C[i][j] += A[i][k] * B[k][j];
        }
#pragma endscop
}
int main(void)
{
    static double A[N][N], B[N][N], C[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (i * 3 + j) % 7;
            B[i][j] = (i + 2 * j) % 5;
        }
    matmul(N, A, B, C);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            printf("%g\n", C[i][j]);
    return 0;
}
