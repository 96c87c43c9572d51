"""Whether generated files are up to date, as cythonize decides it: regenerate when an output is
missing, when the source or a header it includes (from the depfile) is newer than the outputs, when
another polypragma version or another command line made them (the generated file's first line names
the version and target; the command line is kept next to the depfile)."""

from __future__ import annotations

import os

from polypragma import __version__
from polypragma.buildtools.depfile import parse_rule
from polypragma.splice import BANNER_PREFIX


def command_path(dependency_file: str) -> str:
    """Where the command line that made the outputs is kept: next to the depfile."""
    return os.path.splitext(dependency_file)[0] + ".args"


def stale_reason(outputs: list[str], dependency_file: str, arguments: list[str]) -> str | None:
    """Why ``outputs`` must be regenerated with ``arguments``, or None when they are up to date."""
    try:
        built = min(os.stat(path).st_mtime_ns for path in outputs)
        with open(dependency_file, encoding="utf-8") as handle:
            _, inputs = parse_rule(handle.read())
        with open(command_path(dependency_file), encoding="utf-8") as handle:
            previous = handle.read().split("\0")
    except OSError:
        return "not generated yet"
    for path in outputs:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = handle.readline()
        if not first.startswith(f"{BANNER_PREFIX} {__version__} "):
            return f"{os.path.basename(path)} was made by another polypragma version"
    if previous != arguments:
        return "the options changed"
    for path in inputs:
        try:
            if os.stat(path).st_mtime_ns > built:
                return f"{path} changed"
        except OSError:
            return f"{path} is gone"
    return None


def record_command(dependency_file: str, arguments: list[str]) -> None:
    from polypragma.splice import write_atomically

    write_atomically(command_path(dependency_file), "\0".join(arguments))
