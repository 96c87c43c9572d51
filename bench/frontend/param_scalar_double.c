/* construct: double and float scalars as parameters, float arrays, math calls */
#include <stdio.h>
#include <math.h>
static void f(int n, float alpha, double beta, float x[40], double y[40])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        x[i] = alpha * x[i] + 1.0f;
        y[i] = sqrt(fabs(beta * y[i])) + floor(y[i]);
    }
#pragma endscop
}
int main(void)
{
    float x[40]; double y[40];
    for (int i = 0; i < 40; i++) { x[i] = i * 0.5f; y[i] = i - 20; }
    f(40, 1.5f, 0.25, x, y);
    for (int i = 0; i < 40; i++) printf("%.5f %.6f\n", x[i], y[i]);
    return 0;
}
