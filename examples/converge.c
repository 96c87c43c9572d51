/* Jacobi relaxation to a tolerance: the while loop runs on the host, its body's loops on the device, and
   the two grids stay there until the loop ends (only the residual crosses at each iteration). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int relax(int n, double tol, int most, double *u, double *v, double *residual)
{
    int it = 0;
    double diff = tol + 1.0;
#pragma scop
    while (diff > tol && it < most) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                v[i * n + j] = 0.25 * (u[i * n + j - 1] + u[i * n + j + 1] + u[(i - 1) * n + j] + u[(i + 1) * n + j]);
        diff = 0.0;
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++) {
                diff = fmax(diff, fabs(v[i * n + j] - u[i * n + j]));
                u[i * n + j] = v[i * n + j];
            }
        it++;
    }
    *residual = diff;
#pragma endscop
    return it;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 128;
    double tol = argc > 2 ? atof(argv[2]) : 1e-4;
    double *u = calloc((size_t)n * n, sizeof(double)), *v = calloc((size_t)n * n, sizeof(double)), residual;
    for (int i = 0; i < n; i++)
        u[i * n] = v[i * n] = 100.0;  /* a hot left edge */
    int its = relax(n, tol, 100000, u, v, &residual);
    printf("%d iterations, residual %.3g, u[%d][1] = %.6f\n", its, residual, n / 2, u[(n / 2) * n + 1]);
    free(u);
    free(v);
    return 0;
}
