// RUN: -DN=2 -DTSTEPS=1 -- 1
// RUN: -DN=17 -DTSTEPS=3 -- 2
// RUN: -DN=48 -DTSTEPS=5 -- 3
// covers: fixed-size-global-arrays, decrementing-loop (j = N - 2; j >= 1; j--),
//         read-only-scalars (a..f), macro-params-in-bounds, time-loop,
//         sequence-of-nests, index arithmetic (j + 1), imperfect-nest
// adi: alternating direction implicit solver (polybench formulation)
#include "kernels.h"

#ifndef N
#define N 30
#endif
#ifndef TSTEPS
#define TSTEPS 4
#endif

static double u[N][N];
static double v[N][N];
static double p[N][N];
static double q[N][N];

static void kernel_adi(void)
{
    int t, i, j;
    double DX, DY, DT, B1, B2, mul1, mul2, a, b, c, d, e, f;

    DX = 1.0 / (double)N;
    DY = 1.0 / (double)N;
    DT = 1.0 / (double)TSTEPS;
    B1 = 2.0;
    B2 = 1.0;
    mul1 = B1 * DT / (DX * DX);
    mul2 = B2 * DT / (DY * DY);

    a = -mul1 / 2.0;
    b = 1.0 + mul1;
    c = a;
    d = -mul2 / 2.0;
    e = 1.0 + mul2;
    f = d;

#pragma scop
    for (t = 1; t <= TSTEPS; t++) {
        /* column sweep */
        for (i = 1; i < N - 1; i++) {
            v[0][i] = 1.0;
            p[i][0] = 0.0;
            q[i][0] = v[0][i];
            for (j = 1; j < N - 1; j++) {
                p[i][j] = -c / (a * p[i][j - 1] + b);
                q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i]
                           - f * u[j][i + 1] - a * q[i][j - 1])
                          / (a * p[i][j - 1] + b);
            }
            v[N - 1][i] = 1.0;
            for (j = N - 2; j >= 1; j--)
                v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
        }
        /* row sweep */
        for (i = 1; i < N - 1; i++) {
            u[i][0] = 1.0;
            p[i][0] = 0.0;
            q[i][0] = u[i][0];
            for (j = 1; j < N - 1; j++) {
                p[i][j] = -f / (d * p[i][j - 1] + e);
                q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j]
                           - c * v[i + 1][j] - d * q[i][j - 1])
                          / (d * p[i][j - 1] + e);
            }
            u[i][N - 1] = 1.0;
            for (j = N - 2; j >= 1; j--)
                u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_array_2d(&u[0][0], N, N);

    kernel_adi();

    print_array_2d("u", &u[0][0], N, N);
    print_array_2d("v", &v[0][0], N, N);
    print_array_2d("p", &p[0][0], N, N);
    print_array_2d("q", &q[0][0], N, N);
    return 0;
}
