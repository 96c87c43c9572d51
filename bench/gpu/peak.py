"""What the GPU can do, measured once per run, and the vendor library on the matrix product.

Runs on the GPU machine with CuPy; prints one JSON object:

* ``copy_gbs``: a device-to-device copy of 1 GiB, bytes read plus bytes written per second;
* ``dgemm_peak_gflops``: cuBLAS DGEMM on 8192 x 8192 matrices (the FP64 rate our kernels can aim at);
* ``cublas_gemm``: cuBLAS DGEMM at the benchmark's gemm size (C = alpha A B + beta C), the kernel
  alone and with the transfers of A, B and C in and C out from pageable host memory, as the
  generated code does.

    python3 bench/gpu/peak.py --gemm 2000
"""

from __future__ import annotations

import argparse
import json

import cupy
import numpy


def _time_ms(function, repeat: int = 5) -> float:
    """Best time of ``repeat`` calls after a warm-up, with CUDA events."""
    function()
    cupy.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        function()
        stop.record()
        stop.synchronize()
        best = min(best, cupy.cuda.get_elapsed_time(start, stop))
    return best


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gemm", type=int, default=2000)
    args = parser.parse_args()
    out = {"cupy": cupy.__version__, "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()}

    count = 2**30 // 8
    source = cupy.ones(count, dtype=cupy.float64)
    target = cupy.empty_like(source)
    ms = _time_ms(lambda: target.__setitem__(Ellipsis, source))
    out["copy_gbs"] = 2 * count * 8 / ms / 1e6
    del source, target

    n = 8192
    a = cupy.random.random((n, n))
    b = cupy.random.random((n, n))
    ms = _time_ms(lambda: cupy.matmul(a, b))
    out["dgemm_peak_gflops"] = 2.0 * n**3 / ms / 1e6
    del a, b

    n = args.gemm
    rng = numpy.random.default_rng(1)
    host = {name: rng.random((n, n)) for name in "ABC"}
    alpha, beta = 1.5, 1.2
    a, b, c = (cupy.asarray(host[name]) for name in "ABC")

    def gemm(x, y, z):
        # C = alpha A B + beta C in one cuBLAS call where CuPy exposes it, else matmul (also cuBLAS)
        try:
            cupy.cublas.gemm("N", "N", x, y, out=z, alpha=alpha, beta=beta)
            out["cublas_call"] = "cupy.cublas.gemm"
        except (AttributeError, TypeError):
            z *= beta
            z += alpha * cupy.matmul(x, y)
            out["cublas_call"] = "cupy.matmul"

    kernel_ms = _time_ms(lambda: gemm(a, b, c))

    def with_transfers():
        da, db, dc = (cupy.asarray(host[name]) for name in "ABC")
        gemm(da, db, dc)
        dc.get()

    total_ms = _time_ms(with_transfers)
    out["cublas_gemm"] = {"n": n, "kernel_ms": kernel_ms, "total_ms": total_ms,
                          "gflops": 2.0 * n**3 / kernel_ms / 1e6}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
