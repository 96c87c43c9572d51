/* construct: C89 style, every variable declared at the top: a CSR product with a scalar temporary */
#include <stdio.h>
static void spmv(int n, int rowptr[11], int col[40], int val[40], int x[10], int y[10])
{
    int i, k, t;
#pragma scop
    for (i = 0; i < n; i++) {
        t = 0;
        for (k = rowptr[i]; k < rowptr[i + 1]; k++)
            t += val[k] * x[col[k]];
        y[i] = t;
    }
#pragma endscop
}
int main(void)
{
    int rowptr[11], col[40], val[40], x[10], y[10];
    int nz = 0;
    for (int i = 0; i < 10; i++) {
        rowptr[i] = nz;
        for (int j = 0; j < 10; j += 1 + (i + j) % 3)
            if (nz < 40) { col[nz] = j; val[nz] = i + j; nz++; }
        x[i] = i - 4;
    }
    rowptr[10] = nz;
    spmv(10, rowptr, col, val, x, y);
    for (int i = 0; i < 10; i++)
        printf("%d\n", y[i]);
    return 0;
}
