/* construct: call to a void function that writes through its pointer argument */
#include <stdio.h>
static void set_row(int m, int row[], int v)
{
    for (int j = 0; j < m; j++)
        row[j] = v + j;
}
static void fill(int n, int m, int A[20][20])
{
#pragma scop
    for (int i = 0; i < n; i++)
        set_row(m, A[i], 10 * i);
#pragma endscop
}
int main(void)
{
    static int A[20][20];
    fill(20, 20, A);
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 20; j++)
            printf("%d\n", A[i][j]);
    return 0;
}
