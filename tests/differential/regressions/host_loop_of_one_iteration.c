// A host loop of one iteration (t = 0 here: the inner i3 loop runs only when t < 1) is no loop in
// isl's AST of the host code, and its iterator is not declared; the launch of the kernel inside
// passed that iterator (c0) to the kernel all the same, so the generated file did not compile.  The
// host dimensions and tile counts of a launch are now written by isl where the kernel stands
// (codegen/host.py, host_ast).  Found by bench/differential.py (programs 396-398, seed 6).
// VARIANT: --target opencl --no-fp-contract --no-reschedule
// RUN: -- 1 3 1
// RUN: -- 2 1 1
#include "kernels.h"

static double A[1][1][1];
static double B[11];
static int C[1];
static void kernel(int n, int T, int b0, double A[1][1][1], double B[b0], int C[1])
{
  int i1, i2, i3, t;
  double s = 0.5;
  int k = 1;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i1 = t; i1 < n; i1++) {
      for (int i2 = 2; i2 < n; i2++) {
        for (i3 = t; i3 < 1; i3++) {
          B[i1 + 2] = 0.0 + 0.5 * (double)t;
          if (s > 0)
            k = (0) % 997;
        }
      }
    }
    for (int i1 = n; i1 >= t + 1; i1--) {
      for (i2 = MIN(t + 2, t); i2 < n; i2++) {
        for (i3 = MIN(t, 3); i3 > MIN(3, 0); i3--) {
          s -= 0.0 + -0.25 * (double)t;
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
  int T = arg_int(argc, argv, 3, 1);
  init_array_range(&A[0][0][0], 1, -1.0, 1.0);
  init_array_range(&B[0], 11, -1.0, 1.0);
  init_int_array(&C[0], 1, -50, 50);
  kernel(n, T, 11, A, B, C);
  checksum_double("A", &A[0][0][0], 1);
  checksum_double("B", &B[0], 11);
  checksum_int("C", &C[0], 1);
  return 0;
}
