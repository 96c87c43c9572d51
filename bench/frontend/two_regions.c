/* construct: two regions in one function, a triangular nest */
#include <stdio.h>
static void tri(int n, double L[30][30], double x[30], double b[30])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        x[i] = b[i];
        for (int j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];
        x[i] = x[i] / L[i][i];
    }
#pragma endscop
    for (int i = 0; i < n; i++)
        b[i] = x[i];
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            L[i][j] = L[j][i] + b[i];
#pragma endscop
}
int main(void)
{
    static double L[30][30], x[30], b[30];
    for (int i = 0; i < 30; i++) {
        b[i] = i + 1;
        for (int j = 0; j < 30; j++)
            L[i][j] = (i == j) ? 2.0 : 0.25 * ((i + j) % 3);
    }
    tri(30, L, x, b);
    for (int i = 0; i < 30; i++)
        printf("%.6f\n", x[i]);
    for (int i = 0; i < 30; i++)
        for (int j = 0; j < 30; j++)
            printf("%.6f\n", L[i][j]);
    return 0;
}
