/* construct: break inside a nested if (not at the top of the body) */
#include <stdio.h>
static void f(int n, int m, int a[50], int b[50])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        a[i] = i;
        if (i > 3) {
            b[i] = -i;
            if (i >= m)
                break;
        }
        b[i] += 1;
    }
#pragma endscop
}
int main(void)
{
    int a[50] = {0}, b[50] = {0};
    f(50, 17, a, b);
    for (int i = 0; i < 50; i++) printf("%d %d\n", a[i], b[i]);
    return 0;
}
