/* construct: a time loop that swaps its two buffers through a temporary pointer at the end of each step */
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    int n = 64, steps = 5, t, i;
    double *cur = malloc(n * sizeof(double)), *next = malloc(n * sizeof(double)), *tmp;
    for (i = 0; i < n; i++)
        cur[i] = next[i] = (i * 5 % 9) / 3.0;
#pragma scop
    for (t = 0; t < steps; t++) {
        for (i = 1; i < n - 1; i++)
            next[i] = (cur[i - 1] + cur[i] + cur[i + 1]) / 3.0;
        tmp = cur;
        cur = next;
        next = tmp;
    }
#pragma endscop
    for (i = 0; i < n; i++)
        printf("%.17g %.17g\n", cur[i], next[i]);
    printf("%d\n", t);
    free(cur);
    free(next);
    return 0;
}
