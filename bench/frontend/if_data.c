/* construct: if/else on data */
#include <stdio.h>
static void threshold(int n, int a[80], int b[80], int c[80])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        if (a[i] > 5)
            b[i] = a[i];
        else if (a[i] < 2)
            c[i] = -a[i];
        else {
            b[i] = 0;
            c[i] = 0;
        }
    }
#pragma endscop
}
int main(void)
{
    int a[80], b[80], c[80];
    for (int i = 0; i < 80; i++) {
        a[i] = (i * 7) % 10;
        b[i] = c[i] = 9;
    }
    threshold(80, a, b, c);
    for (int i = 0; i < 80; i++)
        printf("%d %d\n", b[i], c[i]);
    return 0;
}
