"""polypragma from Python: compile a C source once, call its offloaded functions on NumPy arrays.

::

    mod = polypragma.compile(C_SOURCE_OR_PATH, target="auto", tile_size=32)
    mod.backend          # "cuda", "opencl" or "c": what runs; mod.explain() says why
    mod.jacobi_2d(tsteps, n, A, B)    # NumPy arrays; with cuda, CuPy or PyCUDA arrays in place too

Modules: ``signature`` (the C functions, as data) and ``declarations`` (read from C), ``arguments``
(checks and conversion), ``backends`` (what ``auto`` picks), ``options``, ``glue`` and ``build`` (the
shared library), ``cache`` (on disk), ``module`` (the objects Python calls).  A module found in the
cache is loaded without importing the compiler.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import warnings

from polypragma.api.backends import choose, c_compiler
from polypragma.api.options import BuildOptions
from polypragma.api.cache import (cache_dir, clear_cache, entry_dir, file_identity, key, load_manifest, locked,
                                  set_cache_dir, write_manifest)
from polypragma.api.module import CompileError, DeviceError, DeviceWarning, Function, Module
from polypragma.buildtools.toolchain import find_nvcc

__all__ = ["compile", "Module", "Function", "CompileError", "CompileWarning", "DeviceError", "DeviceWarning",
           "cache_dir", "set_cache_dir", "clear_cache"]


class CompileWarning(UserWarning):
    """polypragma compiled the source with warnings (a region left as written runs sequentially)."""


CompileWarning.__module__ = "polypragma"


def compile(source, target: str = "auto", *, name: str | None = None, include_dirs=(), defines=(),
            undefines=(), openmp: bool | None = None, tile_size=None, block_size=None, grid_size=None,
            sizes: str | None = None, reschedule: bool = True, fusion: str = "auto", fp_contract: bool = True,
            shared_memory: bool = True, private_memory: bool = True, constant_memory: bool = True,
            vector_copies: bool | None = None, async_copies: bool = False, double_buffer: bool = False,
            unroll_copies: bool = True, strict: bool = False, cflags=("-O2",),
            cuda_architectures=None) -> Module:
    """Compile the C ``source`` (its text, or the path of a ``.c`` file) and load it.

    ``target``: "auto" (cuda with a usable CUDA device, else opencl on an OpenCL GPU, else c), or
    "cuda", "opencl", "c".  The other options are the command line's: ``include_dirs``, ``defines``
    ("N=100" strings, or a dict), ``undefines``, ``openmp`` (c backend; default: when the C compiler
    has it), ``tile_size``/``block_size``/``grid_size`` (an int or a sequence, outermost first),
    ``sizes`` (PPCG's notation), ``reschedule``, ``fusion``, ``fp_contract``, ``shared_memory``,
    ``private_memory``, ``constant_memory``, ``vector_copies`` (None: the compiler's choice, kernel by kernel),
    ``async_copies``, ``double_buffer``, ``unroll_copies``, ``strict``;
    ``cflags`` for the C (and nvcc) compile;
    ``cuda_architectures`` such as ("90",) (default: the device's, else sm_80 and sm_90).

    A text source is written into the cache as ``NAME.c`` (``name``, default "source"); its quoted
    includes are found through ``include_dirs``.  A source compiled before with the same options,
    compilers and polypragma is loaded from the cache without compiling.
    """
    path, text = _source(source, name)
    options = BuildOptions(
        include_dirs=tuple(os.path.abspath(d) for d in _words(include_dirs)), defines=_defines(defines),
        undefines=tuple(_words(undefines)), openmp=openmp, tile_size=_sizes(tile_size),
        block_size=_sizes(block_size), grid_size=_sizes(grid_size), sizes=sizes, reschedule=reschedule,
        fusion=fusion, fp_contract=fp_contract, shared_memory=shared_memory, private_memory=private_memory,
        constant_memory=constant_memory, vector_copies=vector_copies, async_copies=async_copies,
        double_buffer=double_buffer, unroll_copies=unroll_copies, strict=strict,
        cflags=tuple(_words(cflags)),
        cuda_architectures=tuple(str(a).removeprefix("sm_") for a in _words(cuda_architectures)) or None)
    choice = choose(target, options.include_dirs)
    stem = os.path.basename(path)[:-2] if path else (name or "source")
    entry_key = key({
        "source": text, "directory": os.path.dirname(path) if path else None, "stem": stem,
        "options": dataclasses.asdict(options), "backend": choice.backend, "architecture": choice.cuda_architecture,
        "polypragma": _polypragma_identity(), "cc": file_identity(shutil.which(shlex.split(c_compiler())[0])),
        "CC": c_compiler(), "nvcc": file_identity(find_nvcc()) if choice.backend == "cuda" else None})
    directory = entry_dir(entry_key)
    manifest = load_manifest(directory)
    cached = manifest is not None
    if manifest is None:
        with locked(entry_key):
            manifest = load_manifest(directory)  # another process may have built it meanwhile
            cached = manifest is not None
            if manifest is None:
                shutil.rmtree(directory, ignore_errors=True)
                os.makedirs(directory)
                if path is None:
                    path = os.path.join(directory, f"{stem}.c")
                    with open(path, "w", encoding="utf-8") as handle:
                        handle.write(text)
                from polypragma.api.build import build  # the compiler: only when there is something to build

                manifest = build(path, directory, choice, options)
                write_manifest(directory, manifest)
    if manifest["diagnostics"]:
        warnings.warn(manifest["diagnostics"], CompileWarning, stacklevel=2)
    return Module(directory, manifest, choice.reasons, cached, path or os.path.join(directory, f"{stem}.c"))


def _source(source, name: str | None) -> tuple[str | None, str]:
    """(path or None, text) of ``source``: a path-like or a string naming an existing file is a path."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source
                                           and source.strip().endswith(".c")):
        path = os.path.abspath(os.fspath(source))
        with open(path, encoding="utf-8") as handle:  # FileNotFoundError names the path
            return path, handle.read()
    if not isinstance(source, str):
        raise TypeError(f"polypragma.compile: expected the text of a C file or its path, got {type(source).__name__}")
    if name is not None and not name.isidentifier():
        raise ValueError(f"polypragma.compile: name must be an identifier, got '{name}'")
    return None, source


def _words(value) -> list:
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    return [os.fspath(v) if isinstance(v, os.PathLike) else v for v in value]


def _defines(value) -> tuple[str, ...]:
    if isinstance(value, dict):
        return tuple(k if v is None else f"{k}={v}" for k, v in value.items())
    return tuple(_words(value))


def _sizes(value) -> tuple[int, ...] | None:
    if value is None:
        return None
    if isinstance(value, int):
        return (value,)
    return tuple(int(v) for v in value)


def _polypragma_identity() -> list:
    """polypragma's version and, for an editable install under development, the state of its files:
    a change of the compiler must not load modules it built before."""
    from polypragma import __version__

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    state = []
    for root, _, files in os.walk(package):
        for f in sorted(files):
            if f.endswith((".py", ".h")):
                status = os.stat(os.path.join(root, f))
                state.append((os.path.relpath(os.path.join(root, f), package), status.st_size, status.st_mtime_ns))
    return [__version__, key({"files": sorted(state)})]
