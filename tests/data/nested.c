// Nested data scopes: an inner scope naming part of an array the outer one keeps (held as it is), and one
// naming a range that straddles two kept arrays' ends (not kept: its regions copy); create and copyout
// arrays the first region reads.
#include <stdio.h>
#include <stdlib.h>

static void add(int n, const double *x, double *y)
{
#pragma scop
    for (int i = 0; i < n; i++)
        y[i] = y[i] + 0.5 * x[i];
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    srand(argc > 2 ? (unsigned)atoi(argv[2]) : 1u);
    double *a = malloc(sizeof(double) * 2 * n), *b = malloc(sizeof(double) * 2 * n);
    double c[32], d[32];
    for (int i = 0; i < 2 * n; i++)
        a[i] = b[i] = (double)rand() / RAND_MAX;
    for (int i = 0; i < 32; i++)
        c[i] = d[i] = i * 0.25;
#pragma polypragma data copy(a[0:2 * n]) create(b[0:n]) copyout(c)
    {
        add(n, a, b);
        add(32, d, c);
#pragma polypragma data copyin(a[0:n]) copy(b[n / 2:n])
        {
            for (int t = 0; t < 3; t++) {
                add(n, b + n / 2, a);
                add(n, a + n, b);
            }
        }
        add(2 * n, b, a);
    }
    double s = 0.0;
    for (int i = 0; i < 2 * n; i++)
        s += a[i] * (i % 4) + b[i];
    for (int i = 0; i < 32; i++)
        s += c[i] * i;
    printf("%.12e\n", s);
    free(a);
    free(b);
    return 0;
}
