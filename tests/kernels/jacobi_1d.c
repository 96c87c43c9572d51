// RUN: -- 1 1 1
// RUN: -- 2 37 5
// RUN: -- 3 300 20
// Expected lines (tests/test_checks.py) of the host side, which a kernel rewrite leaves alone: the
// arrays are allocated and copied in once, the time loop stays on the host around the two launches
// with no transfer inside it, every call is checked, and the c target keeps the loops as written.
// CHECK-CUDA: extern "C" int polypragma_jacobi_1d_region0(int tsteps, int n, double * A, double * B)
// CHECK-CUDA: if (polypragma_cuda_setup(polypragma_where) != 0)
// CHECK-CUDA: POLYPRAGMA_CUDA_CHECK(cudaMalloc({{.*}}&dev_A,
// CHECK-CUDA: POLYPRAGMA_CUDA_CHECK(cudaMalloc({{.*}}&dev_B,
// CHECK-CUDA: POLYPRAGMA_CUDA_CHECK(cudaMemcpy(dev_A, A, {{.*}}, cudaMemcpyHostToDevice));
// CHECK-CUDA: POLYPRAGMA_CUDA_CHECK(cudaMemcpy(dev_B, B, {{.*}}, cudaMemcpyHostToDevice));
// CHECK-CUDA: for (int c0 = 0; c0 < tsteps; ++c0) {
// CHECK-CUDA-NOT: cudaM{{alloc|emcpy}}
// CHECK-CUDA: polypragma_jacobi_1d_region0_kernel0<<<{{.*}}>>>({{.*}});
// CHECK-CUDA-NEXT: POLYPRAGMA_CUDA_CHECK(cudaGetLastError());
// CHECK-CUDA-NOT: cudaM{{alloc|emcpy}}
// CHECK-CUDA: polypragma_jacobi_1d_region0_kernel1<<<{{.*}}>>>({{.*}});
// CHECK-CUDA-NEXT: POLYPRAGMA_CUDA_CHECK(cudaGetLastError());
// CHECK-CUDA: POLYPRAGMA_CUDA_CHECK(cudaMemcpy(A, dev_A, {{.*}}, cudaMemcpyDeviceToHost));
// CHECK-CUDA: POLYPRAGMA_CUDA_CHECK(cudaMemcpy(B, dev_B, {{.*}}, cudaMemcpyDeviceToHost));
// CHECK-CUDA: cudaFree(dev_A)
// CHECK-CUDA: cudaFree(dev_B)
// CHECK-CUDA: return POLYPRAGMA_STATUS(polypragma_status);
// CHECK-OPENCL: static int polypragma_jacobi_1d_region0(int tsteps, int n, double * A, double * B)
// CHECK-OPENCL: POLYPRAGMA_CL_CHECK_jacobi_1d((dev_A = clCreateBuffer(
// CHECK-OPENCL: POLYPRAGMA_CL_CHECK_jacobi_1d((dev_B = clCreateBuffer(
// CHECK-OPENCL: POLYPRAGMA_CL_CHECK_jacobi_1d(clEnqueueWriteBuffer({{.*}}, dev_A, CL_TRUE,
// CHECK-OPENCL: POLYPRAGMA_CL_CHECK_jacobi_1d(clEnqueueWriteBuffer({{.*}}, dev_B, CL_TRUE,
// CHECK-OPENCL: for (int c0 = 0; c0 < tsteps; ++c0) {
// CHECK-OPENCL-NOT: clCreateBuffer
// CHECK-OPENCL-NOT: clEnqueue{{Write|Read}}Buffer
// CHECK-OPENCL: POLYPRAGMA_CL_CHECK_jacobi_1d(clEnqueueNDRangeKernel({{.*}}kernels[0],
// CHECK-OPENCL-NOT: clEnqueue{{Write|Read}}Buffer
// CHECK-OPENCL: POLYPRAGMA_CL_CHECK_jacobi_1d(clEnqueueNDRangeKernel({{.*}}kernels[1],
// CHECK-OPENCL: POLYPRAGMA_CL_CHECK_jacobi_1d(clEnqueueReadBuffer({{.*}}, dev_A, CL_TRUE,
// CHECK-OPENCL: POLYPRAGMA_CL_CHECK_jacobi_1d(clEnqueueReadBuffer({{.*}}, dev_B, CL_TRUE,
// CHECK-OPENCL: clReleaseMemObject(dev_A)
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
