/* construct: convergence loops around parallel loops: a while loop on a residual, and a counted loop that
   leaves when a residual is small enough */
#include <math.h>
#include <stdio.h>
int main(void)
{
    int n = 40, it = 0, i, sweep;
    double u[40], v[40], diff = 1.0, change = 0.0;
    for (i = 0; i < n; i++)
        u[i] = v[i] = (i * 7 % 11) / 5.0;
#pragma scop
    while (diff > 1e-4 && it < 1000) {
        for (i = 1; i < n - 1; i++)
            v[i] = (u[i - 1] + 2.0 * u[i] + u[i + 1]) / 4.0;
        diff = 0.0;
        for (i = 1; i < n - 1; i++) {
            diff = fmax(diff, fabs(v[i] - u[i]));
            u[i] = v[i];
        }
        it++;
    }
    for (sweep = 0; sweep < 100; sweep++) {
        change = 0.0;
        for (i = 0; i < n; i++) {
            change = fmax(change, fabs(0.5 * (u[i] + 1.0) - u[i]));
            u[i] = 0.5 * (u[i] + 1.0);
        }
        if (change < 1e-6)
            break;
    }
#pragma endscop
    for (i = 0; i < n; i++)
        printf("%.17g\n", u[i]);
    printf("%d %d %.17g %.17g\n", it, sweep, diff, change);
    return 0;
}
