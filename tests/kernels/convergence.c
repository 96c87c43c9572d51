// RUN: -- 1 1 0.5
// RUN: -- 2 9 0.01
// RUN: -- 3 24 0.001
// RUN: -- 4 40 0.0001
// covers: convergence loops around parallel loops, run on the host with the statements before, in and
//         after them as regions of their own whose arrays stay on the device: a while loop on a residual
//         computed by a max reduction, a do-while on a count of changed elements, a counted loop that
//         leaves on a residual (its iterator read after the region) with a convergence loop inside it
// convergence: Jacobi relaxation to a tolerance, smoothing until nothing moves, damped sweeps
#include "kernels.h"

static int relax(int n, double tol, double *u, double *v, double *residual)
{
    int it = 0;
    double diff = tol + 1.0;
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            v[i * n + j] = u[i * n + j];
    while (diff > tol && it < 500) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
        diff = 0.0;
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++) {
                diff = MAX(diff, fabs(v[i * n + j] - u[i * n + j]));
                u[i * n + j] = v[i * n + j];
            }
        it++;
    }
    *residual = diff;
#pragma endscop
    return it;
}

static int smooth(int n, double tol, double *a, double *b)
{
    int moved, rounds = 0;
#pragma scop
    do {
        moved = 0;
        for (int k = 1; k < n - 1; k++)
            b[k] = (a[k - 1] + 2.0 * a[k] + a[k + 1]) / 4.0;
        for (int k = 1; k < n - 1; k++) {
            moved += fabs(b[k] - a[k]) > tol;
            a[k] = b[k];
        }
        rounds++;
    } while (moved > 0 && rounds < 1000);
#pragma endscop
    return rounds;
}

static double damp(int n, double tol, double *a, double *b)
{
    int sweep;
    double change = 0.0;
#pragma scop
    for (sweep = 0; sweep < 50; sweep++) {
        for (int k = 0; k < n; k++)
            a[k] = 0.5 * a[k] + 0.25;
        change = 1.0;
        while (change > tol) {
            change = 0.0;
            for (int k = 0; k < n; k++) {
                change = MAX(change, fabs(b[k] - a[k]));
                b[k] = 0.5 * (b[k] + a[k]);
            }
        }
        if (fabs(change) < tol * 1e-3 * sweep)
            break;
    }
#pragma endscop
    return sweep + change;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 12);
    double tol = argc > 3 ? atof(argv[3]) : 0.001;
    double *u = alloc_doubles(n * n), *v = alloc_doubles(n * n), residual = -1.0;

    rng_seed(seed);
    init_array_1d(u, n * n);
    init_array_1d(v, n * n);
    int its = relax(n, tol, u, v, &residual);
    int rounds = smooth(n * n, tol, u, v);
    double damped = damp(n, tol, v, u);

    printf("relax %d %.17g\n", its, residual);
    printf("smooth %d\n", rounds);
    printf("damp %.17g\n", damped);
    print_array_1d("u", u, n * n);
    print_array_1d("v", v, n * n);
    free(u);
    free(v);
    return 0;
}
