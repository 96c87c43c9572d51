// The region main.c calls inside its data scope.
void relax(int n, const double *u, double *v)
{
#pragma scop
    for (int i = 1; i < n - 1; i++)
        v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
#pragma endscop
}
