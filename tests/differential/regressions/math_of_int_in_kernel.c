// RUN: -- 1 5
// RUN: -- 2 8
// VARIANT: --target opencl --no-fp-contract
// Math functions applied to int values: C converts the argument to double, but OpenCL (and CUDA)
// overload fabs, sqrt, fmax and pow, and an int argument is ambiguous there, so the OpenCL build
// failed ("call to '_cl_fabs' is ambiguous") unless the kernel converts it as C does.
#include "kernels.h"

static int A[8];
static double B[8];

static void kernel(int n, int A[8], double B[8])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = sqrt(fabs(A[i])) + 0.5 * fmax(A[i], B[i]) + 0.25 * pow(A[i], 2) + floorf(A[i]);
#pragma endscop
}

int main(int argc, char **argv)
{
  rng_seed(arg_int(argc, argv, 1, 1));
  int n = arg_int(argc, argv, 2, 1);
  init_int_array(A, 8, -50, 50);
  init_array_range(B, 8, -1.0, 1.0);
  kernel(n, A, B);
  print_int_array_1d("A", A, 8);
  print_array_1d("B", B, 8);
  return 0;
}
