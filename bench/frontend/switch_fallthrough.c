/* construct: switch with a case falling through into the next, default not last */
#include <stdio.h>
#define RED 1
#define GREEN 2
static void paint(int n, int m, int A[20][20])
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            switch (i - j) {
            default:
                A[i][j] = 0;
                break;
            case RED:
                A[i][j] = 7;
            case GREEN:
                A[i][j] += 3;
                break;
            case -1:
                A[i][j] = 100 + i;
                break;
            }
#pragma endscop
}
int main(void)
{
    static int A[20][20];
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 20; j++)
            A[i][j] = i * j;
    paint(20, 20, A);
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 20; j++)
            printf("%d\n", A[i][j]);
    return 0;
}
