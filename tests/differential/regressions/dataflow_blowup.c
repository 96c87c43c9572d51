// isl's dataflow analysis (compute_flow) of this program's anti dependences (writes as sinks, reads as
// may-sources) ran for minutes, so every target took more than five minutes before scheduling.  Found
// by bench/differential.py (seed 6, around program 248).  Each compute_flow is now bounded to
// COMPUTE_FLOW_OPERATIONS isl operations (polypragma/dependences.py); past it the lexicographic-maximum form
// answers (0.05 s here), and past its own bound the conservative one (every earlier access a source).
// VARIANT: --target c --fusion=max
// RUN: -- 1 2 0 2
// RUN: -- 2 2 8 3
#include "kernels.h"

static double A[5];
static double B[18][12];
static void kernel(int n, int m, int T, int a0, double A[a0], double B[18][12])
{
  int i2, i3, t;
#pragma scop
  for (t = 0; t < T; t++) {
    for (int i1 = ((t + 1) > (t + 2) ? (t + 1) : (t + 2)); i1 < n; i1++) {
      for (i2 = 2; i2 < t - m; i2 += 3) {
        if (B[12][0] > 0)
          B[i2 + 7][t] = 0.0 + 0.25 * fmax(B[2 * t + 8][t + i1 + 1], B[m - t + 8][t + 2]) + -0.5 * B[m - i1 + 8][i1 - 1];
        for (i3 = 2; i3 < t - m; i3 += 3) {
          B[i3 + 7][i1] += 0.125 + -0.25 * A[i3 + 1];
          B[n - i3 + 9][i3 - 2] = 0.0 + 0.25 * fmax(A[t + 2], A[t]);
        }
      }
      for (i2 = i1 - 2; i2 < n + 1; i2++) {
        B[t + 7][i1] += 0.125 + -0.25 * A[t + 1];
      }
    }
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
  int m = arg_int(argc, argv, 3, 1);
  int T = arg_int(argc, argv, 4, 1);
  init_array_range(&A[0], 5, -1.0, 1.0);
  init_array_range(&B[0][0], 216, -1.0, 1.0);
  kernel(n, m, T, 5, A, B);
  checksum_double("A", &A[0], 5);
  checksum_double("B", &B[0][0], 216);
  return 0;
}
