#include "blur.h"

#define NINTH (1.0 / 9.0)

void blur(int passes, int rows, int cols, double image[rows][cols], double scratch[rows][cols])
{
#pragma scop
  for (int p = 0; p < passes; p++) {
    for (int i = 1; i < rows - 1; i++)
      for (int j = 1; j < cols - 1; j++)
        scratch[i][j] = NINTH * (image[i - 1][j - 1] + image[i - 1][j] + image[i - 1][j + 1]
                                 + image[i][j - 1] + image[i][j] + image[i][j + 1]
                                 + image[i + 1][j - 1] + image[i + 1][j] + image[i + 1][j + 1]);
    for (int i = 1; i < rows - 1; i++)
      for (int j = 1; j < cols - 1; j++)
        image[i][j] = scratch[i][j];
  }
#pragma endscop
}
