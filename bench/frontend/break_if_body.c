/* construct: a search whose loop body is one if, without braces, holding a break on data */
#include <stdio.h>
static void lookup(int m, int n, int keys[20], int table[30], int pos[20])
{
#pragma scop
    for (int i = 0; i < m; i++) {
        pos[i] = -1;
        for (int j = 0; j < n; j++)
            if (table[j] == keys[i]) {
                pos[i] = j;
                break;
            }
    }
#pragma endscop
}
int main(void)
{
    int keys[20], table[30], pos[20];
    for (int i = 0; i < 20; i++)
        keys[i] = (i * 7) % 45;
    for (int j = 0; j < 30; j++)
        table[j] = (j * 11) % 40;
    lookup(20, 30, keys, table, pos);
    for (int i = 0; i < 20; i++)
        printf("%d\n", pos[i]);
    return 0;
}
