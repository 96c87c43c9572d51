// Wrong results, fixed: kernel 1 (statements at lines 26, 30 and 32 below, --target opencl, default
// options) built in isl's atomic form started the strided loop of the statement at line 26 (step 2)
// at 0 where its domain holds only the values of the parity of a host dimension, so the statement ran
// at the values in between, for instances it had already run (wrong values of A[x][y][6]).  A
// dimension where the atomic form has a strided loop is now built in isl's default form.  Found by
// bench/differential.py (program 758, seed 6).
// VARIANT: --target opencl --no-fp-contract
// RUN: -- 1 4 3
// RUN: -- 2 4 1
#include "kernels.h"

static int A[24][24][14];
static void kernel(int n, int T, int A[24][24][14])
{
  int i1, i2, t;
#pragma scop
  for (t = 0; t < T; t++) {
    for (int i1 = 3; i1 < ((n) > (t) ? (n) : (t)); i1++) {
      for (i2 = 0; i2 < n - 1; i2++) {
        A[i2 + 6][2 * i1 + 7][i1 + 5] = (0 + -1 * A[9][i1 + 7][i1 + 5] + -1 * A[i2 + 7][i1 + 8][t + 3]) % 997;
      }
    }
    for (i1 = t - 2; i1 < n - 1; i1++) {
      for (i2 = t - 1; i2 < n; i2++) {
        A[i1 + i2 + 6][n - i1 + 7][6] = (A[i1 + i2 + 6][n - i1 + 7][6] + -2 + 3 * (A[8][10][i2 + 4] > A[t + 7][t + i1 + 8][i2 + 3] ? A[8][10][i2 + 4] : A[t + 7][t + i1 + 8][i2 + 3])) % 997;
        if (i1 % 2 == 0) {
          if (i2 - 1 < i2 + 2) {
            if (i2 + 2 != i2 - 2 && i2 + t + 1 != t) {
              A[2 * i1 + 7][n - t + 8][i1 + 2] = (A[2 * i1 + 7][n - t + 8][i1 + 2] + -1) % 997;
              for (int i3 = i1 + 2; i3 < n; i3++) {
                A[i1 + 7][t + 8][i3 + 4] = (3 + 2 * A[t + 8][n - i3 + 8][i1 + 3]) % 997;
              }
            } else {
              if (A[t + i1 + 7][t + 8][i1 + 4] > 0)
                A[2 * i2 + 7][2 * i2 + 7][i2 + 3] = (-1 + -1 * i1 + 1 * A[i2 + 7][i1 + 8][t + 3] + 1 * A[n - i1 + 7][t + 9][i2 + 1]) % 997;
            }
          }
        }
      }
    }
  }
  A[7][9][6] = (-1 + 2 * A[10][8][4]) % 997;
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
  int T = arg_int(argc, argv, 3, 1);
  init_int_array(&A[0][0][0], 8064, -50, 50);
  kernel(n, T, A);
  checksum_int("A", &A[0][0][0], 8064);
  return 0;
}
