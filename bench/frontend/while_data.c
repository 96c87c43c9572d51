/* construct: while loop on data (not counted) */
#include <stdio.h>
static void collatz(int n, int a[30], int steps[30])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        int x = a[i], k = 0;
        while (x != 1) {
            x = x % 2 ? 3 * x + 1 : x / 2;
            k++;
        }
        steps[i] = k;
    }
#pragma endscop
}
int main(void)
{
    int a[30], steps[30];
    for (int i = 0; i < 30; i++)
        a[i] = i + 1;
    collatz(30, a, steps);
    for (int i = 0; i < 30; i++)
        printf("%d\n", steps[i]);
    return 0;
}
