// Wrong results, fixed: with --fusion=max --no-shared-memory --tile-size 1 --block-size 1 (opencl), eight
// instances of the statement at line 30 (the +=) ran twice at arguments 1 7 1.  isl's bounds of the loop
// of k1 combine the blocks' congruence modulo the grid (65535) with the threads' modulo the block (2)
// and write 2147385345 * b2 (32767 x 65535) and a division by 4294836225 (65535 squared): computed in
// int, the product wrapped around and the loop of k1 started at 0 in a block whose instances for k1 = 0
// the part above had already run.  Such operations are now computed in long long (codegen/overflow.py).
// Found by bench/differential.py (program 2625, seed 6).
// VARIANT: --target opencl --no-fp-contract --fusion=max --no-shared-memory --tile-size 1 --block-size 1
// RUN: -- 1 7 1
// RUN: -- 2 0 1
#include "kernels.h"

static double A[10][19][13];
static void kernel(int n, int T, double A[10][19][13])
{
  int i1, i2, t;
  double s = 0.5;
  int k = 1;
#pragma scop
  for (t = 0; t < T; t++) {
    if (t % 2 == 0) {
      for (i1 = t; i1 < n + 1; i1++) {
        for (i2 = t + 2; i2 < MIN(t, n + 2); i2++) {
          for (int i3 = i2 - i1 - 2; i3 < n + 1; i3++) {
            A[i2][i2][i1 + 3] = 0.0 + 0.5 * A[t + i2][2][6];
          }
        }
        for (i2 = i1 + 2; i2 >= t; i2--) {
          for (int i3 = n; i3 >= 3; i3--) {
            A[i3][i2][i1 + 3] += 0.0 + 0.5 * A[1][2 * i1][n - t + 2];
          }
        }
      }
      if (s > 0)
        A[t][0][t + 3] = 0.0 + 0.375 * (double)t;
    } else {
      for (i1 = MIN(t + 2, 2); i1 < n; i1++) {
        for (int i2 = 0; i2 > MIN(0, 1); i2--) {
          A[3][t][t + 3] = 0.0 + 0.375 * A[t + 2][2][3];
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
  init_array_range(&A[0][0][0], 2470, -1.0, 1.0);
  kernel(n, T, A);
  checksum_double("A", &A[0][0][0], 2470);
  return 0;
}
