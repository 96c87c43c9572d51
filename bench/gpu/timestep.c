// A time-stepping program: a 2-D Jacobi step (a function holding a region) called STEPS times from the
// host, ping-ponging two N x N grids, inside a data scope that keeps them on the device between calls
// (run it with POLYPRAGMA_DATA=copy to copy them at every call instead).  The program times each call
// (the host function returns when its kernels are done) and prints on stderr
//     timestep: calls STEPS, first F ms, rest R ms
//     timestep N STEPS
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void step(int n, const double *restrict in, double *restrict out)
{
#pragma scop
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            out[i * n + j] = 0.2 * (in[i * n + j] + in[i * n + j - 1] + in[i * n + j + 1]
                                    + in[(i - 1) * n + j] + in[(i + 1) * n + j]);
#pragma endscop
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int steps = argc > 2 ? atoi(argv[2]) : 1000;
    double *a = malloc(sizeof(double) * (size_t)n * n), *b = malloc(sizeof(double) * (size_t)n * n);
    if (a == NULL || b == NULL)
        return 2;
    for (long k = 0; k < (long)n * n; k++)
        a[k] = b[k] = (double)(k % 17) / 17.0;
    double first = 0.0, rest = 0.0;
#pragma polypragma data copy(a[0:(size_t)n * n], b[0:(size_t)n * n])
    {
        for (int t = 0; t < steps; t++) {
            double started = now_ms();
            if (t % 2 == 0)
                step(n, a, b);
            else
                step(n, b, a);
            double took = now_ms() - started;
            if (t == 0)
                first = took;
            else
                rest += took;
        }
    }
    fprintf(stderr, "timestep: calls %d, first %.4f ms, rest %.4f ms\n", steps, first, rest);
    printf("%.10e %.10e\n", a[(n / 2) * n + n / 2], b[(n / 3) * n + n / 4]);
    free(a);
    free(b);
    return 0;
}
