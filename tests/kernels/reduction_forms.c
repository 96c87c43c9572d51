// RUN: -DN=1 -DM=1 -- 1
// RUN: -DN=9 -DM=4 -- 2
// RUN: -DN=700 -DM=33 -- 3
// covers: reduction-chain (x = x + a - b, x = a + x + b, x = a - (b - x), x = x * a * b), reduction-chain-on-rows,
//         reduction-chain-types (a long accumulator's terms in long), guarded-reduction-chain,
//         if-minimum-maximum (if (e > x) x = e, on scalars and rows), bitwise-reduction (|=, &=, ^= and
//         their chains, 32- and 64-bit, on scalars and rows), not-a-reduction (x = a - x, if (e > x) x = e + 1),
//         reduction-of-a-temporary (t = a[i] * 2; q += t * t beside a row sum into a local)
// Reductions in the other forms C programs write them.  A chain of additions and subtractions (or of
// multiplications) with the accumulator added among its terms is one as 'x += a - b' is: a thread's
// contribution is the chain with the accumulator replaced by the operator's identity in its type (-0.0,
// 0L, 1u), so that each operation runs in the type C gives it: 'w = w + v[i] + 2147483000' adds in long,
// where 'v[i] + 2147483000' would overflow an int.  'if (e > x) x = e' is 'x = max(x, e)' (a NaN e
// leaves x as it is, as the combination of two values does).  'z = a[i] - z' subtracts the accumulator,
// and 'if (a[i] > y) y = a[i] + 1.0' keeps a value other than the one it compares: their loops stay in
// order.  Integers' bitwise or, and and exclusive or are reductions too (CUDA's atomicOr/And/Xor, OpenCL's
// atomic_or/and/xor on 32 bits, a compare-and-swap on 64).  A sum of a temporary's values, 't = ...; q += t * t',
// needs t copied per iteration (expanded along i) for its loop to run in parallel, beside a row sum whose
// local needs no such copy.
#include "kernels.h"

#ifndef N
#define N 100
#endif
#ifndef M
#define M 10
#endif

static double a[N];
static double b[N];
static double A[M][N];
static double rows[M];
static int v[N];
static unsigned int small[N];
static double s, t, u, g, z, mx, y;
static double rowmax[M];
static int lo;
static int bor, band, rowbits[M];
static unsigned int bx;
static unsigned long ux;
static double tt, q, rowsum[M];
static long w;
static int k;
static unsigned int p;

static void kernel_chains(void)
{
#pragma scop
    for (int i = 0; i < N; i++)
        s = s + a[i] - 0.5 * b[i];
    for (int i = 0; i < N; i++)
        t = a[i] + t + b[i] * 2.0;
    for (int i = 0; i < N; i++)
        u = a[i] - (b[i] - u);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            rows[i] = rows[i] - A[i][j] + 1.0;
    for (int i = 0; i < N; i++)
        w = w + v[i] + 2147483000;
    for (int i = 0; i < N; i++)
        k = k - v[i] - i;
    for (int i = 0; i < N; i++)
        p = small[i] * p * 3u;
    for (int i = 0; i < N; i++)
        if (a[i] > 0.5)
            g = g + a[i] - 0.5;
    for (int i = 0; i < N; i++)
        z = a[i] - z;
    for (int i = 0; i < N; i++)
        if (a[i] > mx)
            mx = a[i];
    for (int i = 0; i < N; i++)
        if (2 * v[i] - i < lo) {
            lo = 2 * v[i] - i;
        }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            if (rowmax[i] <= A[i][j] * 2.0)
                rowmax[i] = A[i][j] * 2.0;
    for (int i = 0; i < N; i++)
        if (a[i] > y)
            y = a[i] + 1.0;
    for (int i = 0; i < N; i++)
        bor |= v[i] & 0x70f;
    for (int i = 0; i < N; i++)
        band = band & (v[i] | 0x7c00);
    for (int i = 0; i < N; i++)
        bx = bx ^ small[i] * 40503u ^ (unsigned int)i;
    for (int i = 0; i < N; i++)
        ux ^= (unsigned long)v[i] * 2654435761ul;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            rowbits[i] ^= v[j] << ((i + j) % 5);
    for (int i = 0; i < N; i++) {
        tt = a[i] * 2.0 - b[i];
        q += tt * tt;
    }
    for (int i = 0; i < M; i++) {
        double acc = 0.0;
        for (int j = 0; j < N; j++)
            acc = acc + A[i][j] * b[j];
        rowsum[i] = acc;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);

    rng_seed(seed);
    init_array_1d(a, N);
    init_array_1d(b, N);
    init_array_2d(&A[0][0], M, N);
    init_int_array(v, N, 0, 1000);
    for (int i = 0; i < N; i++)
        small[i] = (unsigned int)(2 * rng_int(0, 3) + 1);
    for (int i = 0; i < M; i++) {
        rows[i] = 0.5 * i;
        rowmax[i] = 0.75;
        rowbits[i] = i;
    }
    s = 1.5;
    t = -2.0;
    u = 0.25;
    g = 0.0;
    z = 3.0;
    w = -7;
    k = 11;
    p = 5u;
    mx = 0.25;
    lo = 900;
    y = 0.0;
    bor = 0x100000;
    band = -1;
    bx = 77u;
    ux = 5ul;
    tt = 0.0;
    q = 0.5;
    kernel_chains();
    print_scalar("s", s);
    print_scalar("t", t);
    print_scalar("u", u);
    print_array_1d("rows", rows, M);
    print_scalar("g", g);
    print_scalar("z", z);
    printf("w %ld k %d p %u lo %d\n", w, k, p, lo);
    print_scalar("mx", mx);
    print_array_1d("rowmax", rowmax, M);
    print_scalar("y", y);
    printf("bor %d band %d bx %u ux %lu\n", bor, band, bx, ux);
    print_int_array_1d("rowbits", rowbits, M);
    print_scalar("tt", tt);
    print_scalar("q", q);
    print_array_1d("rowsum", rowsum, M);
    return 0;
}
