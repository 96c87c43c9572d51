/* A simulation that calls a stencil step 1,000 times: the data scope keeps both grids on the device
   between the calls; every 250 steps the host looks at the newest grid through an update. */
#include <stdio.h>
#include <stdlib.h>

static void step(int n, const double *restrict in, double *restrict out)
{
#pragma scop
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            out[i * n + j] = 0.25 * (in[i * n + j - 1] + in[i * n + j + 1] + in[(i - 1) * n + j] + in[(i + 1) * n + j]);
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 256, steps = argc > 2 ? atoi(argv[2]) : 1000;
    double *a = calloc((size_t)n * n, sizeof(double)), *b = calloc((size_t)n * n, sizeof(double));
    for (int i = 0; i < n; i++)
        a[i * n] = b[i * n] = 100.0;  /* a hot left edge */
#pragma polypragma data copy(a[0:n * n], b[0:n * n])
    {
        for (int t = 1; t <= steps; t++) {
            if (t % 2)
                step(n, a, b);
            else
                step(n, b, a);
            if (t % 250 == 0) {
#pragma polypragma update host(a[0:n * n])
                printf("step %4d: a[%d][1] = %.6f\n", t, n / 2, a[(n / 2) * n + 1]);
            }
        }
    }
    printf("done: b[%d][2] = %.6f\n", n / 2, b[(n / 2) * n + 2]);
    free(a);
    free(b);
    return 0;
}
