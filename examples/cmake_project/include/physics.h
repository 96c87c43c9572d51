#ifndef PHYSICS_H
#define PHYSICS_H

/* steps of explicit heat diffusion on an n x n grid; the border stays fixed; u holds the result */
void heat_steps(int steps, int n, double u[n][n], double v[n][n]);

/* y = a * x + y */
void saxpy(int n, float a, float *x, float *y);

#endif
