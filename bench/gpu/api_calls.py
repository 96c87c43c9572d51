"""The Python API on the GPU machine (issue 19): a module built here by ``run_gpu.py build`` (cuda,
sm_90) called on NumPy, CuPy, PyCUDA and PyTorch arrays, timed per call, checked against NumPy.

    PYTHONPATH=. POLYPRAGMA_PROFILE=1 python3 bench/gpu/api_calls.py MODULE_DIR KIND N STEPS CALLS

KIND is numpy, cupy, pycuda or torch.  It loads the module from MODULE_DIR without the compiler
(which needs islpy, absent there), calls ``jacobi_2d(STEPS, N, A, B)`` CALLS times on arrays of that
kind, and prints one JSON line: ``first_ms`` (the first call, with the context's start for device
arrays), ``per_call_ms`` (the median of the others: each call returns when its kernels are done) and
the results' largest difference from NumPy after the first call.  The generated runtime's profile
(POLYPRAGMA_PROFILE=1) goes to stderr: run_gpu.py reads the kernel and copy times from it.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import numpy as np

from polypragma.api.cache import load_manifest
from polypragma.api.module import Module


def jacobi_2d(tsteps, A, B):
    """examples/python_api/kernels.c's stencil in NumPy."""
    for _ in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def arrays(kind: str, A: np.ndarray, B: np.ndarray):
    """(A, B as KIND's arrays, to NumPy, wait for the device)."""
    if kind == "numpy":
        return A.copy(), B.copy(), np.asarray, lambda: None
    if kind == "cupy":
        import cupy

        return cupy.asarray(A), cupy.asarray(B), cupy.asnumpy, cupy.cuda.Device().synchronize
    if kind == "pycuda":
        import pycuda.autoprimaryctx  # noqa: F401  (the runtime's primary context, which the module uses)
        import pycuda.driver
        import pycuda.gpuarray

        return (pycuda.gpuarray.to_gpu(A), pycuda.gpuarray.to_gpu(B), lambda a: a.get(),
                pycuda.driver.Context.synchronize)
    if kind == "torch":
        import torch

        return (torch.from_numpy(A).cuda(), torch.from_numpy(B).cuda(), lambda a: a.cpu().numpy(),
                torch.cuda.synchronize)
    raise SystemExit(f"unknown kind {kind}")


def main() -> int:
    directory, kind, n, steps, calls = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
    manifest = load_manifest(directory)
    if manifest is None:
        raise SystemExit(f"no module in {directory}")
    mod = Module(directory, manifest, ("built by run_gpu.py build",), True, "examples/python_api/kernels.c")
    rng = np.random.default_rng(0)
    A, B = rng.random((n, n)), np.zeros((n, n))
    A_kind, B_kind, to_numpy, synchronise = arrays(kind, A, B)
    synchronise()
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        mod.jacobi_2d(steps, n, A_kind, B_kind)
        synchronise()
        times.append((time.perf_counter() - started) * 1e3)
        if len(times) == 1:
            jacobi_2d(steps, A, B)
            difference = max(float(np.abs(to_numpy(A_kind) - A).max()), float(np.abs(to_numpy(B_kind) - B).max()))
    print(json.dumps({"array": kind, "n": n, "steps": steps, "calls": calls, "first_ms": round(times[0], 3),
                      "per_call_ms": round(statistics.median(times[1:]), 3) if calls > 1 else None,
                      "max_difference": difference}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
