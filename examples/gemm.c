/* polypragma's quick-start example: C = alpha * A * B + beta * C, then a
 * 2-D Jacobi smoothing of C.  Ordinary C: macros, <math.h>, C99 variable-length
 * arrays.  Only the two marked regions are compiled by polypragma. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 4

static void gemm(int n, double alpha, double beta, double C[n][n], double A[n][n], double B[n][n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < n; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}

static void smooth(int n, double C[n][n], double T[n][n])
{
#pragma scop
  for (int t = 0; t < STEPS; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        T[i][j] = 0.2 * (C[i][j] + C[i - 1][j] + C[i + 1][j] + C[i][j - 1] + C[i][j + 1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        C[i][j] = sqrt(fabs(T[i][j]));
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 300;
  double (*A)[n] = malloc(sizeof(double[n][n]));
  double (*B)[n] = malloc(sizeof(double[n][n]));
  double (*C)[n] = malloc(sizeof(double[n][n]));
  double (*T)[n] = malloc(sizeof(double[n][n]));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i][j] = (double)((i * j + 1) % n) / n;
      B[i][j] = (double)((i + 2 * j) % n) / n;
      C[i][j] = (double)(i - j) / n;
      T[i][j] = 0.0;
    }
  gemm(n, 1.5, 1.2, C, A, B);
  smooth(n, C, T);
  double checksum = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      checksum += C[i][j] * (1 + (i + j) % 7);
  printf("n = %d, checksum = %.17g\n", n, checksum);
  free(A); free(B); free(C); free(T);
  return 0;
}
