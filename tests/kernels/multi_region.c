// RUN: -- 1 1
// RUN: -- 2 41
// RUN: -- 3 300
// covers: four-regions (three in one function, one in main), scalars-written-
//         in-region (sum +=, prod *=, mx via conditional on array values,
//         dot -=, scale /=) printed afterwards, data-dependent-if on array
//         values, flat-pointer (1-D heap arrays), read-only-scalars,
//         loop-var-declared-in-for
// multi_region: a chain of small 1-D regions with scalar reductions
#include "kernels.h"

static void kernel_multi(int n, double *a, double *b, double *c, double *out)
{
    int i;
    double sum = 0.0;
    double prod = 1.0;
    double mx = -1.0;
    double dot = 0.0;
    double scale = 1024.0;

#pragma scop
    for (i = 0; i < n; i++) {
        sum += a[i];
        prod *= 1.0 + a[i] / n;
    }
#pragma endscop

#pragma scop
    for (i = 0; i < n; i++) {
        mx = a[i] > mx ? a[i] : mx;
        if (b[i] > 0.5)
            c[i] = b[i] - sum / n;
        else
            c[i] = b[i] + prod;
    }
#pragma endscop

#pragma scop
    for (i = n - 1; i >= 0; i--) {
        dot -= c[i] * a[i];
        scale /= 1.0 + b[i] / n;
    }
    for (i = 0; i < n; i++)
        c[i] = c[i] * scale + dot / n;
#pragma endscop

    out[0] = sum;
    out[1] = prod;
    out[2] = mx;
    out[3] = dot;
    out[4] = scale;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 100);
    double *a = alloc_doubles(n);
    double *b = alloc_doubles(n);
    double *c = alloc_doubles(n);
    double *d = alloc_doubles(n);
    double out[5];
    double alpha = 0.125;
    double acc = 0.0;

    rng_seed(seed);
    init_array_1d(a, n);
    init_array_1d(b, n);

    kernel_multi(n, a, b, c, out);

#pragma scop
    for (int i = 0; i < n; i++) {
        d[i] = alpha * c[i] + a[n - 1 - i];
        acc += d[i] * d[i];
    }
#pragma endscop

    print_array_1d("c", c, n);
    print_array_1d("d", d, n);
    print_scalar("sum", out[0]);
    print_scalar("prod", out[1]);
    print_scalar("mx", out[2]);
    print_scalar("dot", out[3]);
    print_scalar("scale", out[4]);
    print_scalar("acc", acc);
    free(a);
    free(b);
    free(c);
    free(d);
    return 0;
}
