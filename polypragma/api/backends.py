"""Which backend runs a module: what ``target="auto"`` picks, and why.

cuda only when nvcc can build it *and* a CUDA device is usable now: nvcc alone (this machine has one
and no GPU) would give a library whose regions always take the CPU fallback, sequentially.  Then
opencl only on an OpenCL *GPU*: on a CPU device (PoCL) the OpenCL program is compiled when the
library first runs, seconds that OpenMP C does not spend, and its kernels are not faster than
OpenMP's loops.  Otherwise c, with OpenMP when the C compiler has it.

The devices are asked through their driver libraries with ctypes (``cuInit``/``cuDeviceGetCount``,
``clGetPlatformIDs``/``clGetDeviceIDs``), so the choice needs neither PyCUDA nor PyOpenCL; it is
made once per process.
"""

from __future__ import annotations

import ctypes
import functools
import os
from dataclasses import dataclass

from polypragma.buildtools.toolchain import find_nvcc, find_opencl

BACKENDS = ("cuda", "opencl", "c")


@dataclass(frozen=True)
class Choice:
    backend: str
    reasons: tuple[str, ...]  # one line per backend considered, the chosen one last
    cuda_architecture: str | None = None  # the present device's, "90" (cuda only)


@dataclass(frozen=True)
class CudaDevice:
    usable: bool
    why: str
    architecture: str | None = None


@functools.cache
def cuda_device() -> CudaDevice:
    """Whether the CUDA driver is loadable and has a device, with its compute capability."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return CudaDevice(False, "no NVIDIA driver (libcuda.so.1 cannot be loaded)")
    status = driver.cuInit(0)
    if status != 0:
        return CudaDevice(False, f"the NVIDIA driver does not start (cuInit returned {status})")
    count = ctypes.c_int(0)
    if driver.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        return CudaDevice(False, "the NVIDIA driver reports no device")
    major, minor = ctypes.c_int(0), ctypes.c_int(0)
    # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76, of device 0
    if driver.cuDeviceGetAttribute(ctypes.byref(major), 75, 0) == 0 \
            and driver.cuDeviceGetAttribute(ctypes.byref(minor), 76, 0) == 0:
        architecture = f"{major.value}{minor.value}"
        return CudaDevice(True, f"{count.value} CUDA device(s), the first of compute capability "
                                f"{major.value}.{minor.value}", architecture)
    return CudaDevice(True, f"{count.value} CUDA device(s)")


@functools.cache
def opencl_gpu() -> tuple[bool, str]:
    """Whether an OpenCL platform offers a GPU device."""
    try:
        library = ctypes.CDLL("libOpenCL.so.1")
    except OSError:
        return False, "no OpenCL library (libOpenCL.so.1 cannot be loaded)"
    platforms = (ctypes.c_void_p * 16)()
    count = ctypes.c_uint(0)
    if library.clGetPlatformIDs(16, platforms, ctypes.byref(count)) != 0 or count.value == 0:
        return False, "no OpenCL platform"
    CL_DEVICE_TYPE_GPU = 1 << 2
    for k in range(min(count.value, 16)):
        devices = ctypes.c_uint(0)
        if library.clGetDeviceIDs(ctypes.c_void_p(platforms[k]), ctypes.c_ulonglong(CL_DEVICE_TYPE_GPU), 0, None,
                                  ctypes.byref(devices)) == 0 and devices.value > 0:
            return True, "an OpenCL GPU device is present"
    return False, ("OpenCL has no GPU device here (a CPU device such as PoCL compiles the kernels when the "
                   "program starts, slower than OpenMP C)")


def choose(target: str, include_dirs: tuple[str, ...] = ()) -> Choice:
    """The backend for ``target`` ("auto", "cuda", "opencl" or "c"); ValueError or RuntimeError when an
    explicit target cannot be built here."""
    if target not in ("auto", *BACKENDS):
        raise ValueError(f"polypragma.compile: unknown target '{target}' (auto, cuda, opencl or c)")
    nvcc = find_nvcc()
    if target == "cuda":
        if nvcc is None:
            raise RuntimeError("polypragma.compile: target 'cuda' needs nvcc (set NVCC or CUDA_HOME, or put it on "
                               "the PATH)")
        device = cuda_device()
        note = "" if device.usable else "; the regions will run their original loops on the CPU"
        return Choice("cuda", (f"cuda: requested; nvcc is {nvcc}; {device.why}{note}",), device.architecture)
    if target == "opencl":
        if not find_opencl(include_dirs):
            raise RuntimeError("polypragma.compile: target 'opencl' needs the OpenCL library and the header CL/cl.h "
                               "(Debian: ocl-icd-opencl-dev, and a driver such as pocl-opencl-icd)")
        return Choice("opencl", (f"opencl: requested; {opencl_gpu()[1]}",))
    if target == "c":
        return Choice("c", ("c: requested",))
    reasons = []
    if nvcc is None:
        reasons.append("cuda: not chosen, no nvcc")
    else:
        device = cuda_device()
        if device.usable:
            return Choice("cuda", (f"cuda: nvcc is {nvcc}; {device.why}",), device.architecture)
        reasons.append(f"cuda: not chosen, nvcc is {nvcc} but {device.why}")
    if not find_opencl(include_dirs):
        reasons.append("opencl: not chosen, no OpenCL library or CL/cl.h")
    else:
        gpu, why = opencl_gpu()
        if gpu:
            return Choice("opencl", (*reasons, f"opencl: {why}"))
        reasons.append(f"opencl: not chosen, {why}")
    return Choice("c", (*reasons, "c: the regions run as C, with OpenMP when the C compiler has it"))


def c_compiler() -> str:
    """The C compiler: $CC, else cc."""
    return os.environ.get("CC") or "cc"
