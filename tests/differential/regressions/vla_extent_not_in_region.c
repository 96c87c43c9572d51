// RUN: -- 1 5
// RUN: -- 2 0
// VARIANT: --target opencl --no-fp-contract
// The second extent of the variable-length array A is named only in its declaration, never in the
// region: it must still become a parameter, or the GPU targets do not know A's row length and leave
// the region as written ("array 'A' with unknown extent in dimension 1").
#include "kernels.h"

static double A[6][7];

static void kernel(int n, int a0, int a1, double A[a0][a1])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i][3] = 0.5 * A[i][2];
#pragma endscop
}

int main(int argc, char **argv)
{
  rng_seed(arg_int(argc, argv, 1, 1));
  int n = arg_int(argc, argv, 2, 1);
  init_array_range(&A[0][0], 42, -1.0, 1.0);
  kernel(n, 6, 7, A);
  print_array_2d("A", &A[0][0], 6, 7);
  return 0;
}
