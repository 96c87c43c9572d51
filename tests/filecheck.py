"""Expected-line checks on generated code, in the style of LLVM's FileCheck.

A corpus kernel carries check lines next to its ``// RUN:`` lines; ``PREFIX`` names the output they apply
to (``CHECK-CUDA``, ``CHECK-OPENCL``, ``CHECK-C``, see tests/test_checks.py):

    // CHECK-CUDA: text       a line of the output contains ``text``, after the previous match
    // CHECK-CUDA-NEXT: text  ... on the very next line after the previous match
    // CHECK-CUDA-NOT: text   no line between the previous match and the next one (or the end) contains it

As in FileCheck: the text is literal except ``{{regex}}`` (a Python regular expression); leading and
trailing spaces of the text are ignored and a run of spaces or tabs matches any run of them; ``^`` and
``$`` inside ``{{..}}`` anchor at the ends of a line. A match may start on the line of the previous one,
after it. The first failure stops the checking, and is reported as FileCheck reports it: the check's
file and line, where the search started, and the line of the output most like the text.

Standard library only.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

KINDS = ("", "-NEXT", "-NOT")
_DIRECTIVE = re.compile(r"//\s*(CHECK[-A-Z0-9_]*)\s*:")


@dataclass(frozen=True)
class Check:
    prefix: str  # CHECK-CUDA
    kind: str  # "", "-NEXT" or "-NOT"
    text: str  # the text after the colon, stripped
    line: int  # 1-based, in the file that holds the check
    regex: re.Pattern

    @property
    def directive(self) -> str:
        return self.prefix + self.kind

    def written(self) -> str:
        return f"// {self.directive}: {self.text}"


class CheckError(AssertionError):
    """A check line that cannot be used, or a check the output fails; the message says where, as FileCheck does."""


def pattern(text: str) -> re.Pattern:
    """The regular expression of a check's text: literal, except ``{{regex}}``, spaces matching any run."""
    parts = []
    at = 0
    while at < len(text):
        start = text.find("{{", at)
        literal = text[at:] if start < 0 else text[at:start]
        pieces = [piece for piece in re.split(r"([ \t]+)", literal) if piece]
        parts += [r"[ \t]+" if piece.isspace() else re.escape(piece) for piece in pieces]
        if start < 0:
            break
        end = text.find("}}", start + 2)
        if end < 0:
            raise ValueError(f"'{{{{' without '}}}}' in {text!r}")
        parts.append(f"(?:{text[start + 2:end]})")
        at = end + 2
    return re.compile("".join(parts), re.M)


def parse_checks(source: str, prefix: str, name: str = "<checks>") -> list[Check]:
    """The checks of ``prefix`` in ``source`` (the text of the file that holds them), in order."""
    line_pattern = re.compile(rf"//\s*{re.escape(prefix)}(-NEXT|-NOT)?\s*:(.*)$")
    checks: list[Check] = []
    for number, line in enumerate(source.splitlines(), start=1):
        match = line_pattern.search(line)
        if not match:
            continue
        kind, text = match.group(1) or "", match.group(2).strip()
        if not text:
            raise CheckError(f"{name}:{number}: error: found an empty check string with prefix '{prefix}{kind}:'")
        if kind == "-NEXT" and not any(c.kind != "-NOT" for c in checks):
            raise CheckError(f"{name}:{number}: error: found '{prefix}-NEXT' without a previous '{prefix}' line")
        try:
            regex = pattern(text)
        except (ValueError, re.error) as exc:
            raise CheckError(f"{name}:{number}: error: invalid check '{prefix}{kind}: {text}': {exc}") from None
        checks.append(Check(prefix, kind, text, number, regex))
    return checks


def unknown_directives(source: str, prefixes) -> list[str]:
    """``file line: directive`` for each ``// CHECK...:`` line whose directive is none of the ``prefixes``
    with a kind (a misspelt ``CHECK-CUDA-NXT:`` would otherwise check nothing, silently)."""
    known = {p + k for p in prefixes for k in KINDS}
    return [f"line {number}: {m.group(1)}" for number, line in enumerate(source.splitlines(), start=1)
            for m in [_DIRECTIVE.search(line)] if m and m.group(1) not in known]


def without_directives(output: str) -> str:
    """``output`` with every line that is itself a check line emptied: the generated .c file copies the
    kernel's comments, and a check must not match its own text. Line numbers stay."""
    return "\n".join("" if _DIRECTIVE.search(line) else line for line in output.split("\n"))


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _line_text(text: str, number: int) -> str:
    lines = text.split("\n")
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _closest(text: str, offset: int, check: Check) -> int | None:
    """The line (from the one holding ``offset`` on) most like the check's text, as FileCheck's
    'possible intended match here'; None when no line is alike at all."""
    wanted = re.sub(r"\{\{.*?\}\}", "", check.text).strip()
    first = _line_of(text, offset)
    best, best_ratio = None, 0.5
    for number, line in enumerate(text.split("\n")[first - 1:], start=first):
        if not line.strip():
            continue
        ratio = difflib.SequenceMatcher(None, wanted, line.strip(), autojunk=False).ratio()
        if ratio > best_ratio:
            best, best_ratio = number, ratio
    return best


def match(checks: list[Check], output: str, check_file: str = "<checks>", output_file: str = "<output>") -> None:
    """Apply ``checks`` to ``output``; raise CheckError, with FileCheck's kind of message, on the first failure."""

    def where(check: Check) -> str:
        return f"{check_file}:{check.line}: error: {check.directive}"

    def note(number: int, what: str) -> str:
        return f"{output_file}:{number}: note: {what}\n  {_line_text(output, number)}"

    position = 0  # where the previous positive match ended
    matched_line = 0  # the line it ended on (0: no match yet)
    pending_not: list[Check] = []
    for check in [*checks, None]:
        if check is not None and check.kind == "-NOT":
            pending_not.append(check)
            continue
        if check is None:
            start = end = len(output)
        else:
            found = check.regex.search(output, position)
            if found is None:
                message = [f"{where(check)}: expected string not found in input", check.written(),
                           note(_line_of(output, position), "scanning from here")]
                candidate = _closest(output, position, check)
                if candidate is not None:
                    message.append(note(candidate, "possible intended match here"))
                raise CheckError("\n".join(message))
            start, end = found.span()
            if check.kind == "-NEXT":
                line = _line_of(output, start)
                if line != matched_line + 1:
                    why = "is on the same line as the previous match" if line == matched_line else \
                        "is not on the line after the previous match"
                    raise CheckError("\n".join([
                        f"{where(check)}: {why}", check.written(), note(line, "'next' match was here"),
                        note(matched_line, "previous match ended here")]))
        for excluded in pending_not:
            found = excluded.regex.search(output, position, start)
            if found is not None:
                raise CheckError("\n".join([
                    f"{where(excluded)}: excluded string found in input", excluded.written(),
                    note(_line_of(output, found.start()), "found here")]))
        pending_not = []
        if check is not None:
            position, matched_line = end, _line_of(output, max(start, end - 1) if end > start else start)
