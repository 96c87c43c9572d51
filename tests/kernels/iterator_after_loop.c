// RUN: -- 1 1
// RUN: -- 2 7
// RUN: -- 3 26
// covers: loop iterators declared before the region and read after their loop inside it (its final
//         value, the first that fails the condition: n, or the start when the loop runs no iteration,
//         also for a decrementing loop by 2), in a statement and in the bounds and subscripts of a
//         later loop
// iterator_after_loop: a scan whose tail is processed from where the first loop stopped
#include "kernels.h"

static void kernel_iterator_after_loop(int n, double x[n + 8], double y[n + 8])
{
    int i, j;

#pragma scop
    for (i = 0; i < n - 2; i++)
        x[i] = x[i] * 0.5 + 1.0;
    y[0] = i;
    for (j = i; j < i + 3; j++)
        y[j] = x[j - i] + i;
    for (i = n - 1; i >= 3; i -= 2)
        x[i] += 0.25 * i;
    y[1] = i + j;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double *x = alloc_doubles(n + 8);
    double *y = alloc_doubles(n + 8);

    rng_seed(seed);
    init_array_1d(x, n + 8);
    init_array_1d(y, n + 8);

    kernel_iterator_after_loop(n, x, y);

    print_array_1d("x", x, n + 8);
    print_array_1d("y", y, n + 8);
    free(x);
    free(y);
    return 0;
}
