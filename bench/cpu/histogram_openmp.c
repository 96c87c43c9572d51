/* A histogram of N updates into B bins three ways: in order, with OpenMP and an atomic update each, and
   with OpenMP and the bins in a reduction clause (an array section).  bench/results/openmp_reductions.md
   says why --openmp keeps a histogram in order.  gcc -O2 -fopenmp -DB=256 histogram_openmp.c */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define N 8000000
#ifndef B
#define B 256
#endif
static int key[N], count[B];
int main(void) {
  for (int i = 0; i < N; i++) key[i] = (int)((i * 2654435761u) % B);
  double t0 = omp_get_wtime();
  for (int i = 0; i < N; i++) count[key[i]]++;
  double t1 = omp_get_wtime();
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
#pragma omp atomic
    count[key[i]] += 1;
  }
  double t2 = omp_get_wtime();
#pragma omp parallel for reduction(+:count[:B])
  for (int i = 0; i < N; i++) count[key[i]] += 1;
  double t3 = omp_get_wtime();
  printf("B=%d seq %.1f ms atomic %.1f ms section %.1f ms (%d)\n", B, (t1-t0)*1e3, (t2-t1)*1e3, (t3-t2)*1e3, count[0]);
  return 0;
}
