/* construct: compound assignments with bitwise and shift operators, char and short arrays */
#include <stdio.h>
static void mix(int n, unsigned char a[64], short b[64], int c[64])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        c[i] = (a[i] << 2) ^ b[i];
        c[i] &= 0x3ff;
        b[i] >>= 1;
        a[i] |= (unsigned char)(i & 7);
    }
#pragma endscop
}
int main(void)
{
    unsigned char a[64];
    short b[64];
    int c[64];
    for (int i = 0; i < 64; i++) {
        a[i] = (unsigned char)(i * 9);
        b[i] = (short)(i * 100 - 3000);
    }
    mix(64, a, b, c);
    for (int i = 0; i < 64; i++)
        printf("%d %d %d\n", a[i], b[i], c[i]);
    return 0;
}
