"""Run the C preprocessor and parse the result with pycparser.

System headers are replaced by the stub headers of ``pycparser-fake-libc``
(``-nostdinc``): glibc's own headers are full of GNU extensions pycparser
cannot read.  The user's ``-I``/``-D``/``-U`` options are passed through.
The line markers the preprocessor writes let pycparser give every node its
coordinate in the user's file.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass

import pycparser_fake_libc
from pycparser import c_ast, c_parser

from polypragma.diagnostics import FatalError, Location

_STUB_INCLUDE = os.path.join(os.path.dirname(__file__), "include")

# GNU spellings that pycparser does not know and that user code may contain.
_NEUTRAL_DEFINES = (
    "-D__attribute__(x)=" + "__polypragma_attribute x",  # removed after preprocessing, see _attributes
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


_HINT = " (give polypragma the -I, -D and -U options you compile with)"


def preprocess(path: str, options: PreprocessOptions) -> str:
    """Return the preprocessed text of ``path``."""
    command = _preprocessor() + ["-nostdinc", "-I", _STUB_INCLUDE, "-I", pycparser_fake_libc.directory]
    command += list(_NEUTRAL_DEFINES)
    command += ["-include", os.path.join(_STUB_INCLUDE, "polypragma_types.h")]
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
        match = re.match(r"(.*?):(\d+):(?:(\d+):)?\s*(?:fatal )?error:\s*(.*)$", first)
        if match:
            location = Location(match.group(1), int(match.group(2)), int(match.group(3) or 1))
            raise FatalError(f"the C preprocessor failed: {match.group(4)}{_HINT}", location)
        raise FatalError(f"the C preprocessor failed: {first}{_HINT}", Location(path, 1, 1))
    return _attributes(result.stdout)


_ATTRIBUTE = re.compile(r"__polypragma_attribute\s*\(")
_CALLEE = re.compile(r"([A-Za-z_]\w*)\s*\(")
_PURE_WORDS = {"const", "pure", "__const__", "__pure__"}


def _attributes(text: str) -> str:
    """``text`` without GNU attributes (pycparser knows none), blanked so that every line keeps its
    place; functions declared ``__attribute__((const))`` or ``pure`` are named in a
    ``#pragma polypragma pure(...)`` appended at the end, as if the user had written it."""
    out: list[str] = []
    pure: list[str] = []
    position = 0
    for match in _ATTRIBUTE.finditer(text):
        if match.start() < position:
            continue
        depth, end = 0, match.end() - 1
        while end < len(text):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
            if depth == 0:
                break
        content = text[match.end():end - 1]  # the attribute list: __attribute__((a, b)) expands to (a, b)
        if _PURE_WORDS & {word.strip() for word in content.split(",")}:
            # the declaration around it: from the end of the previous one to the end of this one
            begin = max(text.rfind(";", 0, match.start()), text.rfind("}", 0, match.start()),
                        text.rfind("\n#", 0, match.start())) + 1
            finish = min((k for k in (text.find(";", end), text.find("{", end)) if k >= 0), default=len(text))
            declaration = text[begin:match.start()] + " " * (end - match.start()) + text[end:finish]
            callee = _CALLEE.search(declaration)
            if callee is not None:
                pure.append(callee.group(1))
        out.append(text[position:match.start()])
        out.append("".join(c if c == "\n" else " " for c in text[match.start():end]))
        position = end
    out.append(text[position:])
    if pure:
        out.append(f"\n#pragma polypragma pure({', '.join(dict.fromkeys(pure))})\n")
    return "".join(out)


def is_stub_header(path: str) -> bool:
    """Whether ``path`` is one of the stub system headers polypragma preprocesses with."""
    stubs = tuple(os.path.join(os.path.abspath(d), "") for d in (_STUB_INCLUDE, pycparser_fake_libc.directory))
    return path.startswith("<") or os.path.abspath(path).startswith(stubs)


_LINE_MARKER = re.compile(r'^#\s*\d+\s+"((?:[^"\\]|\\.)*)"', re.M)


def files_read(text: str) -> list[str]:
    """The files the preprocessor read to produce ``text`` (the source and its headers), in order of
    first use, from its line markers; the stub system headers and ``<built-in>`` are left out."""
    stubs = tuple(os.path.join(os.path.abspath(d), "") for d in (_STUB_INCLUDE, pycparser_fake_libc.directory))
    seen: dict[str, None] = {}
    for match in _LINE_MARKER.finditer(text):
        name = re.sub(r"\\(.)", r"\1", match.group(1))
        if name.startswith("<") or name in seen or os.path.abspath(name).startswith(stubs):
            continue
        seen[name] = None
    return list(seen)


def parse(path: str, options: PreprocessOptions) -> c_ast.FileAST:
    """Preprocess and parse ``path``; raise :class:`FatalError` if either fails."""
    return parse_preprocessed(preprocess(path, options), path)


def parse_preprocessed(text: str, path: str) -> c_ast.FileAST:
    """Parse the preprocessed ``text`` of ``path``; raise :class:`FatalError` if that fails."""
    parser = c_parser.CParser()
    try:
        return parser.parse(text, path)
    except c_parser.ParseError as exc:
        message = str(exc)
        match = re.match(r"(.*?):(\d+):(\d+):\s*(.*)$", message, re.S)
        if match:
            location = Location(match.group(1), int(match.group(2)), int(match.group(3)))
            message = match.group(4)
        else:
            # the parser names only the file: the current token says where it stopped
            message = message.split(": ", 1)[-1]
            location = Location(path, 1, 1)
            try:
                token = parser._peek()  # noqa: SLF001 - pycparser keeps no public position
                if token is not None:
                    coord = parser._tok_coord(token)  # noqa: SLF001
                    location = Location(str(coord.file), coord.line, coord.column or 1)
                    message = f"{message} before '{token.value}'"
            except Exception:  # a different pycparser version: keep the file-level location
                pass
        raise FatalError(f"cannot parse the file: {message}", location) from None
