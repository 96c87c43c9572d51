// RUN: -- 1 30 20
// RUN: -- 2 10 20
// RUN: -- 3 30 -5
// RUN: -- 4 0 3
// RUN: -- 5 30 0
// RUN: -- 6 30 29
// covers: loop iterators declared before the region read after loops that a break under an affine
//         condition stops (a break after the body's first statement, in a decrementing loop holding
//         another loop, in a loop stepping by 3): the value C leaves is the iteration the break is
//         taken at where one is, else the first value failing the condition
// break_exit_values: where a scan stops, recorded after it
#include "kernels.h"

static void kernel_exits(int n, int m, double a[n], double r[3])
{
    int i, j, k;
#pragma scop
    for (i = 0; i < n; i++) {
        a[i] += i;
        if (i == m)
            break;
    }
    r[0] = i;
    for (j = n - 1; j >= 0; j--) {
        for (k = 0; k < 3; k++)
            a[j] += 0.5 * k;
        if (j < m)
            break;
        a[j] *= 2.0;
    }
    r[1] = j;
    for (k = 0; k < n; k += 3) {
        if (k > m + 4)
            break;
        a[k] -= 1.0;
    }
    r[2] = k;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_int(argc, argv, 2, 30);
    int m = arg_int(argc, argv, 3, 20);
    double *a = alloc_doubles(n > 0 ? n : 1);
    double r[3];

    rng_seed(seed);
    init_array_1d(a, n);

    kernel_exits(n, m, a, r);

    print_array_1d("a", a, n);
    print_array_1d("r", r, 3);
    free(a);
    return 0;
}
