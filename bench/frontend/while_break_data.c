/* construct: a counted while loop with a break on data */
#include <stdio.h>
static int f(int n, int a[64])
{
    int i = 0, found = -1;
#pragma scop
    while (i < n) {
        if (a[i] == 7) {
            found = i;
            break;
        }
        i++;
    }
#pragma endscop
    return found;
}
int main(void)
{
    int a[64];
    for (int i = 0; i < 64; i++) a[i] = i * 3 % 11;
    printf("%d\n", f(64, a));
    return 0;
}
