"""Run polypragma in-process on one (possibly malformed) input and check the frontend's contract:
no exception escapes, everything on stderr is a diagnostic ``file:line:col: severity: message``, the
exit status is 0, 1 (error) or 2 (usage), and the input file is left as it was."""

from __future__ import annotations

import io
import os
import re
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from polypragma.cli import main as polypragma_main

DIAGNOSTIC = re.compile(r"^[^:\n]+:\d+:\d+: (error|warning|note): \S.*$")
TARGETS = ("c", "opencl", "cuda")
_OLD_MTIME_NS = 1_000_000_000 * 10**9


def fuzz_one(data: bytes, workdir: Path, target: str, include: Path, strict: bool = False) -> str | None:
    """None when polypragma behaved on ``data``; else what went wrong."""
    source = workdir / "input.c"
    source.write_bytes(data)
    os.utime(source, ns=(_OLD_MTIME_NS, _OLD_MTIME_NS))
    outdir = workdir / "out"
    argv = [str(source), "-o", str(outdir), f"-I{include}", "--target", target, *(["--strict"] if strict else [])]
    stream = io.StringIO()
    try:
        with redirect_stderr(stream), redirect_stdout(io.StringIO()):
            status = polypragma_main(argv)
    except SystemExit as exc:  # argparse; not expected for these arguments
        status = exc.code
    except BaseException:  # noqa: BLE001 - any escaping exception is the bug we look for
        return "traceback:\n" + traceback.format_exc()
    if source.read_bytes() != data or source.stat().st_mtime_ns != _OLD_MTIME_NS:
        return "the input file was modified"
    if status not in (0, 1):
        return f"exit status {status}"
    for line in stream.getvalue().splitlines():
        if not DIAGNOSTIC.match(line):
            return f"not a diagnostic: {line!r}\n{stream.getvalue()}"
    if status == 1 and "error:" not in stream.getvalue():
        return "exit status 1 without an error"
    return None
