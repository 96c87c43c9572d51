/* construct: subscripts not affine (i * i, indirection) and a product in a statement */
#include <stdio.h>
static void f(int n, int a[200], int idx[20], int b[20])
{
#pragma scop
    for (int i = 0; i < n; i++)
        b[i] = a[i * i] + a[idx[i]] * i * i;
#pragma endscop
}
int main(void)
{
    int a[200], idx[20], b[20];
    for (int i = 0; i < 200; i++) a[i] = i % 13;
    for (int i = 0; i < 20; i++) idx[i] = (i * 7) % 20;
    f(14, a, idx, b);
    for (int i = 0; i < 14; i++) printf("%d\n", b[i]);
    return 0;
}
