// RUN: -- 1 1 1
// RUN: -- 2 20 33
// RUN: -- 3 40 17
// covers: struct members on the GPU targets: a two-dimensional array of structs (c[i][j].t, a buffer of
//         structs with a flat index), a member that is an array (c[i][j].f[k]) and one of a typedef'd
//         type, a stencil over a member (shared memory may stage it), a struct holding the sizes read in
//         a statement (g.h), a nested struct (g.o.scale), members through a pointer (acc->sum[i]); the
//         buffers hold the host's structs, copied whole
// struct_grid: heat on a grid of cells, each with its own conductivity and flux components
#include "kernels.h"

typedef double real;

struct offset { real scale; int shift; };

struct cell {
    real t;
    real k;
    real f[2];
};

struct grid { int h; struct offset o; };

struct totals { real sum[64]; long count; };

static void kernel_struct_grid(int n, int m, struct cell c[n][m], struct cell d[n][m], struct grid g,
                               struct totals *acc)
{
#pragma scop
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < m - 1; j++) {
            d[i][j].f[0] = c[i][j].k * (c[i + 1][j].t - c[i - 1][j].t) / g.h;
            d[i][j].f[1] = c[i][j].k * (c[i][j + 1].t - c[i][j - 1].t) / g.h;
            d[i][j].t = c[i][j].t + g.o.scale * (c[i - 1][j].t + c[i + 1][j].t + c[i][j - 1].t
                                                 + c[i][j + 1].t - 4 * c[i][j].t);
        }
    for (int i = 0; i < n && i < 64; i++)
        for (int j = 1; j < m - 1; j++)
            acc->sum[i] += d[i][j].t * (j + g.o.shift);
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 20);
    int m = arg_size(argc, argv, 3, 25);
    struct cell (*c)[m] = malloc(sizeof(struct cell) * (size_t)n * (size_t)m);
    struct cell (*d)[m] = calloc((size_t)n * (size_t)m, sizeof(struct cell));
    struct totals acc;
    struct grid g;

    rng_seed(seed);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            c[i][j].t = rng_double();
            c[i][j].k = rng_range(0.1, 1.0);
            c[i][j].f[0] = c[i][j].f[1] = 0;
        }
    for (int i = 0; i < 64; i++)
        acc.sum[i] = rng_double();
    acc.count = 7;
    g.h = 2;
    g.o.scale = 0.125;
    g.o.shift = 3;

    kernel_struct_grid(n, m, c, d, g, &acc);

    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            print_scalar("t", d[i][j].t);
            print_array_1d("f", d[i][j].f, 2);
        }
    print_array_1d("sum", acc.sum, 64);
    printf("count %ld\n", acc.count);
    free(c);
    free(d);
    return 0;
}
