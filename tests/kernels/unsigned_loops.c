// RUN: -- 1 1
// RUN: -- 2 10
// RUN: -- 3 77
// covers: unsigned arithmetic: unsigned values that wrap around in statements (a multiplicative hash,
//         shifts), which every target computes as C does; size_t and unsigned parameters compared with
//         unsigned iterators (once refused as possibly negative: parameters of unsigned types are not
//         negative; every target reads them as signed values in the expressions isl builds, the GPU
//         targets once left that region as written), subscripts i - 1 on an unsigned iterator
// unsigned_loops: hashing and a prefix pass over unsigned data
#include "kernels.h"
#include <stddef.h>

static void kernel_hash(int len, unsigned H[len])
{
#pragma scop
    for (int i = 0; i < len; i++)
        H[i] = H[i] * 2654435761u + (unsigned)i;
    for (int i = 0; i < len; i++)
        H[i] ^= H[i] >> 7;
#pragma endscop
}

static void kernel_unsigned_loops(size_t n, unsigned m, unsigned H[n], double x[n])
{
#pragma scop
    for (size_t i = 1; i < n; i++)
        x[i] = x[i - 1] * 0.5 + (double)(H[i] % 1000u);
    for (unsigned j = 0; j < m; j++)
        H[j] = H[j] * 3u + j;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    unsigned *H = (unsigned *)calloc((size_t)n, sizeof(unsigned));
    double *x = alloc_doubles(n);

    rng_seed(seed);
    for (int i = 0; i < n; i++)
        H[i] = (unsigned)rng_u64();
    init_array_1d(x, n);

    kernel_hash(n, H);
    kernel_unsigned_loops((size_t)n, (unsigned)n / 2, H, x);

    for (int i = 0; i < n; i++)
        print_int_scalar("H", (int)(H[i] % 100000u));
    print_array_1d("x", x, n);
    free(H);
    free(x);
    return 0;
}
