// isl's AST build wrote a wrong guard in a kernel with register promotion, (a2 + 1) % 3 where
// (n + 1) % 3 was meant, when the kernel's schedule listed its parameters in another order than the
// context ([t0, g0, g1, n, a0, a1, a2] against [n, a0, a1, a2, b0, t0, g0, g1]): a thread skipped its
// writes to C.  build_kernel_ast now gives both one order first.  Found by bench/differential.py
// (program 454, seed 6).
// VARIANT: --target opencl --no-fp-contract --no-shared-memory
// VARIANT: --target opencl --no-fp-contract
// RUN: -- 1 5 7
// RUN: -- 2 9 7
#include "kernels.h"

static double A[8][18][9];
static int B[9][14];
static double C[4][20];
static void kernel(int n, int m, int a0, int a1, int a2, double A[a0][a1][a2], int B[9][14], double C[4][20])
{
  int i0, i3;
  double s = 0.5;
  int k = 1;
#pragma scop
  for (i0 = n + 2; i0 > 2; i0 = i0 - 3) {
    for (int i1 = n + 1; i1 >= i0 + 1; i1--) {
      for (int i2 = MIN(i1 - 2, 1); i2 < MAX(i0 - 2, i0 - 2); i2++) {
        for (i3 = i0 - 2; i3 <= n - 2; i3++) {
          if (i2 - 1 < 0) {
            k = (k + -2 + 1 * B[i2][i0 + 2] + 2 * B[i3][i2] + -1 * k) % 997;
            s += 0.125 + -0.5 * (double)i1;
          } else {
            C[3][2 * i1 - 1] = 0.125 + 0.125 * (double)i3;
          }
          s -= -0.5 + 0.25 * fmax(A[i2 - 1][2 * i2 + 1][i2], C[0][2]);
        }
      }
    }
  }
#pragma endscop
  print_scalar("s", s);
  print_int_scalar("k", k);
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
  init_array_range(&A[0][0][0], 1296, -1.0, 1.0);
  init_int_array(&B[0][0], 126, -50, 50);
  init_array_range(&C[0][0], 80, -1.0, 1.0);
  kernel(n, m, 8, 18, 9, A, B, C);
  checksum_double("A", &A[0][0][0], 1296);
  checksum_int("B", &B[0][0], 126);
  checksum_double("C", &C[0][0], 80);
  return 0;
}
