/* construct: a forward goto out of a loop nest under a condition on data */
#include <stdio.h>
static void find(int n, int A[16][16], int where[2])
{
    where[0] = -1;
    where[1] = -1;
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (A[i][j] == 0) {
                where[0] = i;
                where[1] = j;
                goto found;
            }
found:
    ;
#pragma endscop
}
int main(void)
{
    int A[16][16], where[2];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++)
            A[i][j] = (i * 5 + j * 3 + 2) % 37;
    find(16, A, where);
    printf("%d %d\n", where[0], where[1]);
    return 0;
}
