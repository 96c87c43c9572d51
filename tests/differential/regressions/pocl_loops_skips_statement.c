// With shared-memory tiles for A and B (not coalesced), PoCL 3.1's optimised build of this kernel
// skips its statement for the thread that must run it, and A[2][4][2] keeps its old value (a printf
// added to the kernel showed a guard on get_local_id(0) taken by every work-item).  The kernel is right
// with PoCL's optimisations off (-cl-opt-disable) and with POCL_WORK_GROUP_METHOD=workitemrepl.  Moving
// the barrier that ends the tile loop's body to the front of the copy-in fixed this program but broke
// fdtd_2d and floyd_warshall (heap corruption) under PoCL's default method, so the code stays, and this
// program runs unoptimised.  Found by bench/differential.py (programs 660-666, seed 6).
// VARIANT: --target opencl --no-fp-contract --no-private-memory --tile-size 5
// VARIANT: --target opencl --no-fp-contract --no-private-memory --tile-size 5,1,7 --grid-size 3,1,2
// ENV: POLYPRAGMA_OPENCL_OPTIONS=-cl-opt-disable
// RUN: -- 1 5 5
// RUN: -- 2 2 9
#include "kernels.h"

static double A[7][9][3];
static double B[17][25];
static void kernel(int n, int m, double B[17][25])
{
  int i0, i1, i2, i3;
  double s = 0.5;
#pragma scop
  for (i0 = 2; i0 < m - 2; i0++) {
    A[i0][i0 + 2][2] = 0.125 + 0.25 * B[i0 - 1][i0 + 8] + 0.125 * (double)i0 + 0.125 * s;
  }
  for (i0 = 1; i0 <= m - 1; i0++) {
    for (i1 = i0 + 2; i1 <= n - 1; i1++) {
      for (i2 = 3; i2 < i0; i2++) {
        for (i3 = i1; i3 <= i1 + 2; i3++) {
          s = 0.125 + -0.25 * B[i0 + i1][2 * i2 + 10];
        }
      }
      if (i0 + 1 == i1 + 1 || i0 - 1 == m) {
        for (i2 = i1 - i0 + 2; i2 < n - 1; i2++) {
          for (i3 = i0 - 2; i3 < MIN(n + 1, i0 - 1); i3++) {
            if (s > 0)
              s += 0.0 + 0.25 * s;
            B[i1 - 1][n - i0 + 8] += 0.125 + -0.5 * (double)i2;
          }
        }
      }
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
  int m = arg_int(argc, argv, 3, 1);
  init_array_range(&A[0][0][0], 189, -1.0, 1.0);
  init_array_range(&B[0][0], 425, -1.0, 1.0);
  kernel(n, m, B);
  checksum_double("A", &A[0][0][0], 189);
  checksum_double("B", &B[0][0], 425);
  return 0;
}
