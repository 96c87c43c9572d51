// RUN: -- 1 1 1
// RUN: -- 2 13 6
// RUN: -- 3 40 17
// covers: struct members that are pointers, on the GPU targets: through a pointer to one struct (v->data[i]),
//         of a struct passed by value (w.data[i]), of each struct of an array (rows[i].data[j], rows of
//         different lengths, each touched up to its own length) beside a member that is not a pointer
//         (rows[i].weight, v->scale: in the structs' buffer); what the members point to crosses as rows through
//         pointers, the rows' pointers read from the host's structs
// struct_pointers: weighted row sums of a jagged matrix kept in structs, and a scaled vector
#include "kernels.h"

struct vec {
    int n;
    double scale;
    double *data;
};

struct row {
    double weight;
    double *data;
};

static void kernel_struct_pointers(int n, int m, struct vec *v, struct vec w, struct row *rows)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        v->data[i] = v->scale * v->data[i] + w.data[i];
        for (int j = 0; j <= i && j < m; j++)
            rows[i].data[j] = rows[i].weight * rows[i].data[j] + v->data[i];
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i && j < m; j++)
            w.data[i] += rows[i].data[j] * rows[j].weight;
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 20);
    int m = arg_size(argc, argv, 3, 25);
    struct vec v, w;
    struct row *rows = malloc(sizeof(struct row) * (size_t)n);

    rng_seed(seed);
    v.n = w.n = n;
    v.scale = rng_range(0.5, 1.5);
    w.scale = 0;
    v.data = alloc_doubles(n);
    w.data = alloc_doubles(n);
    init_array_1d(v.data, n);
    init_array_1d(w.data, n);
    for (int i = 0; i < n; i++) {
        int length = MIN(i + 1, m);  /* exactly what the region touches */
        rows[i].weight = rng_range(-1.0, 1.0);
        rows[i].data = alloc_doubles(length);
        init_array_1d(rows[i].data, length);
    }

    kernel_struct_pointers(n, m, &v, w, rows);

    print_array_1d("v", v.data, n);
    print_array_1d("w", w.data, n);
    for (int i = 0; i < n; i++)
        print_array_1d("row", rows[i].data, MIN(i + 1, m));
    for (int i = 0; i < n; i++)
        free(rows[i].data);
    free(rows);
    free(v.data);
    free(w.data);
    return 0;
}
