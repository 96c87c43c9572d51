// RUN: -- 1 1 1
// RUN: -- 2 37 5
// RUN: -- 3 300 20
// Expected lines (tests/test_checks.py) of the host side, which a kernel rewrite leaves alone: the
// arrays are allocated and copied in once, the time loop stays on the host around the two launches
// with no transfer inside it, every call is checked, and the c target keeps the loops as written.
// CHECK-CUDA: extern "C" int polypragma_jacobi_1d_region0(int tsteps, int n, double * A, double * B)
// CHECK-CUDA: if (polypragma_cuda_setup(polypragma_where) != 0) {
// CHECK-CUDA: POLYPRAGMA_DATA_STEP(polypragma_bind(&bind_A, A, bytes_A, 1, {{.*}}));
// CHECK-CUDA-NEXT: dev_A = (double *)((char *)bind_A.buffer + bind_A.offset);
// CHECK-CUDA: POLYPRAGMA_DATA_STEP(polypragma_bind(&bind_B, B, bytes_B, 1, {{.*}}));
// CHECK-CUDA: POLYPRAGMA_DATA_STEP(polypragma_fill(&bind_A, A, "A", polypragma_where));
// CHECK-CUDA: POLYPRAGMA_DATA_STEP(polypragma_fill(&bind_B, B, "B", polypragma_where));
// CHECK-CUDA: for (int c0 = 0; c0 < tsteps; ++c0) {
// CHECK-CUDA-NOT: polypragma_{{bind|fill|finish}}
// CHECK-CUDA: polypragma_jacobi_1d_region0_kernel0<<<{{.*}}>>>({{.*}});
// CHECK-CUDA-NEXT: POLYPRAGMA_CUDA_CHECK(cudaGetLastError());
// CHECK-CUDA-NOT: polypragma_{{bind|fill|finish}}
// CHECK-CUDA: polypragma_jacobi_1d_region0_kernel1<<<{{.*}}>>>({{.*}});
// CHECK-CUDA-NEXT: POLYPRAGMA_CUDA_CHECK(cudaGetLastError());
// CHECK-CUDA: POLYPRAGMA_CUDA_CHECK(cudaDeviceSynchronize());
// CHECK-CUDA-NEXT: polypragma_phase = POLYPRAGMA_COPYING_OUT;
// CHECK-CUDA-NEXT: POLYPRAGMA_DATA_STEP(polypragma_finish(&bind_A, A, 1, 1, "A", polypragma_where));
// CHECK-CUDA-NEXT: POLYPRAGMA_DATA_STEP(polypragma_finish(&bind_B, B, 1, 1, "B", polypragma_where));
// CHECK-CUDA: polypragma_release:
// CHECK-CUDA: polypragma_unbind(&bind_A, A, bytes_A, 1, polypragma_status != 0, polypragma_launched, {{.*}});
// CHECK-CUDA: polypragma_unbind(&bind_B, B, bytes_B, 1, {{.*}});
// CHECK-CUDA: return POLYPRAGMA_STATUS(polypragma_status);
// CHECK-OPENCL: static int polypragma_jacobi_1d_region0(int tsteps, int n, double * A, double * B)
// CHECK-OPENCL: POLYPRAGMA_DATA_STEP(polypragma_bind_jacobi_1d(&bind_A, A, bytes_A, 1, 0, 0, 1, "A", polypragma_where));
// CHECK-OPENCL-NEXT: dev_A = (cl_mem)bind_A.buffer;
// CHECK-OPENCL: POLYPRAGMA_DATA_STEP(polypragma_fill_jacobi_1d(&bind_A, A, "A", polypragma_where));
// CHECK-OPENCL: for (int c0 = 0; c0 < tsteps; ++c0) {
// CHECK-OPENCL-NOT: polypragma_{{bind|fill|finish}}
// CHECK-OPENCL: POLYPRAGMA_CL_CHECK_jacobi_1d(clEnqueueNDRangeKernel({{.*}}kernels[0],
// CHECK-OPENCL-NOT: polypragma_{{bind|fill|finish}}
// CHECK-OPENCL: POLYPRAGMA_CL_CHECK_jacobi_1d(clEnqueueNDRangeKernel({{.*}}kernels[1],
// CHECK-OPENCL: POLYPRAGMA_DATA_STEP(polypragma_finish_jacobi_1d(&bind_A, A, 1, 1, "A", polypragma_where));
// CHECK-OPENCL: polypragma_unbind_jacobi_1d(&bind_A, {{.*}});
// CHECK-OPENCL: if (polypragma_jacobi_1d_region0(tsteps, n, (double *)A, (double *)B) != 0) {
// CHECK-C: polypragma: region 0 (lines {{[0-9]+}}-{{[0-9]+}}) */
// CHECK-C-NEXT: {
// CHECK-C-NEXT: for (int c0 = 0; c0 < tsteps; ++c0) {
// CHECK-C-NEXT: for (int c1 = 1; c1 < n - 1; ++c1) {
// CHECK-C-NEXT: #line {{[0-9]+}} "{{.*}}jacobi_1d.c"
// CHECK-C-NEXT: B[c1] = 0.33333 * (A[c1 - 1] + A[c1] + A[c1 + 1]);
// CHECK-C-NEXT: }
// CHECK-C-NEXT: for (int c1 = 1; c1 < n - 1; ++c1) {
// CHECK-C-NEXT: #line {{[0-9]+}} "{{.*}}jacobi_1d.c"
// CHECK-C-NEXT: A[c1] = 0.33333 * (B[c1 - 1] + B[c1] + B[c1 + 1]);
// CHECK-C-NOT: polypragma_jacobi_1d_region0
// covers: flat-pointer (1-D heap arrays), time-loop (t++), stencil,
//         pre-increment (++i), sequence-of-nests inside a loop,
//         integer-params-in-bounds (n - 1)
// jacobi_1d: 3-point Jacobi stencil, ping-pong between A and B
#include "kernels.h"

static void kernel_jacobi_1d(int tsteps, int n, double *A, double *B)
{
    int t, i;

#pragma scop
    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; ++i)
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
        for (i = 1; i < n - 1; ++i)
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 1);
    int n = arg_size(argc, argv, 2, 100);
    int tsteps = arg_size(argc, argv, 3, 10);
    double *A = alloc_doubles(n);
    double *B = alloc_doubles(n);

    rng_seed(seed);
    init_array_1d(A, n);
    init_array_1d(B, n);

    kernel_jacobi_1d(tsteps, n, A, B);

    print_array_1d("A", A, n);
    print_array_1d("B", B, n);
    free(A);
    free(B);
    return 0;
}
