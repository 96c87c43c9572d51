/* construct: locals holding array elements (a row's start and end, a permuted row) */
#include <stdio.h>
static void rows(int n, int rowptr[11], int col[40], int val[40], int perm[10], int x[10], int y[10], int z[10][4])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        int start = rowptr[i], end = rowptr[i + 1];
        y[i] = 0;
        for (int k = start; k < end; k++)
            y[i] += val[k] * x[col[k]];
    }
    for (int i = 0; i < n; i++) {
        int r = perm[i];
        for (int j = 0; j < 4; j++)
            z[r][j] = y[i] * (j + 1);
    }
#pragma endscop
}
int main(void)
{
    int rowptr[11], col[40], val[40], perm[10], x[10], y[10], z[10][4];
    int nz = 0;
    for (int i = 0; i < 10; i++) {
        rowptr[i] = nz;
        for (int j = 0; j < 10; j += 1 + (i + j) % 3)
            if (nz < 40) { col[nz] = j; val[nz] = i + j; nz++; }
        x[i] = i - 4;
        perm[i] = (i * 3) % 10;
    }
    rowptr[10] = nz;
    rows(10, rowptr, col, val, perm, x, y, z);
    for (int i = 0; i < 10; i++)
        printf("%d %d %d\n", y[i], z[i][0], z[i][3]);
    return 0;
}
