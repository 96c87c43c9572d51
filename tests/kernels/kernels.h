/* kernels.h - shared helpers for the polypragma kernel test corpus.
 *
 * Everything here is deterministic: the PRNG is a plain 64-bit SplitMix
 * generator seeded from an integer, and the printers print every element
 * of an array with "%.17g" so that any numerical difference shows up.
 *
 * None of these helpers may be called inside a "#pragma scop" region; the
 * regions only use the macros MIN / MAX / SQR and the math functions.
 * All functions are "static inline" so that programs using only a few of
 * them compile without unused-function warnings.
 */
#ifndef KERNELS_H
#define KERNELS_H

#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* "#pragma scop" / "#pragma endscop" are unknown to GCC, and -Wall turns on
 * -Wunknown-pragmas; silence exactly that warning for every file that
 * includes this header, so the kernels build without warnings. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

#define MIN(a, b) (((a) < (b)) ? (a) : (b))
#define MAX(a, b) (((a) > (b)) ? (a) : (b))
#define SQR(x) ((x) * (x))
#define ABS_DIFF(a, b) (((a) > (b)) ? ((a) - (b)) : ((b) - (a)))

/* ------------------------------------------------------------------ */
/* Command line                                                        */
/* ------------------------------------------------------------------ */

/* argv[idx] as an int, or def when the argument is missing. */
static inline int arg_int(int argc, char **argv, int idx, int def)
{
    if (idx < argc)
        return atoi(argv[idx]);
    return def;
}

/* POLYPRAGMA_BENCH (bench/run_gpu.py): the same programs at realistic sizes,
 * printing a checksum per array instead of every element. */
#ifdef POLYPRAGMA_BENCH
#define KERNELS_MAX_SIZE (1 << 24)
#else
#define KERNELS_MAX_SIZE 4096
#endif

/* A size argument: like arg_int but never smaller than 1 and never
 * larger than KERNELS_MAX_SIZE, so that VLAs and loops stay well defined. */
static inline int arg_size(int argc, char **argv, int idx, int def)
{
    int v = arg_int(argc, argv, idx, def);
    if (v < 1)
        v = 1;
    if (v > KERNELS_MAX_SIZE)
        v = KERNELS_MAX_SIZE;
    return v;
}

/* ------------------------------------------------------------------ */
/* Deterministic PRNG (SplitMix64)                                     */
/* ------------------------------------------------------------------ */

static unsigned long long kernels_rng_state = 0x853C49E6748FEA9BULL;

static inline void rng_seed(int seed)
{
    kernels_rng_state = 0x9E3779B97F4A7C15ULL
        ^ ((unsigned long long)(unsigned int)seed * 0xBF58476D1CE4E5B9ULL);
}

