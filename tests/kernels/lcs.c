// RUN: -- 1 1 1
// RUN: -- 3 19 23
// RUN: -- 5 60 57
// covers: integer-arrays, two-regions-in-two-functions, data-dependent-if
//         (a[i - 1] == b[j - 1]) with else, MAX/MIN-macros-on-array-values,
//         loop-var-declared-in-for, vla-params, sequence-of-nests,
//         loops starting at 1 with <= bounds
// lcs: longest common subsequence table, then edit (Levenshtein) distance
#include "kernels.h"

static void kernel_lcs(int n, int m, int a[n], int b[m], int L[n + 1][m + 1])
{
#pragma scop
    for (int i = 0; i <= n; i++)
        L[i][0] = 0;
    for (int j = 0; j <= m; j++)
        L[0][j] = 0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= m; j++) {
            if (a[i - 1] == b[j - 1])
                L[i][j] = L[i - 1][j - 1] + 1;
            else
                L[i][j] = MAX(L[i - 1][j], L[i][j - 1]);
        }
#pragma endscop
}

static void kernel_edit(int n, int m, int a[n], int b[m], int D[n + 1][m + 1])
{
    int i, j;

#pragma scop
    for (i = 0; i <= n; i++)
        D[i][0] = i;
    for (j = 1; j <= m; j++)
        D[0][j] = j;
    for (i = 1; i <= n; i++)
        for (j = 1; j <= m; j++) {
            D[i][j] = MIN(D[i - 1][j], D[i][j - 1]) + 1;
            D[i][j] = MIN(D[i][j], D[i - 1][j - 1] + (a[i - 1] != b[j - 1] ? 1 : 0));
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 30);
    int m = arg_size(argc, argv, 3, 25);
    int a[n], b[m];
    int L[n + 1][m + 1];
    int D[n + 1][m + 1];

    rng_seed(seed);
    init_int_array(a, n, 0, 3);
    init_int_array(b, m, 0, 3);

    kernel_lcs(n, m, a, b, L);
    kernel_edit(n, m, a, b, D);

    print_int_array_2d("L", &L[0][0], n + 1, m + 1);
    print_int_array_2d("D", &D[0][0], n + 1, m + 1);
    print_int_scalar("lcs", L[n][m]);
    print_int_scalar("edit", D[n][m]);
    return 0;
}
