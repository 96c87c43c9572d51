/* construct: a for loop whose increment is the last statement of its body */
#include <stdio.h>
static void f(int n, int a[64])
{
    int i;
#pragma scop
    for (i = 0; i < n;) {
        a[i] = 2 * i;
        i++;
    }
    for (int k = 1; k < n;) {
        a[k] += a[k - 1];
        k += 2;
    }
#pragma endscop
}
int main(void)
{
    int a[64] = {0};
    f(60, a);
    for (int i = 0; i < 64; i++) printf("%d\n", a[i]);
    return 0;
}
