/* construct: two iterators declared in one for header, the second with another step */
#include <stdio.h>
static void gather(int n, int a[200], int b[100], int c[100])
{
#pragma scop
    for (int i = 0, j = 1; i < n; i++, j += 2) {
        b[i] = a[j] - a[j - 1];
        c[i] = j;
    }
    for (int i = 0, k = n; i < k; ++i, --k)
        c[i] += b[k - 1];
#pragma endscop
}
int main(void)
{
    int a[200], b[100], c[100];
    for (int i = 0; i < 200; i++)
        a[i] = (i * 13) % 29;
    gather(100, a, b, c);
    for (int i = 0; i < 100; i++)
        printf("%d %d\n", b[i], c[i]);
    return 0;
}
