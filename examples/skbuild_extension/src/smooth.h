#ifndef SMOOTH_H
#define SMOOTH_H

/* passes of three-point smoothing over the inside of x[0..n); the ends stay fixed */
void smooth(int passes, int n, double *x, double *scratch);

#endif
