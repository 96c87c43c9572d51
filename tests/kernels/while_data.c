// RUN: -- 1 1
// RUN: -- 2 9
// RUN: -- 3 33
// covers: while loops that are not counted (conditions on data, steps that change inside the body),
//         a do-while loop and a break in the middle of a while body: each is one statement, run as
//         written, its accesses those of its condition and body (may-writes), its locals private
// while_data: searches in a sorted table and a walk along a chain of steps
#include "kernels.h"

static void kernel_while_data(int n, double t[n], double v[n], int pos[n], double w[n], int count[1])
{
    int s;
#pragma scop
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < n && t[j] < v[i])
            j++;
        pos[i] = j;
    }
    s = 0;
    count[0] = 0;
    while (s < n) {
        w[s] = w[s] * 0.5 + v[s];
        s += 1 + pos[s] % 3;
        count[0] += 1;
    }
    for (int i = 0; i < n; i++) {
        int k = i;
        do {
            w[i] += 0.125 * t[k];
            k += 2;
        } while (k < n && t[k] < 0.75);
    }
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (1) {
            w[i] -= 0.0625 * v[k];
            if (k >= i || v[k] > 0.9)
                break;
            k++;
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double *t = alloc_doubles(n);
    double *v = alloc_doubles(n);
    double *w = alloc_doubles(n);
    int *pos = (int *)calloc((size_t)n, sizeof(int));
    int count = 0;

    rng_seed(seed);
    for (int i = 0; i < n; i++)
        t[i] = (double)i / n;
    init_array_1d(v, n);
    init_array_1d(w, n);

    kernel_while_data(n, t, v, pos, w, &count);

    for (int i = 0; i < n; i++)
        printf("pos %d\n", pos[i]);
    printf("count %d\n", count);
    print_array_1d("w", w, n);
    free(t);
    free(v);
    free(w);
    free(pos);
    return 0;
}
