// isl's scheduler carried this program's dependences with 1486 + 2058t + 603i1 - 46i2 + 21i3, over
// a domain whose numbers are at most 4; isl's code generation then worked with numbers past a machine
// word, which its operation count does not bound: the c target's AST took more than ten minutes, and an
// opencl variant stalled as long in the tile boxes of the memory analysis.  Found by bench/differential.py
// (programs 8439-8442 of seed 6).  Such a schedule is not used (schedule.beyond_scale): the original
// order is kept, with a warning; 3-6 s a variant.
// VARIANT: --target c --fusion=max
// VARIANT: --target opencl --no-fp-contract --no-shared-memory --grid-size 1
// RUN: -- 1 2 0 1
// RUN: -- 2 0 2 1
// RUN: -- 3 1 6 4
// RUN: -- 4 0 9 4
#include "kernels.h"

static double A[12][11];
static double B[12][6];
static void kernel(int n, int m, int T, int a0, int a1, double A[a0][a1], double B[12][6])
{
  int i1, t;
  double s = 0.5;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i1 = t + 2; i1 <= m - 2; i1++) {
      s = -0.5 + 0.25 * B[i1 + 4][t + 2] + 0.5 * A[i1 + 4][t + 4];
    }
    for (i1 = t - 2; i1 <= 3; i1++) {
      for (int i2 = i1 - 2; i2 <= t - i1 + 2; i2++) {
        if (i1 % 2 == 1) {
          A[i2 + 4][i1 + 4] = 0.125 + 0.25 * B[i2 + 4][i1 + 2];
        } else {
          for (int i3 = i1 - 2; i3 <= t - i1 + 2; i3++) {
            if (i3 % 2 == 1) {
              A[i3 + 4][i2 + 4] = 0.125 + 0.25 * (double)i1;
            } else {
              s = -0.5 + 0.5 * A[i2 + 4][t + 4];
            }
          }
        }
      }
    }
  }
  B[5][2] += 0.0 + 0.25 * s;
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
  int T = arg_int(argc, argv, 4, 1);
  init_array_range(&A[0][0], 132, -1.0, 1.0);
  init_array_range(&B[0][0], 72, -1.0, 1.0);
  kernel(n, m, T, 12, 11, A, B);
  checksum_double("A", &A[0][0], 132);
  checksum_double("B", &B[0][0], 72);
  return 0;
}
