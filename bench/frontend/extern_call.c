/* construct: call to a math function of the C library (lround) that the file declares only through <math.h> */
#include <stdio.h>
#include <math.h>
static void round_all(int n, double a[40], long r[40])
{
#pragma scop
    for (int i = 0; i < n; i++)
        r[i] = lround(a[i] * 2.5);
#pragma endscop
}
int main(void)
{
    double a[40];
    long r[40];
    for (int i = 0; i < 40; i++)
        a[i] = i * 0.3 - 5;
    round_all(40, a, r);
    for (int i = 0; i < 40; i++)
        printf("%ld\n", r[i]);
    return 0;
}
