/* construct: for (;;) with a leading break (a counted loop written as an infinite one) */
#include <stdio.h>
static void count(int n, int a[100])
{
    int i;
#pragma scop
    i = 0;
    for (;;) {
        if (i >= n)
            break;
        a[i] = n - i;
        i++;
    }
#pragma endscop
}
int main(void)
{
    int a[100];
    for (int i = 0; i < 100; i++)
        a[i] = 0;
    count(77, a);
    for (int i = 0; i < 100; i++)
        printf("%d\n", a[i]);
    return 0;
}
