#include "smooth.h"

void smooth(int passes, int n, double *x, double *scratch)
{
#pragma scop
  for (int p = 0; p < passes; p++) {
    for (int i = 1; i < n - 1; i++)
      scratch[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1];
    for (int i = 1; i < n - 1; i++)
      x[i] = scratch[i];
  }
#pragma endscop
}
