"""Build one module: run polypragma on the source, write the glue, compile a shared library.

Per backend (the generated runtime is compiled with ``-DPOLYPRAGMA_LIBRARY``, see glue.py):

* ``c``: ``--target c`` (``--openmp`` when the C compiler accepts ``-fopenmp``), one shared library;
* ``opencl``: ``--target opencl``, linked with ``-lOpenCL``; the glue exports the adoption of the
  caller's context and queue, for PyOpenCL arrays used in place;
* ``cuda``: ``--target cuda``; the ``.cu`` file compiled by nvcc for the present device's architecture
  (else polypragma's default ones), the glue by the C compiler, linked by nvcc with the static CUDA
  runtime, so the library needs no CUDA library path to load.

The compiler's diagnostics (a region left as written, say) are kept for ``Module.explain()`` and
raised as warnings; an error of polypragma or of a compiler raises :class:`CompileError` with its
messages.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from polypragma.api.backends import Choice, c_compiler
from polypragma.api.cache import file_digest
from polypragma.api.declarations import functions_with_regions
from polypragma.api.glue import glue
from polypragma.api.module import CompileError
from polypragma.api.options import BuildOptions
from polypragma.api.signature import Signature
from polypragma.buildtools.toolchain import architectures, find_nvcc, gencode_flags
from polypragma.codegen.opencl_target import adopt_function
from polypragma.diagnostics import FatalError, Reporter
from polypragma.driver import Options, compile_file, output_path
from polypragma.frontend.preprocess import PreprocessOptions, files_read, parse_preprocessed, preprocess


def build(source: str, directory: str, choice: Choice, options: BuildOptions) -> dict:
    """Compile ``source`` into ``directory``; return the manifest of the entry (without writing it)."""
    backend = choice.backend
    cc = shlex.split(c_compiler())
    openmp = backend == "c" and options.openmp is not False and openmp_works(tuple(cc))
    if options.openmp and not openmp and backend == "c":
        raise CompileError(f"openmp=True, but the C compiler {' '.join(cc)} does not accept -fopenmp")
    with open(source, encoding="utf-8") as handle:
        text = handle.read()
    try:
        preprocessed = preprocess(source, PreprocessOptions(options.include_dirs, options.defines,
                                                            options.undefines))
        signatures = functions_with_regions(text, source, parse_preprocessed(preprocessed, source))
    except FatalError as exc:
        raise CompileError(str(exc.diagnostic("error"))) from None
    messages = io.StringIO()
    status = compile_file(source, options.driver_options(directory, backend, openmp, device_entries=backend != "c"),
                          Reporter(messages))
    if status != 0:
        raise CompileError(f"polypragma could not compile {source}:\n{messages.getvalue().rstrip()}")
    generated = output_path(source, Options(output_dir=directory))
    prototypes: dict[str, str] = {}
    adopt = None
    if backend != "c":  # the host functions taking device buffers: in the .cu, or in the C file (opencl)
        host = output_path(source, Options(output_dir=directory), ".cu") if backend == "cuda" else generated
        with open(host, encoding="utf-8") as handle:
            signatures, prototypes = device_entries(signatures, handle.read())
        if backend == "opencl":
            prototypes = {}  # static functions of the C file the glue includes
            adopt = (adopt_function(source), source)
    glue_path = os.path.join(directory, "polypragma_api.c")
    with open(glue_path, "w", encoding="utf-8") as handle:
        handle.write(glue(os.path.abspath(generated), signatures, prototypes, adopt))
    library = f"lib{os.path.basename(directory)[:16]}.so"
    commands = _commands(source, directory, glue_path, library, choice, options, cc, openmp)
    for command in commands:
        _run(command)
    headers = {}
    for path in files_read(preprocessed):
        if not _same_file(path, source):
            headers[os.path.abspath(path)] = file_digest(path)
    return {"backend": backend, "library": library, "openmp": openmp,
            "signatures": [s.to_json() for s in signatures], "headers": headers,
            "diagnostics": messages.getvalue().rstrip(), "commands": [" ".join(c) for c in commands]}


def _commands(source: str, directory: str, glue_path: str, library: str, choice: Choice, options: BuildOptions,
              cc: list[str], openmp: bool) -> list[list[str]]:
    """The compiler commands building ``library`` in ``directory``."""
    flags = ["-DPOLYPRAGMA_LIBRARY", "-I", os.path.dirname(os.path.abspath(source)), *options.preprocessor_flags()]
    if choice.backend != "cuda":
        return [[*cc, *options.cflags, "-shared", "-fPIC", "-Wl,-Bsymbolic", *flags, *(["-fopenmp"] if openmp else []),
                 glue_path, "-o", os.path.join(directory, library),
                 *(["-lOpenCL"] if choice.backend == "opencl" else []), "-lm"]]
    archs = options.cuda_architectures or ((choice.cuda_architecture,) if choice.cuda_architecture
                                           else architectures(os.environ.get("POLYPRAGMA_CUDA_ARCHITECTURES")))
    kernels = os.path.join(directory, "kernels.o")
    glue_object = os.path.join(directory, "polypragma_api.o")
    unit = output_path(source, Options(output_dir=directory), ".cu")
    return [[find_nvcc(), *options.cflags, "-Xcompiler", "-fPIC", *gencode_flags(tuple(archs)), *flags,
             *([] if options.fp_contract else ["-fmad=false"]), "-c", unit, "-o", kernels],
            [*cc, *options.cflags, "-fPIC", *flags, "-c", glue_path, "-o", glue_object],
            [find_nvcc(), "-shared", "-Xlinker", "-Bsymbolic", glue_object, kernels, "-o",
             os.path.join(directory, library), "-cudart", "static", "-lm"]]


_DEVICE_ENTRY = re.compile(r'^(?:extern "C" |static )int (polypragma_\w+_region(\d+)_device)\((.*)\)$', re.M)


def device_entries(signatures: list[Signature], unit: str) -> tuple[list[Signature], dict[str, str]]:
    """The signatures with the host function taking device buffers where the function is one region
    whose host function's parameters are all the function's own (names, in the host function's order),
    and the C prototypes of those host functions."""
    entries = {int(m.group(2)): (m.group(1), m.group(3)) for m in _DEVICE_ENTRY.finditer(unit)}
    prototypes = {}
    out = []
    for s in signatures:
        if s.sole_region in entries:
            function, params = entries[s.sole_region]
            words = [p.strip() for p in params.split(",")] if params != "void" else []
            names = tuple(w.split()[-1].lstrip("*") for w in words)
            mine = {p.name: p for p in s.parameters}
            # a buffer must be an array of the function (a scalar the region writes is passed by address)
            if all(n in mine and not mine[n].unsupported and (mine[n].kind == "array") == ("*" in w)
                   for n, w in zip(names, words)):
                s = dataclasses.replace(s, device_function=function, device_arguments=names)
                prototypes[function] = f"int {function}({params});"
        out.append(s)
    return out, prototypes


def _run(command: list[str]) -> None:
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    except OSError as exc:
        raise CompileError(f"cannot run {command[0]}: {exc.strerror}") from None
    if result.returncode != 0:
        raise CompileError(f"building the library failed:\n$ {' '.join(command)}\n"
                           f"{(result.stdout + result.stderr).rstrip()}")


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


@functools.cache
def openmp_works(cc: tuple[str, ...]) -> bool:
    """Whether ``cc`` builds a shared library with ``-fopenmp`` (clang without libomp does not)."""
    if shutil.which(cc[0]) is None:
        return False
    with tempfile.TemporaryDirectory() as scratch:
        probe = os.path.join(scratch, "probe.c")
        with open(probe, "w") as handle:
            handle.write("#include <omp.h>\nint probe(void) { return omp_get_max_threads(); }\n")
        result = subprocess.run([*cc, "-shared", "-fPIC", "-fopenmp", probe, "-o", os.path.join(scratch, "p.so")],
                                capture_output=True)
        return result.returncode == 0
