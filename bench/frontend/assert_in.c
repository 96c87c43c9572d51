/* construct: assert in a region */
#include <stdio.h>
#include <assert.h>
static void f(int n, int a[64])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        assert(i < 64);
        a[i] = i * 2;
    }
#pragma endscop
}
int main(void)
{
    int a[64];
    f(64, a);
    for (int i = 0; i < 64; i++) printf("%d\n", a[i]);
    return 0;
}
