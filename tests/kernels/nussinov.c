// RUN: -- 1 1
// RUN: -- 7 29
// RUN: -- 11 60
// covers: integer-arrays, MAX-macro-on-array-values, decrementing-loop
//         (i = n - 1; i >= 0; i--), triangular-loops (j = i + 1, k < j),
//         if-with-&& / if-else, affine-conditions (j - 1 >= 0, i + 1 < n,
//         i < j - 1), conditional-operator, vla-params, imperfect-nest
// nussinov: RNA secondary structure prediction (dynamic programming)
#include "kernels.h"

#define MATCH(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)

static void kernel_nussinov(int n, int seq[n], int table[n][n])
{
    int i, j, k;

#pragma scop
    for (i = n - 1; i >= 0; i--) {
        for (j = i + 1; j < n; j++) {
            if (j - 1 >= 0)
                table[i][j] = MAX(table[i][j], table[i][j - 1]);
            if (i + 1 < n)
                table[i][j] = MAX(table[i][j], table[i + 1][j]);
            if (j - 1 >= 0 && i + 1 < n) {
                if (i < j - 1)
                    table[i][j] = MAX(table[i][j],
                                      table[i + 1][j - 1] + MATCH(seq[i], seq[j]));
                else
                    table[i][j] = MAX(table[i][j], table[i + 1][j - 1]);
            }
            for (k = i + 1; k < j; k++)
                table[i][j] = MAX(table[i][j], table[i][k] + table[k + 1][j]);
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 40);
    int seq[n];
    int table[n][n];

    rng_seed(seed);
    init_int_array(seq, n, 0, 3);
    fill_int_array(&table[0][0], n * n, 0);

    kernel_nussinov(n, seq, table);

    print_int_array_2d("table", &table[0][0], n, n);
    return 0;
}
