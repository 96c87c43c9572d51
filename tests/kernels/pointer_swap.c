// RUN: -- 1 12 0
// RUN: -- 2 12 1
// RUN: -- 3 20 6
// RUN: -- 4 33 9
// covers: time loops that end by rotating pointers to their buffers (a swap of two through a temporary
//         declared in the loop, a rotation of three global pointers through one declared before the
//         region), unrolled by the rotation's period so that each copy names its arrays, with the
//         pointers' and the iterator's final values set after the region's generated code (the
//         function reads them after the region, and the globals are read by main), an odd or even
//         number of steps, none and one
// pointer_swap: a 2-D Jacobi step with buffers swapped, and a 1-D wave equation with three time levels
#include "kernels.h"

double *u_old, *u_now, *u_new;

static void wave(int steps, int n)
{
    double *spare;
#pragma scop
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            u_new[i] = 2.0 * u_now[i] - u_old[i] + 0.25 * (u_now[i - 1] - 2.0 * u_now[i] + u_now[i + 1]);
        spare = u_old;
        u_old = u_now;
        u_now = u_new;
        u_new = spare;
    }
#pragma endscop
}

static double jacobi(int steps, int n, double *a, double *b)
{
    int t;
    double *first = a;
#pragma scop
    for (t = 1; t <= steps; t++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i * n + j] = 0.2 * (a[i * n + j] + a[(i - 1) * n + j] + a[(i + 1) * n + j]
                                      + a[i * n + j - 1] + a[i * n + j + 1]);
        double *tmp = a;
        a = b;
        b = tmp;
    }
#pragma endscop
    /* the final values: which buffer holds the last step, and the steps taken */
    return (a == first ? 1000.0 : 2000.0) + t + a[n + 1];
}

/* which of the three buffers ``p`` is */
static int level(const double *p, double *const levels[3])
{
    return p == levels[0] ? 0 : p == levels[1] ? 1 : 2;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 12);
    int steps = arg_int(argc, argv, 3, 3);
    double *a = alloc_doubles(n * n), *b = alloc_doubles(n * n);
    double *levels[3];

    rng_seed(seed);
    init_array_1d(a, n * n);
    init_array_1d(b, n * n);
    for (int k = 0; k < 3; k++) {
        levels[k] = alloc_doubles(n);
        init_array_1d(levels[k], n);
    }
    u_old = levels[0];
    u_now = levels[1];
    u_new = levels[2];

    double mark = jacobi(steps, n, a, b);
    wave(steps, n);

    printf("mark %.17g\n", mark);
    printf("levels %d %d %d\n", level(u_old, levels), level(u_now, levels), level(u_new, levels));
    print_array_1d("a", a, n * n);
    print_array_1d("b", b, n * n);
    print_array_1d("u_old", u_old, n);
    print_array_1d("u_now", u_now, n);
    print_array_1d("u_new", u_new, n);
    free(a);
    free(b);
    for (int k = 0; k < 3; k++)
        free(levels[k]);
    return 0;
}
