// RUN: -- 1 1 1 1 1 1
// RUN: -- 3 7 9 11 13 17
// RUN: -- 77 36 40 44 48 52
// covers: three-regions-in-one-function, flat-pointer-linearised-subscripts,
//         params-in-bounds, sequence-of-nests
// 3mm: E = A * B;  F = C * D;  G = E * F   (all flat heap arrays)
#include "kernels.h"

static void kernel_3mm(int ni, int nj, int nk, int nl, int nm,
                       double *E, double *A, double *B,
                       double *F, double *C, double *D, double *G)
{
    int i, j, k;

    /* E := A * B, A is ni x nk, B is nk x nj */
#pragma scop
    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++) {
            E[i * nj + j] = 0.0;
            for (k = 0; k < nk; ++k)
                E[i * nj + j] += A[i * nk + k] * B[k * nj + j];
        }
#pragma endscop

    /* F := C * D, C is nj x nm, D is nm x nl */
#pragma scop
    for (i = 0; i < nj; i++)
        for (j = 0; j < nl; j++) {
            F[i * nl + j] = 0.0;
            for (k = 0; k < nm; ++k)
                F[i * nl + j] += C[i * nm + k] * D[k * nl + j];
        }
#pragma endscop

    /* G := E * F */
#pragma scop
    for (i = 0; i < ni; i++)
        for (j = 0; j < nl; j++) {
            G[i * nl + j] = 0.0;
            for (k = 0; k < nj; ++k)
                G[i * nl + j] += E[i * nj + k] * F[k * nl + j];
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int ni = arg_size(argc, argv, 2, 16);
    int nj = arg_size(argc, argv, 3, 18);
    int nk = arg_size(argc, argv, 4, 20);
    int nl = arg_size(argc, argv, 5, 22);
    int nm = arg_size(argc, argv, 6, 24);
    double *A = alloc_doubles(ni * nk);
    double *B = alloc_doubles(nk * nj);
    double *C = alloc_doubles(nj * nm);
    double *D = alloc_doubles(nm * nl);
    double *E = alloc_doubles(ni * nj);
    double *F = alloc_doubles(nj * nl);
    double *G = alloc_doubles(ni * nl);

    rng_seed(seed);
    init_array_2d(A, ni, nk);
    init_array_2d(B, nk, nj);
    init_array_2d(C, nj, nm);
    init_array_2d(D, nm, nl);

    kernel_3mm(ni, nj, nk, nl, nm, E, A, B, F, C, D, G);

    print_array_2d("E", E, ni, nj);
    print_array_2d("F", F, nj, nl);
    print_array_2d("G", G, ni, nl);
    free(A);
    free(B);
    free(C);
    free(D);
    free(E);
    free(F);
    free(G);
    return 0;
}
