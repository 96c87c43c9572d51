/* construct: CLooG-style generated loops: floord/ceild/max/min macros in bounds */
#include <stdio.h>
#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define ceild(n, d) (((n) < 0) ? -((-(n)) / (d)) : ((n) + (d) - 1) / (d))
#define max(x, y) ((x) > (y) ? (x) : (y))
#define min(x, y) ((x) < (y) ? (x) : (y))
static void f(int n, int A[64][64])
{
    int c1, c2;
#pragma scop
    for (c1 = max(0, ceild(-n + 3, 2)); c1 <= min(n - 1, floord(3 * n + 5, 4)); c1++)
        for (c2 = max(2 * c1 - 5, 0); c2 <= min(c1 + 7, n - 1); c2++)
            A[c1][c2] += c1 - c2;
#pragma endscop
}
int main(void)
{
    static int A[64][64];
    f(50, A);
    for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) printf("%d\n", A[i][j]);
    return 0;
}
