// RUN: -- 1 1 1
// RUN: -- 2 7 5
// RUN: -- 3 13 20
// RUN: -- 4 33 9
// covers: temporaries that serialise loops (issue 17, item 4): live-range reordering and a copy per
//         iteration of the parallel loops.  Region 1: a row temporary written then read in each i,
//         whose last values are seen after the region (privatised, copied back by the last writes:
//         element j is last written at a different i for each j).  Region 2: a temporary whose value
//         crosses iterations (even rows write it, odd rows read it): not privatisable, i stays
//         sequential.  Region 3: a temporary in two dimensions reused for every (i, j) and read after
//         the region, next to a temporary written through a pointer.  Region 4: a temporary declared
//         in the region (no value of it is seen after it): privatised without a copy back.  Region 5:
//         a scalar temporary whose last value is printed after the region (a register per thread).
// temporaries: scratch arrays reused by every iteration of parallel loops
#include "kernels.h"

static void kernel_triangle(int n, int m, double A[n][m], double B[n][m], double t[m])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m - i; j++)
            t[j] = A[i][j] * 3.0 + i;
        for (int j = 0; j < m - i; j++)
            B[i][j] = t[j] + t[m - i - 1 - j];
    }
#pragma endscop
}

static void kernel_crossing(int n, int m, double A[n][m], double B[n][m], double u[m])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++)
            if (i % 2 == 0)
                u[j] = A[i][j] - 1.0;
        for (int j = 0; j < m; j++)
            B[i][j] += u[j] * 0.5;
    }
#pragma endscop
}

static void kernel_square(int n, int m, double A[n][m], double B[n][m], double w[4][m], double *s)
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            for (int k = 0; k < 4; k++)
                for (int l = 0; l < m; l++)
                    w[k][l] = A[i][l] * (k + 1) + A[(i + k) % n][j];
            *s = 0.0;
            for (int k = 0; k < 4; k++)
                for (int l = 0; l < m; l++)
                    B[i][j] += w[k][l] * w[3 - k][m - 1 - l];
        }
#pragma endscop
}

static void kernel_local(int n, int m, double A[n][m], double B[n][m])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        double v[m];
        for (int j = 0; j < m; j++)
            v[j] = A[i][j] + B[i][j];
        for (int j = 0; j < m; j++)
            A[i][j] = v[m - 1 - j] * v[j];
    }
#pragma endscop
}

static double kernel_scalar(int n, int m, double A[n][m], double B[n][m])
{
    double x = -1.0;
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            x = A[i][j] * 0.25 + B[i][j];
            B[i][j] = x * x - A[i][j];
        }
#pragma endscop
    return x;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 20);
    int m = arg_size(argc, argv, 3, 16);
    double (*A)[m] = (double (*)[m])alloc_doubles(n * m);
    double (*B)[m] = (double (*)[m])alloc_doubles(n * m);
    double *t = alloc_doubles(m);
    double *u = alloc_doubles(m);
    double (*w)[m] = (double (*)[m])alloc_doubles(4 * m);
    double s = 1.0;

    rng_seed(seed);
    init_array_2d(&A[0][0], n, m);
    init_array_2d(&B[0][0], n, m);
    init_array_1d(t, m);
    init_array_1d(u, m);

    kernel_triangle(n, m, A, B, t);
    kernel_crossing(n, m, A, B, u);
    kernel_square(n, m, A, B, w, &s);
    kernel_local(n, m, A, B);
    printf("x = %.6f\n", kernel_scalar(n, m, A, B));

    print_array_2d("A", &A[0][0], n, m);
    print_array_2d("B", &B[0][0], n, m);
    print_array_1d("t", t, m);
    print_array_1d("u", u, m);
    print_array_2d("w", &w[0][0], 4, m);
    printf("s = %.6f\n", s);
    free(A);
    free(B);
    free(t);
    free(u);
    free(w);
    return 0;
}
