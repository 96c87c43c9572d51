// RUN: -- 1 1 0.9
// RUN: -- 2 9 0.5
// RUN: -- 3 31 0.999
// RUN: -- 4 12 -1.0
// RUN: -- 5 20 2.0
// covers: a return and a goto under conditions on data, which the model cannot place: the region is
//         one statement run as written (the GPU targets run it on one thread, the return an assignment of
//         region-level variables that the code after the call returns): a return of a value from inside a
//         loop nest, a goto out of a nest to the end of the region, locals declared in the region
// exits_on_data: find the first element above a threshold, then scale the rows before it
#include "kernels.h"

static int kernel_find(int n, double limit, double A[n][n], double x[n], int where[2])
{
#pragma scop
    double total = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            total += A[i][j];
            if (A[i][j] > limit) {
                where[0] = i;
                where[1] = j;
                return i * n + j;
            }
            x[i] = total;
        }
#pragma endscop
    return -1;
}

static void kernel_scale(int n, double limit, double A[n][n], double x[n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            if (x[j] > limit * n)
                goto done;
            A[i][j] *= 0.5;
        }
        x[i] += 1.0;
    }
done:
    x[0] -= 1.0;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 20);
    double limit = argc > 3 ? atof(argv[3]) : 0.9;
    double (*A)[n] = (double (*)[n])alloc_doubles(n * n);
    double *x = alloc_doubles(n);
    int where[2] = {-1, -1};

    rng_seed(seed);
    init_array_2d(&A[0][0], n, n);
    init_array_1d(x, n);

    int found = kernel_find(n, limit, A, x, where);
    kernel_scale(n, limit, A, x);

    print_int_scalar("found", found);
    print_int_scalar("row", where[0]);
    print_int_scalar("column", where[1]);
    print_array_2d("A", &A[0][0], n, n);
    print_array_1d("x", x, n);
    free(A);
    free(x);
    return 0;
}
