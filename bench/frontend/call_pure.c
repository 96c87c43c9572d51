/* construct: call to a pure function defined in the file */
#include <stdio.h>
static int sq(int x) { return x * x; }
static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
static void apply(int n, int a[100], int b[100])
{
#pragma scop
    for (int i = 0; i < n; i++)
        b[i] = clampi(sq(a[i]) - 50, 0, 200);
#pragma endscop
}
int main(void)
{
    int a[100], b[100];
    for (int i = 0; i < 100; i++)
        a[i] = i % 17;
    apply(100, a, b);
    for (int i = 0; i < 100; i++)
        printf("%d\n", b[i]);
    return 0;
}
