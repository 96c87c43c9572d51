// RUN: -- 1 1 1
// RUN: -- 2 0 9
// RUN: -- 3 8 0
// RUN: -- 4 37 23
// covers: one scalar used by two nests for unrelated values (a row filter's running value, then a column
//         filter's), with its last value seen after the region: the GPU targets split it into its webs
//         (t_2 in the rows, t_3 in the columns), expand each along its own loop, and copy the value the
//         original program would leave in t back to it, including when one nest or the other runs no
//         iteration (n or m zero)
// scalar_webs: a recursive filter along the rows, then one along the columns
#include "kernels.h"

static double kernel_scalar_webs(int n, int m, double A[n][m], double B[n][m], double C[n][m])
{
    double t = -1.0;
#pragma scop
    for (int i = 0; i < n; i++) {
        t = 0.0;
        for (int j = 0; j < m; j++) {
            B[i][j] = A[i][j] + 0.5 * t;
            t = B[i][j];
        }
    }
    for (int j = 0; j < m; j++) {
        t = 0.0;
        for (int i = 0; i < n; i++) {
            C[i][j] = B[i][j] + 0.25 * t;
            t = C[i][j];
        }
    }
#pragma endscop
    return t;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 20);
    double *A = alloc_doubles(n * m + 1);
    double *B = alloc_doubles(n * m + 1);
    double *C = alloc_doubles(n * m + 1);

    rng_seed(seed);
    init_array_2d(A, n, m);
    fill_array(B, n * m, 0.0);
    fill_array(C, n * m, 0.0);

    double last = kernel_scalar_webs(n, m, (double (*)[m])A, (double (*)[m])B, (double (*)[m])C);

    print_array_2d("B", B, n, m);
    print_array_2d("C", C, n, m);
    print_scalar("last", last);
    free(A);
    free(B);
    free(C);
    return 0;
}
