/* Stub of <omp.h> for polypragma's parser; the real header serves the real compile. */
#ifndef POLYPRAGMA_STUB_OMP_H
#define POLYPRAGMA_STUB_OMP_H
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
void omp_set_num_threads(int);
double omp_get_wtime(void);
#endif
