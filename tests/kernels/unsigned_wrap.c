// RUN: -- 1 250
// RUN: -- 2 3
// RUN: -- 3 128
// covers: loop iterators of unsigned types narrower than long that wrap around (C reduces them modulo
//         2^width): an unsigned char counting up past 255, one counting down past 0, an unsigned short
//         one and an unsigned int one past their largest values, modelled as pet does by a counter whose
//         value modulo 2^width is the iterator, on every target; an unsigned char loop that stays in its
//         range keeps the plain model
// unsigned_wrap: a ring buffer of 256 entries updated across its end
#include "kernels.h"

static void kernel_unsigned_wrap(int start, double ring[256], double big[65536], double out[256])
{
    unsigned char k;
    unsigned short h;
    unsigned int u;
#pragma scop
    for (k = 250; k != 6; k++)
        ring[k] = ring[k] * 0.5 + k;
    for (k = 3; k != 200; k -= 1)
        out[k] = ring[k] + ring[(k + 1) % 256];
    for (h = 65530; h != 10; h += 2)
        big[h] += 0.25 * h;
    for (u = 4294967290u; u != 20; u++)
        out[u % 256] += 0.5 * (u % 7);
    for (unsigned char j = 0; j < 100; j += 3)
        out[j] += big[j + 65400] + start;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int start = arg_int(argc, argv, 2, 250);
    double *ring = alloc_doubles(256);
    double *big = alloc_doubles(65536);
    double *out = alloc_doubles(256);

    rng_seed(seed);
    init_array_1d(ring, 256);
    init_array_1d(big, 65536);
    init_array_1d(out, 256);

    kernel_unsigned_wrap(start, ring, big, out);

    print_array_1d("ring", ring, 256);
    print_array_1d("out", out, 256);
    double sum = 0.0;
    for (int i = 0; i < 65536; i++)
        sum += big[i];
    print_scalar("big", sum);
    free(ring);
    free(big);
    free(out);
    return 0;
}
