/* Region timer for the benchmark programs, linked into every benchmark binary.
 *
 * The corpus programs are compiled with -finstrument-functions (with kernels.h excluded), so
 * gcc calls these hooks on entry to and exit from main and from the functions main calls: the
 * kernel functions holding the marked regions.  The time spent in those calls, on the main
 * thread, is the region time, whatever ran it (the original loops, OpenMP threads, or the GPU
 * through the generated host code).  It is printed on stderr when the program ends:
 *
 *     bench: region 1234.567 ms
 *
 * This file itself is compiled without instrumentation.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static __thread int depth;
static __thread int main_thread;
static int started_main;
static double entered;
static double total_ms;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void report(void)
{
    fprintf(stderr, "bench: region %.3f ms\n", total_ms);
}

void __cyg_profile_func_enter(void *function, void *caller)
{
    (void)function;
    (void)caller;
    if (!started_main) {
        /* the first instrumented function is main */
        started_main = 1;
        main_thread = 1;
        atexit(report);
    }
    if (!main_thread)
        return;
    if (++depth == 2)
        entered = now_ms();
}

void __cyg_profile_func_exit(void *function, void *caller)
{
    (void)function;
    (void)caller;
    if (!main_thread)
        return;
    if (depth-- == 2)
        total_ms += now_ms() - entered;
}
