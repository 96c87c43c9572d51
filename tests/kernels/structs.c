// RUN: -- 1 1
// RUN: -- 2 6
// RUN: -- 3 35
// covers: struct members as arrays of their own: members of an array of structs (p[i].x, p[i].w[k]),
//         of a struct passed by value (s.v[i], s.scale), of a typedef'd anonymous struct, members read
//         and written, members through a pointer to one struct (t->v[i], t->scale: t[0].v[i]), whole
//         structs copied (q[i] = p[i]: every member, an array member whole); every target regenerates
//         the region (the GPU targets once left it as written: kernels now take buffers of structs)
// structs: particles pushed by a field sampled from a table
#include "kernels.h"

#define W 3

struct particle {
    double x, v;
    double w[W];
};

typedef struct {
    int len;
    double scale;
    double v[16];
} table_t;

static void kernel_structs(int n, struct particle p[n], table_t s, double e[n], table_t *t,
                           struct particle q[n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        p[i].v = p[i].v + s.scale * s.v[i % 16];
        for (int k = 0; k < W; k++)
            p[i].w[k] = p[i].w[k] * 0.5 + p[i].v * k;
        p[i].x += p[i].v + p[i].w[W - 1] / s.len;
    }
    for (int i = 1; i < n; i++)
        e[i] = p[i].x - p[i - 1].x + t->scale * t->v[i % 16];
    for (int i = 0; i < 16; i++)
        t->v[i] += p[i % n].v;
    t->scale = t->v[15] * 0.5;
    for (int i = 0; i < n; i++) {
        q[i] = p[n - 1 - i];
        q[i].w[i % W] += q[i].x;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    struct particle *p = (struct particle *)calloc((size_t)n, sizeof(struct particle));
    struct particle *q = (struct particle *)calloc((size_t)n, sizeof(struct particle));
    double *e = alloc_doubles(n);
    table_t s, t;

    rng_seed(seed);
    s.len = 3;
    s.scale = rng_double();
    init_array_1d(s.v, 16);
    t.len = 2;
    t.scale = rng_double();
    init_array_1d(t.v, 16);
    for (int i = 0; i < n; i++) {
        p[i].x = rng_double();
        p[i].v = rng_double();
        init_array_1d(p[i].w, W);
    }

    kernel_structs(n, p, s, e, &t, q);

    for (int i = 0; i < n; i++) {
        print_scalar("x", p[i].x);
        print_scalar("v", p[i].v);
        print_array_1d("w", p[i].w, W);
    }
    print_array_1d("e", e, n);
    print_array_1d("t.v", t.v, 16);
    print_scalar("t.scale", t.scale);
    for (int i = 0; i < n; i++) {
        print_scalar("q.x", q[i].x);
        print_scalar("q.v", q[i].v);
        print_array_1d("q.w", q[i].w, W);
    }
    free(p);
    free(q);
    free(e);
    return 0;
}
