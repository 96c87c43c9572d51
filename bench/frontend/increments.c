/* construct: increments written i = i + 1, i = 2 + i, i -= 1 */
#include <stdio.h>
static void f(int n, int a[100])
{
    int i, j;
#pragma scop
    for (i = 0; i < n; i = i + 1)
        a[i] = i;
    for (i = 0; i < n; i = 2 + i)
        a[i] += 1;
    for (j = n - 1; j >= 0; j -= 1)
        a[j] *= 2;
#pragma endscop
}
int main(void)
{
    int a[100];
    f(100, a);
    for (int i = 0; i < 100; i++) printf("%d\n", a[i]);
    return 0;
}
