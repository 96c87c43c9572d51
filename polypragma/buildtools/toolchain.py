"""Which target a build can use here: cuda when nvcc is found, else opencl when the OpenCL headers
and library are, else c.  ``POLYPRAGMA_TARGET`` in the environment chooses instead."""

from __future__ import annotations

import ctypes.util
import os
import shutil
from dataclasses import dataclass

DEFAULT_CUDA_ARCHITECTURES = ("80", "90")  # Ampere and Hopper, plus PTX of the last for newer GPUs


@dataclass(frozen=True)
class Choice:
    target: str
    why: str


def find_nvcc() -> str | None:
    """nvcc: $NVCC, else on the PATH, else under $CUDA_HOME, $CUDA_PATH or /usr/local/cuda."""
    if os.environ.get("NVCC"):
        return shutil.which(os.environ["NVCC"])
    found = shutil.which("nvcc")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "nvcc"), os.X_OK):
            return os.path.join(root, "bin", "nvcc")
    return None


def cuda_library_dir(nvcc: str) -> str | None:
    """The directory of the static CUDA runtime: in the toolkit of ``nvcc``, $CUDA_HOME, $CUDA_PATH or
    /usr/local/cuda (``lib64``, ``lib`` or ``targets/<arch>/lib``); None when none holds it."""
    roots = [os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), os.environ.get("CUDA_HOME"),
             os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    for root in filter(None, roots):
        for name in ("lib64", "lib", os.path.join("targets", "x86_64-linux", "lib")):
            if os.path.exists(os.path.join(root, name, "libcudart_static.a")):
                return os.path.join(root, name)
    return None


def find_opencl(include_dirs=()) -> bool:
    """Whether the OpenCL library and the header CL/cl.h are present."""
    if ctypes.util.find_library("OpenCL") is None:
        return False
    candidates = [*include_dirs, *os.environ.get("CPATH", "").split(os.pathsep), "/usr/include", "/usr/local/include"]
    return any(d and os.path.exists(os.path.join(d, "CL", "cl.h")) for d in candidates)


def architectures(spec: str | None) -> tuple[str, ...]:
    """``"80,90"`` (or ``"80;90"``, ``"sm_80 sm_90"``) to ``("80", "90")``; None gives the default."""
    if not spec:
        return DEFAULT_CUDA_ARCHITECTURES
    words = spec.replace(";", ",").replace(" ", ",").split(",")
    return tuple(w.strip().removeprefix("sm_").removeprefix("compute_") for w in words if w.strip())


def gencode_flags(archs: tuple[str, ...]) -> list[str]:
    """nvcc flags for machine code of each architecture and PTX of the newest (for later GPUs)."""
    flags = []
    for arch in archs:
        flags += ["-gencode", f"arch=compute_{arch},code=sm_{arch}"]
    newest = max(archs, key=lambda a: int("".join(c for c in a if c.isdigit()) or 0))
    return flags + ["-gencode", f"arch=compute_{newest},code=compute_{newest}"]


def choose_target(requested: str | None = None, include_dirs=()) -> Choice:
    requested = requested or os.environ.get("POLYPRAGMA_TARGET") or None
    if requested:
        if requested not in ("cuda", "opencl", "c"):
            raise ValueError(f"polypragma: unknown target '{requested}' (cuda, opencl or c)")
        if requested == "cuda" and find_nvcc() is None:
            raise RuntimeError("polypragma: the cuda target needs nvcc (set NVCC or CUDA_HOME, or put it on the PATH)")
        return Choice(requested, "as requested")
    nvcc = find_nvcc()
    if nvcc:
        return Choice("cuda", f"nvcc is {nvcc}")
    if find_opencl(include_dirs):
        return Choice("opencl", "no nvcc; OpenCL headers and library found")
    return Choice("c", "no nvcc and no OpenCL: the regions stay sequential C")
