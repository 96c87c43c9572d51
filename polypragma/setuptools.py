"""Python C extensions with offloaded loops, built by setuptools.

::

    from setuptools import Extension, setup
    from polypragma.setuptools import build_ext, offload

    setup(ext_modules=offload([Extension("fast", ["src/fast.c"])]), cmdclass={"build_ext": build_ext})

:func:`offload` works like ``cythonize``: it runs polypragma on the C sources of each extension that
contain ``#pragma scop`` and returns the extensions with those sources replaced by the generated files
(under ``build/polypragma/``, mirroring the source paths).  It regenerates only when a source or a
header it includes is newer than the outputs, or the options or polypragma's version changed.

The target is chosen once, explicitly: ``target=`` or ``POLYPRAGMA_TARGET``, else cuda when nvcc is
found, else opencl when OpenCL is, else c; the choice is printed.  :class:`build_ext` then compiles the
``.cu`` files with nvcc (``-Xcompiler -fPIC``; architectures from ``--cuda-architectures`` or
``POLYPRAGMA_CUDA_ARCHITECTURES``, default sm_80 and sm_90 plus PTX), links the CUDA runtime statically
(the extension needs no library path at run time), links OpenCL for opencl, and leaves everything else
to setuptools.  Extensions not passed through :func:`offload` are offloaded by :class:`build_ext`.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys

from setuptools.command.build_ext import build_ext as _setuptools_build_ext
from setuptools.errors import CompileError

from polypragma.buildtools.freshness import record_command, stale_reason
from polypragma.buildtools.toolchain import architectures, choose_target, cuda_library_dir, find_nvcc, gencode_flags

__all__ = ["build_ext", "offload"]

_TARGET_ATTRIBUTE = "polypragma_target"


def _say(message: str) -> None:
    print(f"polypragma: {message}", file=sys.stderr)


def _has_region(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return any(line.strip().startswith("#pragma scop") for line in handle)
    except OSError:
        return False


def _output_dir(source: str, build_dir: str) -> str:
    relative = os.path.relpath(os.path.abspath(source))
    directory = os.path.dirname(relative)
    if relative.startswith(os.pardir) or os.path.isabs(relative):
        digest = hashlib.md5(os.path.dirname(os.path.abspath(source)).encode()).hexdigest()[:12]
        directory = os.path.join("external", digest)
    return os.path.join(build_dir, directory)


def _generate(source: str, outdir: str, target: str, ext, options: tuple[str, ...], force: bool) -> list[str]:
    """Run polypragma on one source unless its outputs are up to date; return the outputs."""
    from polypragma.cli import main as polypragma_main

    stem = os.path.basename(source)[: -len(".c")]
    outputs = [os.path.join(outdir, f"{stem}.polypragma.c")]
    if target == "cuda":
        outputs.append(os.path.join(outdir, f"{stem}.polypragma.cu"))
    depfile = os.path.join(outdir, f"{stem}.polypragma.d")
    arguments = [source, "-o", outdir, "--target", target, "-MF", depfile]
    arguments += [f"-I{d}" for d in ext.include_dirs]
    for name, value in ext.define_macros:
        arguments.append(f"-D{name}" if value is None else f"-D{name}={value}")
    arguments += [f"-U{name}" for name in ext.undef_macros]
    arguments += list(options)
    why = "forced" if force else stale_reason(outputs, depfile, arguments)
    if why is None:
        return outputs
    _say(f"generating {', '.join(outputs)} ({why})")
    if polypragma_main(arguments) != 0:
        raise CompileError(f"polypragma failed on {source} (the diagnostics are above)")
    record_command(depfile, arguments)
    return outputs


def offload(extensions, *, target: str | None = None, options=(), build_dir: str = os.path.join("build", "polypragma"),
            force: bool = False):
    """Run polypragma on the marked C sources of ``extensions`` (``Extension`` objects) and return them
    with those sources replaced by the generated files.

    ``target``: ``"cuda"``, ``"opencl"`` or ``"c"``; None chooses (see the module's documentation).
    ``options``: more polypragma options, e.g. ``["--tile-size=64,64"]`` or ``["--openmp"]``.
    ``force``: regenerate even when the outputs are up to date.
    """
    options = tuple(shlex.split(options) if isinstance(options, str) else options)
    for ext in extensions:
        if getattr(ext, _TARGET_ATTRIBUTE, None):
            continue
        choice = choose_target(target, ext.include_dirs)
        _say(f"{ext.name}: target {choice.target} ({choice.why})")
        sources = []
        for source in ext.sources:
            if not (source.endswith(".c") and _has_region(source)):
                sources.append(source)
                continue
            outputs = _generate(source, _output_dir(source, build_dir), choice.target, ext, options, force)
            sources += outputs
            # the generated file is elsewhere: #include "..." must still find the headers next to the source
            source_dir = os.path.dirname(os.path.abspath(source))
            if source_dir not in ext.include_dirs:
                ext.include_dirs.append(source_dir)
        ext.sources = sources
        if choice.target == "opencl" and "OpenCL" not in ext.libraries:
            ext.libraries.append("OpenCL")
        if "--openmp" in options and choice.target == "c":
            ext.extra_compile_args = [*(ext.extra_compile_args or []), "-fopenmp"]
            ext.extra_link_args = [*(ext.extra_link_args or []), "-fopenmp"]
        setattr(ext, _TARGET_ATTRIBUTE, choice.target)
    return extensions


class build_ext(_setuptools_build_ext):
    """setuptools' build_ext that also compiles the generated ``.cu`` files with nvcc and links the
    CUDA runtime; name it in ``cmdclass={"build_ext": build_ext}``."""

    user_options = _setuptools_build_ext.user_options + [
        ("cuda-architectures=", None,
         "GPU architectures for nvcc, e.g. '80,90' (default: $POLYPRAGMA_CUDA_ARCHITECTURES, else 80,90)"),
    ]

    def initialize_options(self):
        super().initialize_options()
        self.cuda_architectures = None

    def finalize_options(self):
        super().finalize_options()
        self.cuda_architectures = architectures(self.cuda_architectures
                                                or os.environ.get("POLYPRAGMA_CUDA_ARCHITECTURES"))

    def build_extension(self, ext):
        if getattr(ext, _TARGET_ATTRIBUTE, None) is None and any(
                s.endswith(".c") and _has_region(s) for s in ext.sources):
            offload([ext])
        units = [s for s in ext.sources if s.endswith(".cu")]
        if units:
            nvcc = find_nvcc()
            if nvcc is None:
                raise CompileError(f"{ext.name}: nvcc is needed for {', '.join(units)} (set NVCC or CUDA_HOME, "
                                   "or choose POLYPRAGMA_TARGET=opencl or c)")
            objects = [self._compile_cuda(nvcc, unit, ext) for unit in units]
            ext.sources = [s for s in ext.sources if not s.endswith(".cu")]
            ext.extra_objects = [*(ext.extra_objects or []), *objects]
            library_dir = cuda_library_dir(nvcc)
            if library_dir is None:
                raise CompileError(f"{ext.name}: the CUDA runtime (libcudart_static.a) was not found; set CUDA_HOME")
            ext.library_dirs = [*ext.library_dirs, library_dir]
            ext.libraries = [*ext.libraries, "cudart_static", "rt", "pthread", "dl"]
            ext.language = ext.language or "c++"  # the CUDA objects need the C++ runtime
        super().build_extension(ext)

    def _compile_cuda(self, nvcc: str, unit: str, ext) -> str:
        stem = os.path.splitext(os.path.relpath(os.path.abspath(unit)))[0].replace(os.pardir, "_")
        obj = os.path.join(self.build_temp, stem + ".cu.o")  # not the .o of the generated .c
        if not self.force and os.path.exists(obj) and os.stat(obj).st_mtime_ns >= os.stat(unit).st_mtime_ns:
            return obj
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        command = [nvcc, "-O2", "-Xcompiler", "-fPIC", *gencode_flags(self.cuda_architectures),
                   *[f"-I{d}" for d in ext.include_dirs],
                   *[f"-D{n}" if v is None else f"-D{n}={v}" for n, v in ext.define_macros],
                   "-c", unit, "-o", obj]
        _say(" ".join(shlex.quote(word) for word in command))
        result = subprocess.run(command, capture_output=True, text=True)
        sys.stderr.write(result.stdout + result.stderr)
        if result.returncode != 0:
            raise CompileError(f"nvcc failed on {unit}")
        return obj
