/* construct: pointers without extents reached through subscripts on data (gather, scatter, histogram) */
#include <stdio.h>
static void indirect(int n, int bins, const int *idx, const int *key, const double *x, double *y, double *z, int *h)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        y[i] = x[idx[i]] * 2.0;
        z[idx[n - 1 - i]] = y[i] + i;
    }
    for (int b = 0; b < bins; b++)
        h[b] = 0;
    for (int i = 0; i < n; i++)
        h[key[i] % bins]++;
#pragma endscop
}
int main(void)
{
    int idx[16], key[16], h[5];
    double x[16], y[16], z[16];
    for (int i = 0; i < 16; i++) {
        idx[i] = (i * 5) % 16;
        key[i] = i * i;
        x[i] = i / 4.0;
        z[i] = 0.0;
    }
    indirect(16, 5, idx, key, x, y, z, h);
    for (int i = 0; i < 16; i++)
        printf("%g %g\n", y[i], z[i]);
    for (int b = 0; b < 5; b++)
        printf("%d\n", h[b]);
    return 0;
}
