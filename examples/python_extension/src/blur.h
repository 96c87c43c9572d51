#ifndef BLUR_H
#define BLUR_H

/* passes of a 3x3 box blur over the inside of a rows x cols image; the border stays fixed */
void blur(int passes, int rows, int cols, double image[rows][cols], double scratch[rows][cols]);

#endif
