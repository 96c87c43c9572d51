"""Malformed and unsupported variants of C programs, for fuzzing the frontend.

``mutate(text, rng)`` applies one or two random edits: deleting, duplicating or swapping tokens,
inserting constructs polypragma does not support (while, do, goto, break, continue, return, switch,
pointer dereference, address-of, struct members, calls with side effects, non-affine bounds),
breaking the pragmas, truncating the file, and inserting stray characters or bytes."""

from __future__ import annotations

import random
import re

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'"
                    r"|->|\+\+|--|<<=|>>=|[-+*/%&|^<>=!]=|&&|\|\||<<|>>|\S")

UNSUPPORTED = [
    "while (n > 0) { n--; }",
    "do { A[0] = 1; } while (0);",
    "goto out; out: ;",
    "break;",
    "continue;",
    "return;",
    "switch (n) { case 0: break; default: ; }",
    "*A = 0;",
    "A[0] = *(&A[1]);",
    "printf(\"%d\\n\", n);",
    "n = rand();",
    "{ struct { int x; } q; q.x = 1; }",
    "for (int z = 0; z < n * n; z++) ;",
    "for (int z = 0; z < n; z *= 2) ;",
    "for (;;) ;",
    "for (int z = 0; z < n; z++) n = z;",
    "int v = A[0];",
    "#pragma scop",
    "#pragma endscop",
    "#pragma polypragma --tile-size x",
    "#pragma polypragma --bogus 3",
    "#pragma omp parallel for",
    "A[A[0]] = 1;",
    "(void)0;",
    "asm(\"nop\");",
    "label: ;",
    "A[0] = n ? 1 : 2, A[1] = 3;",
    "A[0] = sizeof(A);",
    "A[0] = (int)3.5 << 40;",
    "A[0] = 1 / 0;",
]
STRAY = ["(", ")", "{", "}", ";", "[", "]", ",", "#", "\\", "\"", "'", "/*", "*/", "//", "@", "$", "`", "\x00",
         "\ufeff", "\u00e9", "??=", "\t", "\r", "\n"]


def _tokens(text: str) -> list[re.Match]:
    return list(_TOKEN.finditer(text))


def _region_lines(lines: list[str]) -> list[int]:
    inside = [n for n, line in enumerate(lines) if "#pragma scop" in line]
    if not inside:
        return list(range(len(lines)))
    start = inside[0] + 1
    end = next((n for n in range(start, len(lines)) if "#pragma endscop" in lines[n]), len(lines))
    return list(range(start, max(start + 1, end)))


def _edit(text: str, rng: random.Random) -> str:
    kind = rng.randrange(10)
    tokens = _tokens(text)
    if kind <= 2 and tokens:  # delete one to three tokens
        token = rng.choice(tokens)
        index = tokens.index(token)
        last = tokens[min(len(tokens) - 1, index + rng.randrange(3))]
        return text[: token.start()] + text[last.end():]
    if kind == 3 and tokens:  # duplicate a token
        token = rng.choice(tokens)
        return text[: token.end()] + " " + token.group() + text[token.end():]
    if kind == 4 and len(tokens) > 1:  # swap two neighbouring tokens
        index = rng.randrange(len(tokens) - 1)
        a, b = tokens[index], tokens[index + 1]
        return text[: a.start()] + b.group() + text[a.end(): b.start()] + a.group() + text[b.end():]
    lines = text.split("\n")
    if kind in (5, 6):  # an unsupported construct inside the region
        where = rng.choice(_region_lines(lines))
        lines.insert(where, rng.choice(UNSUPPORTED))
        return "\n".join(lines)
    if kind == 7:  # break the markup
        pragmas = [n for n, line in enumerate(lines) if "#pragma" in line]
        if pragmas:
            n = rng.choice(pragmas)
            choice = rng.randrange(5)
            if choice == 0:
                del lines[n]
            elif choice == 1:
                lines[n] = lines[n].replace("scop", rng.choice(["sco", "scop scop", "endscop", "SCOP", "scop("]))
            elif choice == 2:
                lines.insert(rng.randrange(len(lines) + 1), lines[n])
            elif choice == 3:
                lines.insert(rng.randrange(len(lines) + 1), lines.pop(n))
            else:
                lines[n] = lines[n] + rng.choice([" extra", "\\", " /* c */", " // c"])
        return "\n".join(lines)
    if kind == 8:  # truncate
        return text[: rng.randrange(len(text) + 1)]
    position = rng.randrange(len(text) + 1)
    return text[:position] + rng.choice(STRAY) + text[position:]


def mutate(text: str, rng: random.Random) -> str:
    """``text`` with one or two random edits."""
    for _ in range(1 + (rng.random() < 0.3)):
        text = _edit(text, rng)
    return text
