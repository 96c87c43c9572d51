/* construct: _Bool values and logical operators */
#include <stdio.h>
#include <stdbool.h>
static void flags(int n, int a[50], bool f[50], _Bool g[50])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        f[i] = a[i] > 3 && !(a[i] == 7);
        g[i] = f[i] || i < 5;
    }
#pragma endscop
}
int main(void)
{
    int a[50]; bool f[50]; _Bool g[50];
    for (int i = 0; i < 50; i++) a[i] = i % 9;
    flags(50, a, f, g);
    for (int i = 0; i < 50; i++) printf("%d %d\n", f[i], g[i]);
    return 0;
}
