// RUN: -- 1 1 1
// RUN: -- 2 12 3
// RUN: -- 3 37 5
// covers: switch statements as the chains of conditions they mean (as pet models them): cases on an
//         affine scrutinee ending in break, two labels sharing a run, a case falling through into the
//         next, a default that is not last, a switch on data (its conditions on data), a block ending
//         in break, a switch without default, and a break inside a loop of a case (it leaves the loop)
// switch_cases: a banded relaxation whose coefficients depend on the diagonal a point lies on
#include "kernels.h"

#define NEAR 1
#define FAR 2

static void kernel_switch(int n, int k, double A[n][n], double x[n], int kind[n])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            switch (i - j) {
            case 0:
                A[i][j] += 4.0;
                break;
            default:
                A[i][j] *= 0.5;
                break;
            case NEAR:
            case -NEAR:
                A[i][j] -= 1.0;
                break;
            case FAR:
                A[i][j] += 0.25;
            case -FAR: {
                A[i][j] += x[j];
                break;
            }
            }
    for (int i = 0; i < n; i++) {
        switch (kind[i]) {
        case 0:
            x[i] = A[i][i];
            break;
        case 1:
            for (int j = 0; j < n; j++) {
                if (j > i)
                    break;
                x[i] += A[i][j];
            }
            break;
        case 2:
            x[i] = -x[i];
        }
    }
    for (int i = 0; i < n; i++)
        switch (i % 3) {
        case 0:
            x[i] += k;
            break;
        case 2:
            x[i] -= k;
            break;
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 20);
    int k = arg_int(argc, argv, 3, 2);
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double *x = alloc_doubles(n);
    int *kind = alloc_ints(n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(x, n);
    init_int_array(kind, n, 0, 3);

    kernel_switch(n, k, A, x, kind);

    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("x", x, n);
    free(A);
    free(x);
    free(kind);
    return 0;
}
