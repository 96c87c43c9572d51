/* construct: a pure function of the file in a condition, static local before the region */
#include <stdio.h>
static int is_even(int x) { return x % 2 == 0; }
static void f(int n, int a[64])
{
    static int offset = 3;
#pragma scop
    for (int i = 0; i < n; i++)
        if (is_even(i))
            a[i] = i + offset;
        else
            a[i] = -i;
#pragma endscop
}
int main(void)
{
    int a[64];
    f(64, a);
    for (int i = 0; i < 64; i++) printf("%d\n", a[i]);
    return 0;
}
