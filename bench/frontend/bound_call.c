/* construct: loop bounds computed by a pure function of the file */
#include <stdio.h>
static inline int imin(int a, int b) { return a < b ? a : b; }
static void lower(int n, int m, int A[30][30])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < imin(i + 1, m); j++)
            A[i][j] = i - j;
#pragma endscop
}
int main(void)
{
    static int A[30][30];
    lower(30, 12, A);
    for (int i = 0; i < 30; i++) for (int j = 0; j < 30; j++) printf("%d\n", A[i][j]);
    return 0;
}
