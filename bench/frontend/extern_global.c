/* construct: an extern global size and typedef'd array types, nested struct members */
#include <stdio.h>
typedef double vec[32];
struct inner { double r[32]; };
struct outer { struct inner q; int k; };
int size_n = 32;
extern int size_n;
static void f(vec a, vec b, struct outer *o)
{
#pragma scop
    for (int i = 0; i < size_n; i++) {
        b[i] = a[i] + 1;
        o->q.r[i] = b[i] * 2;
    }
#pragma endscop
}
int main(void)
{
    vec a, b; struct outer o;
    for (int i = 0; i < 32; i++) a[i] = i;
    f(a, b, &o);
    for (int i = 0; i < 32; i++) printf("%g %g\n", b[i], o.q.r[i]);
    return 0;
}
