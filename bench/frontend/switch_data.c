/* construct: switch on data */
#include <stdio.h>
static void histogram(int n, int kind[100], int count[4], int v[100])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        switch (kind[i]) {
        case 0:
            count[0]++;
            v[i] = 1;
            break;
        case 1:
        case 2:
            count[1] += 2;
            v[i] = 2;
            break;
        default:
            count[3]--;
            v[i] = 3;
        }
    }
#pragma endscop
}
int main(void)
{
    int kind[100], count[4] = {0, 0, 0, 0}, v[100];
    for (int i = 0; i < 100; i++)
        kind[i] = (i * 7) % 5;
    histogram(100, kind, count, v);
    for (int k = 0; k < 4; k++)
        printf("%d\n", count[k]);
    for (int i = 0; i < 100; i++)
        printf("%d\n", v[i]);
    return 0;
}
