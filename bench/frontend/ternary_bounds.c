/* construct: conditional expressions in loop bounds and conditions with && and || */
#include <stdio.h>
static void f(int n, int w, int A[30][30])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = (i > w ? i - w : 0); j < (i + w < n ? i + w : n); j++)
            if ((i + j) % 2 == 0 && (j > 2 || i < 5))
                A[i][j] = 1 + i;
#pragma endscop
}
int main(void)
{
    static int A[30][30];
    f(30, 4, A);
    for (int i = 0; i < 30; i++) for (int j = 0; j < 30; j++) printf("%d\n", A[i][j]);
    return 0;
}
