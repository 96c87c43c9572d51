#include <stdio.h>
#include <stdlib.h>

#include "physics.h"

/* usage: demo [n] [steps]: heat spreading from a hot edge; prints the total heat */
int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 256;
  int steps = argc > 2 ? atoi(argv[2]) : 100;
  double (*u)[n] = calloc((size_t)n * n, sizeof(double));
  double (*v)[n] = calloc((size_t)n * n, sizeof(double));
  if (!u || !v)
    return 1;
  for (int j = 0; j < n; j++)
    u[0][j] = v[0][j] = 100.0;
  heat_steps(steps, n, u, v);
  double total = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      total += u[i][j];
  printf("total heat after %d steps on %dx%d: %.6f\n", steps, n, n, total);
  free(u);
  free(v);
  return 0;
}
