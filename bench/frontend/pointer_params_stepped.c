/* construct: pointer parameters stepped in a loop that counts a parameter down (while (n--) *y++ = *x++) */
#include <stdio.h>
static void scale_copy(int n, double a, double *restrict y, const double *restrict x)
{
#pragma scop
    while (n--)
        *y++ = a * *x++;
#pragma endscop
}
int main(void)
{
    double x[32], y[32];
    for (int i = 0; i < 32; i++) {
        x[i] = (i * 7 % 11) - 5;
        y[i] = -1.0;
    }
    scale_copy(29, 0.5, y + 2, x + 1);
    for (int i = 0; i < 32; i++)
        printf("%.17g\n", y[i]);
    return 0;
}
