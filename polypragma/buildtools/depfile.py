"""Make-style dependency files, as compilers write them with ``-MD -MF FILE``.

One rule: the outputs are the targets, the source and every header the
preprocessor read are the prerequisites.  Ninja, Make and CMake's ``DEPFILE``
read this format.  Paths are written as polypragma saw them; spaces, ``#`` and
``$`` are escaped the way GCC escapes them.
"""

from __future__ import annotations

import re


def _escape(path: str) -> str:
    out = []
    for k, char in enumerate(path):
        if char == " ":
            # backslashes right before a space are doubled, then the space escaped
            trailing = len(path[:k]) - len(path[:k].rstrip("\\"))
            out.append("\\" * trailing + "\\ ")
        elif char == "#":
            out.append("\\#")
        elif char == "$":
            out.append("$$")
        else:
            out.append(char)
    return "".join(out)


def format_rule(targets: list[str], prerequisites: list[str]) -> str:
    """The text of a dependency file: ``targets: prerequisites``, one prerequisite a line."""
    head = " ".join(_escape(t) for t in targets) + ":"
    return " \\\n  ".join([head, *(_escape(p) for p in prerequisites)]) + "\n"


def parse_rule(text: str) -> tuple[list[str], list[str]]:
    """The targets and prerequisites of a dependency file written by :func:`format_rule`."""
    joined = text.replace("\\\n", " ")
    head, _, tail = joined.partition(":")
    return _split(head), _split(tail)


def _split(words: str) -> list[str]:
    paths = []
    for token in re.findall(r"(?:\\.|\$\$|[^ \t\r\n\\])+", words):
        paths.append(re.sub(r"\\(.)", r"\1", token.replace("$$", "$")))
    return paths
