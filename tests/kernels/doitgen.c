// RUN: -- 1 1 1 1
// RUN: -- 2 7 5 9
// RUN: -- 6 20 18 24
// covers: 3d-arrays, vla-params (3-D), imperfect-nest, sequence-of-nests
//         inside a loop, several-levels (4-deep nest)
// doitgen: A[r][q][:] = A[r][q][:] * C4 (multiresolution analysis kernel)
#include "kernels.h"

static void kernel_doitgen(int nr, int nq, int np, double A[nr][nq][np],
                           double C4[np][np], double sum[np])
{
    int r, q, p, s;

#pragma scop
    for (r = 0; r < nr; r++)
        for (q = 0; q < nq; q++) {
            for (p = 0; p < np; p++) {
                sum[p] = 0.0;
                for (s = 0; s < np; s++)
                    sum[p] += A[r][q][s] * C4[s][p];
            }
            for (p = 0; p < np; p++)
                A[r][q][p] = sum[p];
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int nr = arg_size(argc, argv, 2, 10);
    int nq = arg_size(argc, argv, 3, 8);
    int np = arg_size(argc, argv, 4, 12);
    double (*A)[nq][np] = malloc(sizeof(double[nr][nq][np]));
    double C4[np][np];
    double sum[np];

    rng_seed(seed);
    init_array_3d(&A[0][0][0], nr, nq, np);
    init_array_2d(&C4[0][0], np, np);
    fill_array(sum, np, 0.0);

    kernel_doitgen(nr, nq, np, A, C4, sum);

    print_array_3d("A", &A[0][0][0], nr, nq, np);
    print_array_1d("sum", sum, np);
    free(A);
    return 0;
}
