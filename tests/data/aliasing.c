// Arrays that overlap in memory: the same array passed as two arguments, and pointers into one array,
// to a function whose region reads one and writes the other; outside and inside a data scope.
#include <stdio.h>
#include <stdlib.h>

static void smooth(int n, const double *x, double *y)
{
#pragma scop
    for (int i = 0; i < n; i++)
        y[i] = 0.5 * (x[i] + x[i + 1]);
#pragma endscop
}

static double sum(int n, const double *x)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (i % 3 + 1);
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 50;
    srand(argc > 2 ? (unsigned)atoi(argv[2]) : 1u);
    double *x = malloc(sizeof(double) * (2 * n + 2)), *y = malloc(sizeof(double) * (2 * n + 2));
    for (int k = 0; k < 2 * n + 2; k++)
        x[k] = y[k] = (double)rand() / RAND_MAX;
    smooth(n, x, y);           /* apart */
    printf("apart %.12e\n", sum(2 * n + 2, y));
    smooth(n, x, x);           /* the same array twice */
    printf("same %.12e\n", sum(2 * n + 2, x));
    smooth(n, x + 1, x);       /* overlapping, reading ahead */
    printf("ahead %.12e\n", sum(2 * n + 2, x));
    smooth(n, x, x + 1);       /* overlapping, reading behind */
    printf("behind %.12e\n", sum(2 * n + 2, x));
    smooth(n, x, x + n + 1);   /* one array, disjoint parts */
    printf("parts %.12e\n", sum(2 * n + 2, x));
#pragma polypragma data copy(x[0:2 * n + 2]) copyin(y[0:2 * n + 2])
    {
        for (int t = 0; t < 5; t++) {
            smooth(n, y, x);
            smooth(n, x, x + 1);       /* overlapping, in the scope */
            smooth(n, x + n + 1, y);   /* part of a kept array, to another */
            smooth(n, y + 1, y);       /* overlapping in the other */
        }
    }
    printf("scope %.12e %.12e\n", sum(2 * n + 2, x), sum(2 * n + 2, y));
    free(x);
    free(y);
    return 0;
}
