// A file with a data scope and no region of its own: every region it calls is in relax.c.
#include <stdio.h>
#include <stdlib.h>

void relax(int n, const double *u, double *v);

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 50;
    int steps = argc > 2 ? atoi(argv[2]) : 10;
    srand(argc > 3 ? (unsigned)atoi(argv[3]) : 1u);
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        a[i] = b[i] = (double)rand() / RAND_MAX;
#pragma polypragma data copy(a[0:n], b[0:n])
    {
        for (int t = 0; t < steps; t++) {
            relax(n, a, b);
            relax(n, b, a);
        }
    }
    printf("%.12e %.12e\n", a[n / 2], b[3]);
    free(a);
    free(b);
    return 0;
}
