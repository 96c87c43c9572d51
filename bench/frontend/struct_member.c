/* construct: members of an array of structs */
#include <stdio.h>
struct particle { int x; int v; };
static void step(int n, struct particle p[64])
{
#pragma scop
    for (int i = 0; i < n; i++)
        p[i].x = p[i].x + p[i].v;
#pragma endscop
}
int main(void)
{
    struct particle p[64];
    for (int i = 0; i < 64; i++) {
        p[i].x = i;
        p[i].v = 3 - i % 7;
    }
    step(64, p);
    for (int i = 0; i < 64; i++)
        printf("%d %d\n", p[i].x, p[i].v);
    return 0;
}
