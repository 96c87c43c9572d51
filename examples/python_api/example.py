"""polypragma from Python: compile kernels.c once, call its loop nests on NumPy arrays.

    python examples/python_api/example.py [--target auto|cuda|opencl|c] [N]

With the cuda backend and CuPy, or the opencl backend and PyOpenCL, the stencil also runs on arrays that
stay on the device (no copy per call).

The module is cached (``POLYPRAGMA_CACHE_DIR``, else ``~/.cache/polypragma``): run it twice and the
second run loads the library without compiling.
"""

import argparse
import pathlib
import time

import numpy as np

import polypragma

HERE = pathlib.Path(__file__).resolve().parent


def jacobi_2d(tsteps, A, B):
    """The stencil of kernels.c in NumPy, to check the compiled one."""
    for _ in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="auto", choices=("auto", "cuda", "opencl", "c"))
    parser.add_argument("n", type=int, nargs="?", default=200)
    args = parser.parse_args()

    started = time.perf_counter()
    mod = polypragma.compile(HERE / "kernels.c", target=args.target)
    took = time.perf_counter() - started
    print(f"{'loaded from the cache' if mod.cached else 'compiled'} in {took:.2f} s")
    print(mod.explain())

    n = args.n
    rng = np.random.default_rng(0)
    A, B, C = rng.random((n, n)), rng.random((n, n)), rng.random((n, n))
    expected = 1.5 * A @ B + 1.2 * C
    started = time.perf_counter()
    mod.gemm(n, n, n, 1.5, 1.2, C, A, B)
    print(f"gemm {n}x{n}: {time.perf_counter() - started:.4f} s, largest error {np.abs(C - expected).max():.1e}")
    assert np.allclose(C, expected, rtol=1e-10)

    A, B = rng.random((n, n)), np.zeros((n, n))
    A_np, B_np = A.copy(), B.copy()
    started = time.perf_counter()
    mod.jacobi_2d(20, n, A, B)
    print(f"jacobi_2d {n}x{n}, 20 steps: {time.perf_counter() - started:.4f} s")
    jacobi_2d(20, A_np, B_np)
    assert np.allclose(A, A_np, rtol=1e-10) and np.allclose(B, B_np, rtol=1e-10)

    try:
        mod.gemm(n, n, n, 1.5, 1.2, C, A.astype(np.float32), B)
    except TypeError as error:
        print(f"a wrong argument is refused before any C runs: {error}")
    on_device(mod, n, rng)
    print(f"backend: {mod.backend}; results match NumPy")


def on_device(mod, n, rng):
    """The stencil on device arrays, used in place: CuPy's for cuda, PyOpenCL's for opencl."""
    A, B = rng.random((n, n)), np.zeros((n, n))
    try:
        if mod.backend == "cuda":
            import cupy

            A_dev, B_dev = cupy.asarray(A), cupy.asarray(B)
            to_host, finish = cupy.asnumpy, cupy.cuda.Device().synchronize
        elif mod.backend == "opencl":
            import pyopencl as cl
            import pyopencl.array as cla

            queue = cl.CommandQueue(cl.create_some_context(interactive=False))
            A_dev, B_dev = cla.to_device(queue, A), cla.to_device(queue, B)
            to_host, finish = (lambda a: a.get()), queue.finish
        else:
            return
    except ImportError as error:
        print(f"device arrays: skipped ({error.name} is not installed)")
        return
    finish()
    started = time.perf_counter()
    mod.jacobi_2d(20, n, A_dev, B_dev)
    print(f"jacobi_2d on {type(A_dev).__module__} arrays, in place: {time.perf_counter() - started:.4f} s")
    jacobi_2d(20, A, B)
    assert np.allclose(to_host(A_dev), A, rtol=1e-10) and np.allclose(to_host(B_dev), B, rtol=1e-10)


if __name__ == "__main__":
    main()
