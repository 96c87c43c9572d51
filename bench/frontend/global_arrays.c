/* construct: global arrays and a global size */
#include <stdio.h>
#define N 40
int n = N;
double A[N][N], x[N], y[N];
static void mv(void)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        y[i] = 0;
        for (int j = 0; j < n; j++)
            y[i] += A[i][j] * x[j];
    }
#pragma endscop
}
int main(void)
{
    for (int i = 0; i < N; i++) { x[i] = i % 3; for (int j = 0; j < N; j++) A[i][j] = (i + j) % 5; }
    mv();
    for (int i = 0; i < N; i++) printf("%g\n", y[i]);
    return 0;
}
