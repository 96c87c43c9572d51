// Rows through pointers (double **A) into an array a data scope keeps: a region on the rows first brings the
// kept array's host copy up to date (a region before wrote it on the device), and leaves the rows it wrote to
// be uploaded again; a row that overlaps another argument or another row, one of them written, sends the
// region to its original loops.
#include <stdio.h>
#include <stdlib.h>

static void scale(int size, double *data)
{
#pragma scop
    for (int k = 0; k < size; k++)
        data[k] = 0.5 * data[k] + 1.0;
#pragma endscop
}

static void rows_step(int n, int m, double **A, double *s)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        s[i] = 0.0;
        for (int j = 0; j <= i && j < m; j++) {
            s[i] += A[i][j] * (j + 1);
            A[i][j] = 0.25 * A[i][j] + i;
        }
    }
#pragma endscop
}

static double sum(int n, const double *x)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (i % 3 + 1);
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    int m = argc > 2 ? atoi(argv[2]) : 7;
    srand(argc > 3 ? (unsigned)atoi(argv[3]) : 1u);
    const int size = n * (m + 1);  /* row i at i * (m + 1): an element between rows no region touches */
    double *data = malloc(sizeof(double) * size), *s = malloc(sizeof(double) * n);
    double **A = malloc(sizeof(double *) * n);
    for (int k = 0; k < size; k++)
        data[k] = (double)rand() / RAND_MAX;
    for (int i = 0; i < n; i++)
        A[i] = data + i * (m + 1);
    rows_step(n, m, A, s);     /* apart */
    printf("apart %.12e %.12e\n", sum(size, data), sum(n, s));
    rows_step(n, m, A, data);  /* the rows overlap s */
    printf("overlap %.12e\n", sum(size, data));
#pragma polypragma data copy(data[0:size])
    {
        for (int t = 0; t < 4; t++) {
            scale(size, data);      /* on the device: the kept copy is the newest */
            rows_step(n, m, A, s);  /* the rows lie in the kept array */
            scale(size, data);
        }
    }
    printf("scope %.12e %.12e\n", sum(size, data), sum(n, s));
    for (int i = 0; i < n; i++)
        A[i] = data + i;       /* each row starts one element after the one before: the rows overlap */
    rows_step(n, m, A, s);
    printf("rows overlap %.12e %.12e\n", sum(size, data), sum(n, s));
    free(A);
    free(data);
    free(s);
    return 0;
}
