"""The pre-commit hook: regenerate the committed outputs of the C sources a commit touches.

pre-commit passes the changed files after the hook's ``args``.  For each ``NAME.c`` (or a changed
``NAME.polypragma.c`` / ``NAME.polypragma.cu``) whose ``NAME.polypragma.c`` is committed next to it,
polypragma runs again with the target that file was made for (its first line says which) and the hook's
options (write them with ``=``: ``--tile-size=32,32``).  A source without committed outputs is left
alone.  pre-commit fails the commit when a file changed, as for any generator hook; with ``--check``
nothing is written and the hook fails on stale outputs.
"""

from __future__ import annotations

import os
import re
import sys

from polypragma.cli import main as polypragma_main

_TARGET = re.compile(r"\(target (\w+)\)")


def source_of(path: str) -> str | None:
    """The C source a changed file belongs to: itself, or the source of a generated file."""
    for suffix in (".polypragma.c", ".polypragma.cu"):
        if path.endswith(suffix):
            return path[: -len(suffix)] + ".c"
    return path if path.endswith(".c") else None


def committed_target(source: str) -> str | None:
    """The target of the outputs committed next to ``source``, or None when there are none."""
    generated = source[: -len(".c")] + ".polypragma.c"
    try:
        with open(generated, encoding="utf-8", errors="replace") as handle:
            match = _TARGET.search(handle.readline())
    except OSError:
        return None
    return match.group(1) if match else None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    files = [a for a in argv if a.endswith((".c", ".cu")) and os.path.isfile(a)]
    options = [a for a in argv if a not in files]
    sources = sorted({s for s in map(source_of, files) if s and os.path.isfile(s)})
    status = 0
    for source in sources:
        target = committed_target(source)
        if target is None:
            continue
        status |= polypragma_main([source, "--target", target, *options])
    return status


if __name__ == "__main__":
    sys.exit(main())
