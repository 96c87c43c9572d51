// RUN: -- 1 1 1
// RUN: -- 2 19 13
// RUN: -- 3 60 52
// covers: exp-call, pow-call, scalars-written-in-region (coefficients and
//         recursive filter state ym1/ym2/xm1/...), decrementing-loops
//         (j = h - 1; j >= 0; j--), live-out scalars printed afterwards, imperfect-nest, sequence-of-nests,
//         vla-params, read-only-scalar (alpha), statements outside loops
// deriche: recursive edge-detection filter (polybench formulation)
#include "kernels.h"

static void kernel_deriche(int w, int h, double alpha, double imgIn[w][h],
                           double imgOut[w][h], double y1[w][h], double y2[w][h],
                           double sc[20])
{
    int i, j;
    double xm1, tm1, ym1, ym2;
    double xp1, xp2;
    double tp1, tp2;
    double yp1, yp2;
    double k;
    double a1, a2, a3, a4, a5, a6, a7, a8;
    double b1, b2, c1, c2;

#pragma scop
    k = (1.0 - exp(-alpha)) * (1.0 - exp(-alpha))
        / (1.0 + 2.0 * alpha * exp(-alpha) - exp(2.0 * alpha));
    a1 = k;
    a5 = a1;
    a2 = k * exp(-alpha) * (alpha - 1.0);
    a6 = a2;
    a3 = k * exp(-alpha) * (alpha + 1.0);
    a7 = a3;
    a4 = -k * exp(-2.0 * alpha);
    a8 = a4;
    b1 = pow(2.0, -alpha);
    b2 = -exp(-2.0 * alpha);
    c1 = 1.0;
    c2 = 1.0;

    for (i = 0; i < w; i++) {
        ym1 = 0.0;
        ym2 = 0.0;
        xm1 = 0.0;
        for (j = 0; j < h; j++) {
            y1[i][j] = a1 * imgIn[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
            xm1 = imgIn[i][j];
            ym2 = ym1;
            ym1 = y1[i][j];
        }
    }

    for (i = 0; i < w; i++) {
        yp1 = 0.0;
        yp2 = 0.0;
        xp1 = 0.0;
        xp2 = 0.0;
        for (j = h - 1; j >= 0; j--) {
            y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
            xp2 = xp1;
            xp1 = imgIn[i][j];
            yp2 = yp1;
            yp1 = y2[i][j];
        }
    }

    for (i = 0; i < w; i++)
        for (j = 0; j < h; j++)
            imgOut[i][j] = c1 * (y1[i][j] + y2[i][j]);

    for (j = 0; j < h; j++) {
        tm1 = 0.0;
        ym1 = 0.0;
        ym2 = 0.0;
        for (i = 0; i < w; i++) {
            y1[i][j] = a5 * imgOut[i][j] + a6 * tm1 + b1 * ym1 + b2 * ym2;
            tm1 = imgOut[i][j];
            ym2 = ym1;
            ym1 = y1[i][j];
        }
    }

    for (j = 0; j < h; j++) {
        tp1 = 0.0;
        tp2 = 0.0;
        yp1 = 0.0;
        yp2 = 0.0;
        for (i = w - 1; i >= 0; i--) {
            y2[i][j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2;
            tp2 = tp1;
            tp1 = imgOut[i][j];
            yp2 = yp1;
            yp1 = y2[i][j];
        }
    }

    for (i = 0; i < w; i++)
        for (j = 0; j < h; j++)
            imgOut[i][j] = c2 * (y1[i][j] + y2[i][j]);
#pragma endscop

    /* live-out scalars: coefficients and the final filter states */
    sc[0] = k;
    sc[1] = a1;
    sc[2] = a2;
    sc[3] = a3;
    sc[4] = a4;
    sc[5] = a5 + a6 + a7 + a8;
    sc[6] = b1;
    sc[7] = b2;
    sc[8] = c1 + c2;
    sc[9] = xm1;
    sc[10] = tm1;
    sc[11] = ym1;
    sc[12] = ym2;
    sc[13] = xp1;
    sc[14] = xp2;
    sc[15] = tp1;
    sc[16] = tp2;
    sc[17] = yp1;
    sc[18] = yp2;
    sc[19] = 0.0;
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int w = arg_size(argc, argv, 2, 32);
    int h = arg_size(argc, argv, 3, 24);
    double (*imgIn)[h] = malloc(sizeof(double[w][h]));
    double (*imgOut)[h] = malloc(sizeof(double[w][h]));
    double (*y1)[h] = malloc(sizeof(double[w][h]));
    double (*y2)[h] = malloc(sizeof(double[w][h]));
    double sc[20];

    rng_seed(seed);
    init_array_2d(&imgIn[0][0], w, h);

    kernel_deriche(w, h, 0.25, imgIn, imgOut, y1, y2, sc);

    print_array_2d("imgOut", &imgOut[0][0], w, h);
    print_array_2d("y1", &y1[0][0], w, h);
    print_array_2d("y2", &y2[0][0], w, h);
    print_array_1d("scalars", sc, 19);
    free(imgIn);
    free(imgOut);
    free(y1);
    free(y2);
    return 0;
}
