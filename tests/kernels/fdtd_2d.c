// RUN: -- 1 1 1 1
// RUN: -- 2 13 17 5
// RUN: -- 3 44 52 8
// covers: vla-params, time-loop, sequence-of-nests inside a loop (4 nests),
//         imperfect-nest, array indexed by time iterator (fict[t]),
//         compound-assign (-=), loops starting at 1
// fdtd_2d: 2-D finite-difference time-domain kernel
#include "kernels.h"

static void kernel_fdtd_2d(int tmax, int nx, int ny, double ex[nx][ny],
                           double ey[nx][ny], double hz[nx][ny], double fict[tmax])
{
    int t, i, j;

#pragma scop
    for (t = 0; t < tmax; t++) {
        for (j = 0; j < ny; j++)
            ey[0][j] = fict[t];
        for (i = 1; i < nx; i++)
            for (j = 0; j < ny; j++)
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
        for (i = 0; i < nx; i++)
            for (j = 1; j < ny; j++)
                ex[i][j] -= 0.5 * (hz[i][j] - hz[i][j - 1]);
        for (i = 0; i < nx - 1; i++)
            for (j = 0; j < ny - 1; j++)
                hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j]
                                             + ey[i + 1][j] - ey[i][j]);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int nx = arg_size(argc, argv, 2, 20);
    int ny = arg_size(argc, argv, 3, 30);
    int tmax = arg_size(argc, argv, 4, 5);
    double ex[nx][ny], ey[nx][ny], hz[nx][ny];
    double fict[tmax];
    int t;

    rng_seed(seed);
    init_array_2d(&ex[0][0], nx, ny);
    init_array_2d(&ey[0][0], nx, ny);
    init_array_2d(&hz[0][0], nx, ny);
    for (t = 0; t < tmax; t++)
        fict[t] = (double)t;

    kernel_fdtd_2d(tmax, nx, ny, ex, ey, hz, fict);

    print_array_2d("ex", &ex[0][0], nx, ny);
    print_array_2d("ey", &ey[0][0], nx, ny);
    print_array_2d("hz", &hz[0][0], nx, ny);
    return 0;
}
