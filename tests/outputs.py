"""Compare what two runs of a program printed, numbers up to a tolerance.

Standard library only: bench/run_gpu.py uses it on the GPU machine, where polypragma is not installed.
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf)")


def outputs_match(expected: str, got: str, rtol: float = 1e-9, atol: float = 1e-12) -> str | None:
    """None when ``got`` equals ``expected`` up to a relative tolerance on numbers, else the first difference."""
    a_lines, b_lines = expected.splitlines(), got.splitlines()
    if len(a_lines) != len(b_lines):
        return f"{len(b_lines)} lines instead of {len(a_lines)}"
    for number, (a, b) in enumerate(zip(a_lines, b_lines), start=1):
        if a == b:
            continue
        if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
            return f"line {number}: {b!r} instead of {a!r}"
        for x, y in zip(_NUMBER.findall(a), _NUMBER.findall(b)):
            fx, fy = float(x), float(y)
            if fx != fy and abs(fx - fy) > atol + rtol * max(abs(fx), abs(fy)):
                return f"line {number}: {b!r} instead of {a!r}"
    return None


def kernel_tolerance(source: str) -> float:
    """The relative tolerance for a GPU run of a program whose C text is ``source``: float kernels differ
    from glibc's single-precision math in the last bits, double ones only by the order of roundings."""
    return 2e-5 if re.search(r"\bfloat\b", source) else 1e-9


def kernel_absolute_tolerance(source: str) -> float:
    """The absolute tolerance for a GPU run of a program whose C text is ``source``: a float result that
    is a difference of values near 1 keeps only their absolute error, a few float roundings (a sum
    reduced in parallel, whose order of roundings changes: vecnorm_float's Z, 0.0012 from terms near
    0.1, moved by 3e-8)."""
    return 1e-6 if re.search(r"\bfloat\b", source) else 1e-12
