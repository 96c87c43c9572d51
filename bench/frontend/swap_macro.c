/* construct: a do { } while (0) macro in a statement */
#include <stdio.h>
#define SWAP(x, y) do { int t_ = (x); (x) = (y); (y) = t_; } while (0)
static void f(int n, int a[64])
{
#pragma scop
    for (int i = 0; i + 1 < n; i += 2)
        SWAP(a[i], a[i + 1]);
#pragma endscop
}
int main(void)
{
    int a[64];
    for (int i = 0; i < 64; i++) a[i] = i * 3 % 7;
    f(64, a);
    for (int i = 0; i < 64; i++) printf("%d\n", a[i]);
    return 0;
}
