// A data scope in one file around calls of regions in this file and in another (relax.c): the other
// file's regions find the arrays in the process's table and copy them through the host.
#include <stdio.h>
#include <stdlib.h>

void relax(int n, const double *u, double *v);

static void scale(int n, double *u, double f)
{
#pragma scop
    for (int i = 0; i < n; i++)
        u[i] = f * u[i] + 0.25;
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    int steps = argc > 2 ? atoi(argv[2]) : 50;
    srand(argc > 3 ? (unsigned)atoi(argv[3]) : 1u);
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        a[i] = b[i] = (double)rand() / RAND_MAX;
#pragma polypragma data copy(a[0:n], b[0:n])
    {
        for (int t = 0; t < steps; t++) {
            scale(n, a, 0.9);
            relax(n, a, b);
            scale(n, b, 1.05);
            relax(n, b, a);
        }
    }
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * (i % 5) + b[i];
    printf("%.12e %.12e %.12e\n", s, a[n / 2], b[n / 3]);
    free(a);
    free(b);
    return 0;
}
