/* Two loop nests for polypragma's Python API (see example.py): a matrix product and a 2-D Jacobi
 * stencil with a time loop.  Ordinary C: a macro, variable-length array parameters. */
#define WEIGHT 0.2

void gemm(int ni, int nj, int nk, double alpha, double beta, double C[ni][nj], const double A[ni][nk],
          const double B[nk][nj])
{
#pragma scop
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}

void jacobi_2d(int tsteps, int n, double A[n][n], double B[n][n])
{
#pragma scop
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = WEIGHT * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = WEIGHT * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
  }
#pragma endscop
}
