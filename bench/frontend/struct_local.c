/* construct: a local struct with an array member, and a struct scalar's member written */
#include <stdio.h>
struct acc { int sum; int v[16]; };
static void f(int n, int a[16], int out[2])
{
    struct acc s;
#pragma scop
    s.sum = 0;
    for (int i = 0; i < n; i++) {
        s.v[i] = a[i] * 3;
        s.sum += s.v[i];
    }
    out[0] = s.sum;
    out[1] = s.v[n - 1];
#pragma endscop
}
int main(void)
{
    int a[16], out[2];
    for (int i = 0; i < 16; i++) a[i] = i - 4;
    f(16, a, out);
    printf("%d %d\n", out[0], out[1]);
    return 0;
}
