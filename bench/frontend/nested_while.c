/* construct: nested counted while loops */
#include <stdio.h>
static void f(int n, int m, int A[20][20])
{
    int i, j;
#pragma scop
    i = 0;
    while (i < n) {
        j = 0;
        while (j < m) {
            A[i][j] = i * m + j;
            j++;
        }
        i++;
    }
#pragma endscop
}
int main(void)
{
    static int A[20][20];
    f(20, 17, A);
    for (int i = 0; i < 20; i++) for (int j = 0; j < 20; j++) printf("%d\n", A[i][j]);
    return 0;
}
