/* construct: an unsigned char iterator that wraps around past 255 (a ring buffer) */
#include <stdio.h>
static void ring(double r[256])
{
    unsigned char k;
#pragma scop
    for (k = 240; k != 20; k++)
        r[k] = r[k] * 0.5 + k;
#pragma endscop
}
int main(void)
{
    double r[256];
    for (int i = 0; i < 256; i++)
        r[i] = i % 13;
    ring(r);
    for (int i = 0; i < 256; i++)
        printf("%g\n", r[i]);
    return 0;
}
