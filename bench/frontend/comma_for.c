/* construct: two iterators in one for header (comma expressions) */
#include <stdio.h>
static void reverse(int n, int a[100], int b[100])
{
    int i, j;
#pragma scop
    for (i = 0, j = n - 1; i < n; i++, j--)
        b[i] = a[j];
#pragma endscop
}
int main(void)
{
    int a[100], b[100];
    for (int i = 0; i < 100; i++)
        a[i] = i * i % 97;
    reverse(100, a, b);
    for (int i = 0; i < 100; i++)
        printf("%d\n", b[i]);
    return 0;
}