static inline unsigned long long rng_u64(void)
{
    unsigned long long z;
    kernels_rng_state += 0x9E3779B97F4A7C15ULL;
    z = kernels_rng_state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static inline double rng_double(void)
{
    return (double)(rng_u64() >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform double in [lo, hi). */
static inline double rng_range(double lo, double hi)
{
    return lo + (hi - lo) * rng_double();
}

/* Uniform int in [lo, hi] (inclusive); requires lo <= hi. */
static inline int rng_int(int lo, int hi)
{
    unsigned long long span = (unsigned long long)((long long)hi - (long long)lo + 1);
    return (int)((long long)lo + (long long)(rng_u64() % span));
}

/* ------------------------------------------------------------------ */
/* Initialisation (flat row-major storage; works for VLAs and globals)  */
/* ------------------------------------------------------------------ */

static inline void init_array_1d(double *a, int n)
{
    int i;
    for (i = 0; i < n; i++)
        a[i] = rng_double();
}

static inline void init_array_2d(double *a, int n, int m)
{
    init_array_1d(a, n * m);
}

static inline void init_array_3d(double *a, int n, int m, int p)
{
    init_array_1d(a, n * m * p);
}

/* Values in [lo, hi). */
static inline void init_array_range(double *a, int count, double lo, double hi)
{
    int i;
    for (i = 0; i < count; i++)
        a[i] = rng_range(lo, hi);
}

static inline void fill_array(double *a, int count, double v)
{
    int i;
    for (i = 0; i < count; i++)
        a[i] = v;
}

/* Square n x n matrix: random entries in [0,1) plus `diag` on the diagonal. */
static inline void init_diag_dominant(double *a, int n, double diag)
{
    int i;
    init_array_1d(a, n * n);
    for (i = 0; i < n; i++)
        a[i * n + i] += diag;
}

static inline void init_float_array(float *a, int count)
{
    int i;
    for (i = 0; i < count; i++)
        a[i] = (float)rng_double();
}

/* Ints in [lo, hi]. */
static inline void init_int_array(int *a, int count, int lo, int hi)
{
    int i;
    for (i = 0; i < count; i++)
        a[i] = rng_int(lo, hi);
}

static inline void fill_int_array(int *a, int count, int v)
{
    int i;
    for (i = 0; i < count; i++)
        a[i] = v;
}

/* ------------------------------------------------------------------ */
/* Allocation                                                          */
/* ------------------------------------------------------------------ */

static inline double *alloc_doubles(int count)
{
    double *p = (double *)calloc((size_t)count, sizeof(double));
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static inline int *alloc_ints(int count)
{
    int *p = (int *)calloc((size_t)count, sizeof(int));
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static inline float *alloc_floats(int count)
{
    float *p = (float *)calloc((size_t)count, sizeof(float));
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/* ------------------------------------------------------------------ */
/* Printing                                                            */
/* ------------------------------------------------------------------ */

#ifdef POLYPRAGMA_BENCH
/* the sum and the sum of magnitudes of an array, with full precision */
static inline void print_checksum(const char *name, const double *a, long count)
{
    double sum = 0.0, magnitude = 0.0;
    long i;
    for (i = 0; i < count; i++) {
        sum += a[i];
        magnitude += fabs(a[i]);
    }
    printf("%s: %ld elements, sum %.17g, magnitude %.17g\n", name, count, sum, magnitude);
}

static inline void print_float_checksum(const char *name, const float *a, long count)
{
    double sum = 0.0, magnitude = 0.0;
    long i;
    for (i = 0; i < count; i++) {
        sum += a[i];
        magnitude += fabs((double)a[i]);
    }
    printf("%s: %ld elements, sum %.17g, magnitude %.17g\n", name, count, sum, magnitude);
}

static inline void print_int_checksum(const char *name, const int *a, long count)
{
    long long sum = 0, weighted = 0;
    long i;
    for (i = 0; i < count; i++) {
        sum += a[i];
        weighted += (long long)a[i] * (i % 7 + 1);
    }
    printf("%s: %ld elements, sum %lld, weighted %lld\n", name, count, sum, weighted);
}

#endif

static inline void print_scalar(const char *name, double v)
{
    printf("%s = %.17g\n", name, v);
}

static inline void print_int_scalar(const char *name, int v)
{
    printf("%s = %d\n", name, v);
}

static inline void print_array_1d(const char *name, const double *a, int n)
{
    int i;
    for (i = 0; i < n; i++)
        printf("%s[%d] = %.17g\n", name, i, a[i]);
}

static inline void print_array_2d(const char *name, const double *a, int n, int m)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            printf("%s[%d][%d] = %.17g\n", name, i, j, a[i * m + j]);
}

static inline void print_array_3d(const char *name, const double *a, int n, int m, int p)
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            for (k = 0; k < p; k++)
                printf("%s[%d][%d][%d] = %.17g\n", name, i, j, k,
                       a[(i * m + j) * p + k]);
}

static inline void print_float_array_1d(const char *name, const float *a, int n)
{
    int i;
    for (i = 0; i < n; i++)
        printf("%s[%d] = %.17g\n", name, i, (double)a[i]);
}

static inline void print_float_array_2d(const char *name, const float *a, int n, int m)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            printf("%s[%d][%d] = %.17g\n", name, i, j, (double)a[i * m + j]);
}

static inline void print_int_array_1d(const char *name, const int *a, int n)
{
    int i;
    for (i = 0; i < n; i++)
        printf("%s[%d] = %d\n", name, i, a[i]);
}

static inline void print_int_array_2d(const char *name, const int *a, int n, int m)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            printf("%s[%d][%d] = %d\n", name, i, j, a[i * m + j]);
}

/* in bench mode every array printer prints its checksum */
#ifdef POLYPRAGMA_BENCH
#define print_array_1d(name, a, n) print_checksum(name, a, (long)(n))
#define print_array_2d(name, a, n, m) print_checksum(name, a, (long)(n) * (m))
#define print_array_3d(name, a, n, m, p) print_checksum(name, a, (long)(n) * (m) * (p))
#define print_float_array_1d(name, a, n) print_float_checksum(name, a, (long)(n))
#define print_float_array_2d(name, a, n, m) print_float_checksum(name, a, (long)(n) * (m))
#define print_int_array_1d(name, a, n) print_int_checksum(name, a, (long)(n))
#define print_int_array_2d(name, a, n, m) print_int_checksum(name, a, (long)(n) * (m))
#endif

#endif /* KERNELS_H */
