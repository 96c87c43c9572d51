/* The library's results against the same computation written out here, on the CPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "physics.h"

#define HEAT_ALPHA 0.125 /* as the build defines it for the library */

static int compare(const char *what, int count, const double *got, const double *want, double tolerance)
{
  for (int k = 0; k < count; k++)
    if (fabs(got[k] - want[k]) > tolerance * (1.0 + fabs(want[k]))) {
      fprintf(stderr, "%s: element %d is %.17g, expected %.17g\n", what, k, got[k], want[k]);
      return 1;
    }
  printf("%s: %d values match\n", what, count);
  return 0;
}

int main(void)
{
  int n = 37, steps = 12, failures = 0;
  double (*u)[n] = malloc(sizeof(double[n][n])), (*v)[n] = malloc(sizeof(double[n][n]));
  double (*ru)[n] = malloc(sizeof(double[n][n])), (*rv)[n] = malloc(sizeof(double[n][n]));
  srand(7);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      u[i][j] = ru[i][j] = v[i][j] = rv[i][j] = rand() / (double)RAND_MAX;
  heat_steps(steps, n, u, v);
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        rv[i][j] = ru[i][j] + HEAT_ALPHA * (ru[i - 1][j] + ru[i + 1][j] + ru[i][j - 1] + ru[i][j + 1] - 4.0 * ru[i][j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        ru[i][j] = rv[i][j];
  }
  failures += compare("heat_steps", n * n, &u[0][0], &ru[0][0], 1e-12);

  int m = 1000;
  float *x = malloc(m * sizeof(float)), *y = malloc(m * sizeof(float));
  double *got = malloc(m * sizeof(double)), *want = malloc(m * sizeof(double));
  for (int i = 0; i < m; i++) {
    x[i] = (float)i / m;
    y[i] = 1.0f - (float)i / m;
    want[i] = 2.5f * x[i] + y[i];
  }
  saxpy(m, 2.5f, x, y);
  for (int i = 0; i < m; i++)
    got[i] = y[i];
  failures += compare("saxpy", m, got, want, 1e-6);
  return failures != 0;
}
