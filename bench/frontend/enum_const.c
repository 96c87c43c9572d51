/* construct: enum constants in bounds and statements */
#include <stdio.h>
enum { WIDTH = 16, HEIGHT = 12, OFFSET = 3 };
static void shift(int A[HEIGHT][WIDTH])
{
#pragma scop
    for (int i = 0; i < HEIGHT; i++)
        for (int j = OFFSET; j < WIDTH; j++)
            A[i][j] = A[i][j - OFFSET] + OFFSET;
#pragma endscop
}
int main(void)
{
    int A[HEIGHT][WIDTH];
    for (int i = 0; i < HEIGHT; i++)
        for (int j = 0; j < WIDTH; j++)
            A[i][j] = i * j;
    shift(A);
    for (int i = 0; i < HEIGHT; i++)
        for (int j = 0; j < WIDTH; j++)
            printf("%d\n", A[i][j]);
    return 0;
}
