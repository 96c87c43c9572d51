// RUN: -- 1 1
// RUN: -- 2 7
// RUN: -- 3 25
// covers: arrays declared in a statement (a block without loops), private to each instance: one of
//         variable size (hoisted as the model's array, which the GPU targets privatise per thread in a
//         global buffer: device code has no variable-length arrays; they once emitted it into kernels,
//         then left the region as written), and in a second region one of constant size, which every
//         target keeps in the statement;
//         in a third, an array of variable size declared in a block with loops, sized by a parameter:
//         hoisted to the top of the region (once refused)
// vla_private: per-element scratch arrays
#include "kernels.h"

static void kernel_vla_private(int n, double A[n][n], double B[n][n])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double t[n];
            t[j] = A[i][j] * 2.0;
            t[n - 1 - j] = t[j] + 1.0;
            A[i][j] = t[n - 1 - j] - A[j][i];
        }
#pragma endscop
}

static void kernel_fixed_private(int n, double A[n][n], double B[n][n])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double t[3];
            t[0] = A[i][j];
            t[1] = t[0] * t[0];
            t[2] = t[1] - t[0];
            B[i][j] = t[2] + t[(i + j) % 3];
        }
#pragma endscop
}

static void kernel_vla_hoisted(int n, double A[n][n], double B[n][n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        double t[n + 1];
        for (int j = 0; j <= n; j++)
            t[j] = j < n ? A[i][j] * 0.5 : 1.0;
        for (int j = 0; j < n; j++)
            B[i][j] += t[n - j] - t[j];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double (*B)[n] = (double (*)[n])alloc_doubles(n * n);

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);

    kernel_vla_private(n, A, B);
    kernel_fixed_private(n, A, B);
    kernel_vla_hoisted(n, A, B);

    print_array_2d("A", &A[0][0], n, n);
    print_array_2d("B", &B[0][0], n, n);
    free(A);
    free(B);
    return 0;
}
