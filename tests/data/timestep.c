// A time-stepping program: a 2-D stencil step (a function holding a region) called STEPS times, with the
// grids kept on the device by a data scope; the host reads and writes the grids between steps through
// updates, and a second function's region (a source term) writes one of them in place.
#include <stdio.h>
#include <stdlib.h>

static void step(int n, double *restrict in, double *restrict out)
{
#pragma scop
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            out[i * n + j] = 0.2 * (in[i * n + j] + in[i * n + j - 1] + in[i * n + j + 1]
                                    + in[(i - 1) * n + j] + in[(i + 1) * n + j]);
#pragma endscop
}

static void source_term(int n, double *u, double amount)
{
#pragma scop
    for (int j = 1; j < n - 1; j++)
        u[n + j] += amount;
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    int steps = argc > 2 ? atoi(argv[2]) : 1000;
    unsigned seed = argc > 3 ? (unsigned)atoi(argv[3]) : 1u;
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
    double checksum = 0.0;
    srand(seed);
    for (int k = 0; k < n * n; k++) {
        a[k] = (double)rand() / RAND_MAX;
        b[k] = a[k];
    }
#pragma polypragma data copy(a[0:n * n], b[0:n * n])
    {
        for (int t = 0; t < steps; t++) {
            if (t % 2 == 0)
                step(n, a, b);
            else
                step(n, b, a);
            if (t % 97 == 0)
                source_term(n, t % 2 == 0 ? b : a, 0.01 * t);
            if (t % 250 == 3) {  /* the host reads and writes the newest grid */
#pragma polypragma update host(a[0:n * n], b[0:n * n])
                double *newest = t % 2 == 0 ? b : a;
                checksum += newest[n + 1];
                newest[(n / 3) * n + n / 3] = 1.0 + t;
#pragma polypragma update device(a[0:n * n], b[0:n * n])
            }
        }
    }
    for (int k = 0; k < n * n; k++)
        checksum += a[k] * (k % 7) + b[k] * (k % 5);
    printf("checksum %.10e\n", checksum);
    printf("a %.12e %.12e b %.12e\n", a[n + 1], a[n * n / 2 + n / 3], b[(n - 2) * n + 2]);
    free(a);
    free(b);
    return 0;
}
