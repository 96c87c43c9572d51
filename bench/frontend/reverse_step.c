/* construct: decrementing loops and steps other than one */
#include <stdio.h>
static void rev(int n, int a[100], int b[100])
{
#pragma scop
    for (int i = n - 1; i >= 0; i -= 3)
        b[i] = a[n - 1 - i];
    for (int i = 1; i <= n - 2; i += 2)
        b[i] += b[i + 1];
#pragma endscop
}
int main(void)
{
    int a[100], b[100];
    for (int i = 0; i < 100; i++) {
        a[i] = i * 5 % 31;
        b[i] = 0;
    }
    rev(100, a, b);
    for (int i = 0; i < 100; i++)
        printf("%d\n", b[i]);
    return 0;
}
