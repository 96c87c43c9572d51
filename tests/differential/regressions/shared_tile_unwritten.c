// Wrong results on PoCL, not polypragma's: with shared-memory tiles (--tile-size 3; the tile of B is
// 59x31, its offsets piecewise), PoCL 3.1's optimised build gives values of B that vary from run to
// run, also with one PoCL thread.  The same kernel built with -cl-opt-disable gives the original's
// results, and so does its code run with one POSIX thread per work-item, pthread barriers and its local
// arrays poisoned before each work-group (also under AddressSanitizer).  This program runs unoptimised.
// Tried and reverted: affine offsets (one piece of the least element, as PPCG takes them) keep B in
// global memory and PoCL right here, but the simpler shared-memory code they give nussinov (default
// options) and syrk (wrapped tiles) PoCL's optimised build runs wrong in turn.  Found by
// bench/differential.py (programs 995-998, seed 6).
// VARIANT: --target opencl --no-fp-contract --tile-size 3
// ENV: POLYPRAGMA_OPENCL_OPTIONS=-cl-opt-disable
// RUN: -- 1 7
// RUN: -- 2 8
#include "kernels.h"

static int A[8][3][8];
static int B[10][10];
static int C[15][12][17];
static void kernel(int n, int A[8][3][8], int B[10][10], int C[15][12][17])
{
  int i0, i1;
#pragma scop
  for (i0 = 0; i0 < ((n + 1) < (n - 1) ? (n + 1) : (n - 1)); i0++) {
    for (i1 = i0 - 2; i1 <= ((i0 + 2) < (i0 - 1) ? (i0 + 2) : (i0 - 1)); i1++) {
      B[5][i0 + 2] = (B[5][i0 + 2] + 3 + 3 * C[1][i1 + 2][i1 + 7] + 2 * C[i0 + 1][i0][i1 + 10]) % 997;
    }
    B[i0][i0] = (B[i0][i0] + 0 + 1 * (B[i0 + 2][i0 + 1] > A[i0][2][i0] ? B[i0 + 2][i0 + 1] : A[i0][2][i0]) + -1 * C[1][i0 + 2][i0 + 8] + 3 * C[2 * i0][i0 + 4][n - i0 + 7]) % 997;
  }
#pragma endscop
}

static void checksum_double(const char *name, const double *a, int count)
{
  double sum = 0.0, weighted = 0.0;
  for (int k = 0; k < count; k++) {
    sum += a[k];
    weighted += a[k] * (double)(k % 17 + 1);
  }
  printf("%s %.17g %.17g\n", name, sum, weighted);
}

static void checksum_int(const char *name, const int *a, int count)
{
  long long sum = 0, weighted = 0;
  for (int k = 0; k < count; k++) {
    sum += a[k];
    weighted += (long long)a[k] * (k % 17 + 1);
  }
  printf("%s %lld %lld\n", name, sum, weighted);
}

int main(int argc, char **argv)
{
  rng_seed(arg_int(argc, argv, 1, 1));
  int n = arg_int(argc, argv, 2, 1);
  init_int_array(&A[0][0][0], 192, -50, 50);
  init_int_array(&B[0][0], 100, -50, 50);
  init_int_array(&C[0][0][0], 3060, -50, 50);
  kernel(n, A, B, C);
  checksum_int("A", &A[0][0][0], 192);
  checksum_int("B", &B[0][0], 100);
  checksum_int("C", &C[0][0][0], 3060);
  return 0;
}
