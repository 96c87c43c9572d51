/* construct: PENCIL assumptions and kills */
#include <stdio.h>
void __pencil_assume(int c) { (void)c; }
void __pencil_kill(int *a) { (void)a; }
static void twice(int n, int a[70], int t[70], int b[70])
{
#pragma scop
    __pencil_assume(n > 4);
    for (int i = 0; i < n; i++)
        t[i] = 2 * a[i];
    for (int i = 0; i < n; i++)
        b[i] = t[i] + 1;
    __pencil_kill(t);
#pragma endscop
}
int main(void)
{
    int a[70], t[70], b[70];
    for (int i = 0; i < 70; i++)
        a[i] = i % 9;
    twice(70, a, t, b);
    for (int i = 0; i < 70; i++)
        printf("%d\n", b[i]);
    return 0;
}
