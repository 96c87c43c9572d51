// RUN: -- 1 1
// RUN: -- 2 17
// RUN: -- 3 300
// covers: struct-defined-between-regions, typedef-defined-between-regions (each region's host code goes
//         into the C file after the types it names, which may come after the first region)
// A region, then a struct and a typedef the file defines only after it, then a region on arrays of them.
// The GPU targets put the runtime before the first region, and each region's host function (CUDA: its
// prototype) after the types it names: before the second region's function, not before the first.
#include "kernels.h"

static void scale(int n, double *x)
{
#pragma scop
    for (int i = 0; i < n; i++)
        x[i] *= 2.0;
#pragma endscop
}

struct cell {
    int n;
    double total;
};
typedef struct {
    double lo, hi;
} range;

static void totals(int m, struct cell *c, const range *r, const double *y)
{
#pragma scop
    for (int d = 0; d < 3; d++) {
        c[d].total = 0.0;
        for (int i = 0; i < m; i++)
            c[d].total += y[i] * (d + 1) * (r[d].hi - r[d].lo);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 40);
    double *x = alloc_doubles(n), *y = alloc_doubles(n);
    struct cell c[3] = {{1, 0.0}, {2, 0.0}, {3, 0.0}};
    range r[3] = {{0.0, 1.0}, {0.5, 2.0}, {-1.0, 3.0}};
    rng_seed(seed);
    init_array_1d(x, n);
    init_array_1d(y, n);
    scale(n, x);
    totals(n, c, r, x);
    print_array_1d("x", x, n);
    for (int d = 0; d < 3; d++)
        printf("total%d %.17g\n", d, c[d].total);
    free(x);
    free(y);
    return 0;
}
