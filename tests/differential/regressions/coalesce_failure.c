// isl's coalescing of the reductions' coincidence relation failed ("cannot relax redundant constraint"),
// and the region was left as written with a warning; a union isl cannot coalesce is now used as it is
// (isl_helpers.coalesced).  Found by bench/differential.py (programs 1602 and 1603, seed 6).
// VARIANT: --target opencl --no-fp-contract --no-private-memory --grid-size 4
// RUN: -- 1 3
// RUN: -- 2 7
#include "kernels.h"

static double A[27][23][21];
static double B[38][25];
static double C[7];
static void kernel(int n, int b0, int b1, double A[27][23][21], double B[b0][b1], double C[7])
{
  int i0, i1, i3;
  double s = 0.5;
#pragma scop
  for (i0 = 0; i0 < n - 2; i0++) {
    for (i1 = i0 + 1; i1 < n - 1; i1++) {
      for (int i2 = n + 1; i2 > i0 - i1; i2--) {
        for (i3 = ((1) < (i1 - 2) ? (1) : (i1 - 2)); i3 <= i2 + n; i3++) {
          B[i3 + 17][i2 + 6] = 0.0 + 0.25 * s + -0.5 * (A[9][7][i1 + 1] > A[i2 + 8][i0 + i2 + 6][i3 + 1] ? A[9][7][i1 + 1] : A[i2 + 8][i0 + i2 + 6][i3 + 1]) + -0.5 * fmax(B[n - i2 + 16][7], B[i1 - i3 + 18][i2 + 6]);
          A[i3 + 7][i2 + 6][i1 + 1] -= 0.0 + 0.5 * B[i3 + 17][i2 + 6] + -0.25 * B[i3 + 18][i3 + 5] + -0.25 * fmax(s, C[2]);
        }
        for (i3 = MAX(i2 + 2, i2 + 2); i3 < n + 1; i3++) {
          B[2 * i3 + 18][i1 + 8] += 0.0 + 0.25 * fmax(B[i3 + 17][i2 + 6], A[i2 + 6][8][i1 + 1]) + -0.5 * C[i1 - 1];
        }
      }
    }
  }
  for (i0 = 3; i0 < n + 1; i0++) {
    if (n + 2 != i0 + 2 && n - 2 > i0) {
      s = 0.125 + 0.125 * s;
    }
  }
#pragma endscop
  print_scalar("s", s);
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
  init_array_range(&A[0][0][0], 13041, -1.0, 1.0);
  init_array_range(&B[0][0], 950, -1.0, 1.0);
  init_array_range(&C[0], 7, -1.0, 1.0);
  kernel(n, 38, 25, A, B, C);
  checksum_double("A", &A[0][0][0], 13041);
  checksum_double("B", &B[0][0], 950);
  checksum_double("C", &C[0], 7);
  return 0;
}
