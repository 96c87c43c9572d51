/* construct: a condition on data guarding a loop (each row scaled by its norm where the norm is not small) */
#include <math.h>
#include <stdio.h>
static void normalise_rows(int n, int m, double A[12][12])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++)
            s += A[i][j] * A[i][j];
        s = sqrt(s);
        if (s > 1e-3)
            for (int j = 0; j < m; j++)
                A[i][j] /= s;
    }
#pragma endscop
}
int main(void)
{
    double A[12][12];
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
            A[i][j] = i == 3 ? 0.0 : (i * 5 + j * 3) % 11 - 5;
    normalise_rows(12, 12, A);
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
            printf("%.17g\n", A[i][j]);
    return 0;
}
