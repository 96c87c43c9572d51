"""Run the C preprocessor and parse the result with pycparser.

System headers are replaced by the stub headers of ``pycparser-fake-libc``
(``-nostdinc``): glibc's own headers are full of GNU extensions pycparser
cannot read.  The user's ``-I``/``-D``/``-U`` options are passed through.
The line markers the preprocessor writes let pycparser give every node its
coordinate in the user's file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass

import pycparser_fake_libc
from pycparser import c_ast, c_parser

from polypragma.diagnostics import FatalError, Location

_STUB_INCLUDE = os.path.join(os.path.dirname(__file__), "include")

# GNU spellings that pycparser does not know and that user code may contain.
_NEUTRAL_DEFINES = (
    "-D__attribute__(x)=",
    "-D__extension__=",
    "-D__restrict=restrict",
    "-D__restrict__=restrict",
    "-D__inline=inline",
    "-D__inline__=inline",
    "-D__asm__(x)=",
    "-D__volatile__=volatile",
    "-D__const=const",
    "-D__signed__=signed",
)


@dataclass(frozen=True)
class PreprocessOptions:
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()  # "NAME" or "NAME=VALUE"
    undefines: tuple[str, ...] = ()


def _preprocessor() -> list[str]:
    for candidate in (os.environ.get("POLYPRAGMA_CPP"), "cpp"):
        if candidate and shutil.which(candidate.split()[0]):
            return candidate.split()
    for compiler in (os.environ.get("CC"), "gcc", "cc", "clang"):
        if compiler and shutil.which(compiler.split()[0]):
            return compiler.split() + ["-E"]
    raise FatalError("no C preprocessor found (tried $POLYPRAGMA_CPP, cpp, $CC, gcc, cc, clang)")


def preprocess(path: str, options: PreprocessOptions) -> str:
    """Return the preprocessed text of ``path``."""
    command = _preprocessor() + ["-nostdinc", "-I", _STUB_INCLUDE, "-I", pycparser_fake_libc.directory]
    command += list(_NEUTRAL_DEFINES)
    for d in options.include_dirs:
        command += ["-I", d]
    for d in options.defines:
        command.append("-D" + d)
    for u in options.undefines:
        command.append("-U" + u)
    command.append(path)
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        first = next((line for line in result.stderr.splitlines() if "error" in line), result.stderr.strip())
        raise FatalError(f"the C preprocessor failed: {first}", Location(path, 1, 1))
    return result.stdout


def parse(path: str, options: PreprocessOptions) -> c_ast.FileAST:
    """Preprocess and parse ``path``; raise :class:`FatalError` if either fails."""
    text = preprocess(path, options)
    try:
        return c_parser.CParser().parse(text, path)
    except c_parser.ParseError as exc:
        message = str(exc)
        parts = message.split(":", 3)
        if len(parts) == 4 and parts[1].strip().isdigit():
            location = Location(parts[0], int(parts[1]), int(parts[2]) if parts[2].strip().isdigit() else 1)
            message = parts[3].strip()
        else:
            location = Location(path, 1, 1)
        raise FatalError(f"cannot parse the file: {message}", location) from None
