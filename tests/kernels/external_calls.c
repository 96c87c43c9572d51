// RUN: -- 1 1
// RUN: -- 2 7
// RUN: -- 3 16
// covers: calls to functions without a body in the file (the C library's), modelled as pet models
//         them: arguments read, what a call is given the address of read and may be written, and the
//         calls kept in their order (output printed from the region in the original order on every
//         variant, OpenMP included); functions of the file that are not pure and cannot be inlined (an
//         early return, recursion) modelled the same way, one that counts its calls in a global inlined;
//         the GPU targets refuse them with a located warning
// external_calls: rounding, splitting and copying rows, with a trace printed as it goes
#include <string.h>
#include "kernels.h"

static int calls;

static double counted(double x)
{
    calls++;
    return 2.0 * x + calls;
}

static void clip_row(int n, double *row)
{
    for (int k = 0; k < n; k++) {
        if (row[k] > 1.5)
            return;
        row[k] *= 3.0;
    }
}

struct cell {
    double value;
    double history[2];
};

static void reset(struct cell *c, double v)
{
    c->history[1] = c->history[0];
    c->history[0] = c->value;
    c->value = v;
}

static long fib(int k)
{
    return k < 2 ? k : fib(k - 1) + fib(k - 2);
}

static void kernel_external(int n, double A[n][n], double B[n][n], long r[n], double frac[n], struct cell c[n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        r[i] = lround(A[i][i] * 10.0);
        printf("row %d rounds to %ld\n", i, r[i]);
    }
    for (int i = 0; i < n; i++) {
        double whole;
        frac[i] = modf(A[i][0] * 7.0, &whole);
        B[i][0] = whole;
    }
    for (int i = 1; i < n; i++) {
        memcpy(B[i], A[i - 1], n * sizeof(double));
        printf("copied row %d\n", i - 1);
    }
    for (int i = 0; i < n; i++)
        A[i][i] = B[i][i] + frac[i];
    for (int i = 0; i < n; i++) {
        B[i][n - 1] = counted(A[i][0]);
        clip_row(n, B[i]);
        r[i] += fib(i % 12);
    }
    for (int i = 0; i < n; i++) {
        reset(&c[i], A[i][i]);
        c[i].value += c[i].history[0];
    }
    for (int i = 1; i < n; i++)
        c[i].history[1] += c[i - 1].value;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 12);
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double (*B)[n] = (double (*)[n])alloc_doubles(n * n);
    long *r = malloc(n * sizeof(long));
    double *frac = alloc_doubles(n);
    struct cell *c = malloc(n * sizeof(struct cell));

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_2d(&B[0][0], n, n);
    for (int i = 0; i < n; i++) {
        c[i].value = 0.5 * i;
        c[i].history[0] = 0.25;
        c[i].history[1] = -1.0;
    }

    kernel_external(n, A, B, r, frac, c);

    print_array_2d("A", &A[0][0], n, n);
    print_array_2d("B", &B[0][0], n, n);
    print_array_1d("frac", frac, n);
    for (int i = 0; i < n; i++)
        printf("r[%d] = %ld\n", i, r[i]);
    print_int_scalar("calls", calls);
    for (int i = 0; i < n; i++)
        printf("c[%d] = %.17g %.17g %.17g\n", i, c[i].value, c[i].history[0], c[i].history[1]);
    free(c);
    free(A);
    free(B);
    free(r);
    free(frac);
    return 0;
}
