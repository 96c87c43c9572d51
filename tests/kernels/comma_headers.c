// RUN: -- 1 1
// RUN: -- 2 9
// RUN: -- 3 32
// covers: for headers with comma expressions: a second iterator counting down (declared before the
//         region, read after the loop), two iterators declared in the header with steps 1 and 2, a
//         condition comparing the two iterators, and a scalar set in the initialisation
// comma_headers: reversing, pairing and summing vectors
#include "kernels.h"

static void kernel_comma(int n, double a[n], double b[2 * n], double c[n], double s[2], int last[1])
{
    int i, j;
    double acc;
#pragma scop
    for (i = 0, j = n - 1; i < n; i++, j--)
        c[i] = a[j] + b[i];
    last[0] = j;
    for (int p = 0, q = 1; p < n; p++, q += 2)
        c[p] += b[q] - b[q - 1];
    for (int lo = 0, hi = n - 1; lo < hi; ++lo, --hi) {
        double t = a[lo];
        a[lo] = a[hi];
        a[hi] = t;
    }
    for (i = 0, acc = 0.0; i < n; i++)
        acc += c[i] * a[i];
    s[0] = acc;
#pragma endscop
    s[1] = j;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 24);
    double *a = alloc_doubles(n);
    double *b = alloc_doubles(2 * n);
    double *c = alloc_doubles(n);
    double s[2];
    int last[1];

    rng_seed(seed);
    init_array_1d(a, n);
    init_array_1d(b, 2 * n);

    kernel_comma(n, a, b, c, s, last);

    print_array_1d("a", a, n);
    print_array_1d("c", c, n);
    print_array_1d("s", s, 2);
    print_int_scalar("last", last[0]);
    free(a);
    free(b);
    free(c);
    return 0;
}
