/* construct: return under a condition on data */
#include <stdio.h>
static int normalise(int n, double a[50], double s[1])
{
#pragma scop
    s[0] = 0;
    for (int i = 0; i < n; i++)
        s[0] += a[i];
    if (s[0] == 0)
        return -1;
    for (int i = 0; i < n; i++)
        a[i] /= s[0];
#pragma endscop
    return 0;
}
int main(void)
{
    double a[50], s[1];
    for (int i = 0; i < 50; i++)
        a[i] = i % 4;
    int r = normalise(50, a, s);
    printf("%d %g\n", r, s[0]);
    for (int i = 0; i < 50; i++)
        printf("%.6f\n", a[i]);
    for (int i = 0; i < 50; i++)
        a[i] = 0;
    r = normalise(50, a, s);
    printf("%d %g\n", r, s[0]);
    return 0;
}
