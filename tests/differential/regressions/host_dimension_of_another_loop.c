// The launches passed host dimension j to the kernel as the host iterator c<j>; where isl's AST
// of the host code had no loop for that dimension (one value: h2 = 5 - h1, h1 = 1, h2 = 3 here),
// c<j> was the iterator of another loop in scope, so kernels ran for the wrong instances (s wrong).
// The host dimensions and tile counts of a launch are now written by isl where the kernel stands
// (codegen/host.py, host_ast).  Found by bench/differential.py (programs 554 and 555, seed 6).
// VARIANT: --target opencl --no-fp-contract --fusion=min --tile-size 2
// RUN: -- 1 0 0 1
// RUN: -- 2 2 3 3
#include "kernels.h"

static double A[11][4];
static double B[10][18][11];
static int C[10][10][11];
static void kernel(int n, int m, int T, int b0, int b1, int b2, double B[b0][b1][b2], int C[10][10][11])
{
  int i2, t;
  double s = 0.5;
  int k = 1;
#pragma scop
  for (t = 0; t < T; t++) {
    for (int i1 = n; i1 >= 2; i1--) {
      for (i2 = 1; i2 <= n; i2++) {
        for (int i3 = n; i3 >= MIN(t, 2); i3--) {
          A[t][2] = 0.0 + -0.25 * fmax(s, C[i3][i2][i1 + 1]);
        }
      }
    }
    for (int i1 = MIN(n + 1, 3); i1 >= t + 1; i1--) {
      for (int i2 = n; i2 >= MIN(0, t); i2--) {
        for (int i3 = 1; i3 < n; i3++) {
          C[i2][t][i1 - 1] = (0) % 997;
          s -= 0.0 + -0.25 * B[i3][i2 + 8][i1] + -0.25 * s;
        }
      }
      for (i2 = MIN(i1 + 2, 0); i2 <= m; i2++) {
        if (i2 % 2 == 0) {
          if (s > 0)
            s = -0.5 + 0.25 * B[i2][i1 + 8][t];
        } else {
          if (k > 0)
            B[t][t - i2 + 9][i2 + 1] = -0.5 + 0.125 * A[i2 + 1][i1];
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
  int T = arg_int(argc, argv, 4, 1);
  init_array_range(&A[0][0], 44, -1.0, 1.0);
  init_array_range(&B[0][0][0], 1980, -1.0, 1.0);
  init_int_array(&C[0][0][0], 1100, -50, 50);
  kernel(n, m, T, 10, 18, 11, B, C);
  checksum_double("A", &A[0][0], 44);
  checksum_double("B", &B[0][0][0], 1980);
  checksum_int("C", &C[0][0][0], 1100);
  return 0;
}
