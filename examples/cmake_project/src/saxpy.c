#include "physics.h"

void saxpy(int n, float a, float *x, float *y)
{
#pragma scop
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
#pragma endscop
}
