"""The C signatures of the functions a Python module exposes: those holding a ``#pragma scop`` region.

A signature is plain data (JSON in the cache's manifest), so that a module loaded from the cache needs
neither the preprocessor nor the parser (declarations.py reads signatures from C).  Extents are kept as
small expression trees over the integer parameters (``("*", ("id", "n"), ("num", 2))``), evaluated at
each call with C's integer arithmetic.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Parameter:
    """One parameter: a scalar passed by value, or an array (any pointer or array declarator)."""

    name: str
    kind: str  # "scalar" or "array"
    declaration: str  # as written, for messages: "double alpha", "const float A[n][m]"
    number: str  # element kind: "int", "uint" or "float"; "" when not a number (a struct)
    dtype: str  # NumPy's name of the element type: "float64", "int32"; "" when none fits
    dims: tuple = ()  # arrays: per dimension, outermost first, an extent tree or None (not declared)
    dims_text: tuple[str, ...] = ()  # the extents as C text, for messages
    const: bool = False  # arrays: elements declared const (the array may be read-only)
    unsupported: str = ""  # why a call cannot pass this parameter from Python ("" when it can)

    @property
    def flat(self) -> bool:
        """A pointer (or ``T A[]``) without inner extents: any C-contiguous array of the right dtype,
        since polypragma allows linearised subscripts on it."""
        return self.kind == "array" and len(self.dims) == 1 and self.dims[0] is None


@dataclass(frozen=True)
class Signature:
    name: str
    parameters: tuple[Parameter, ...]
    returns: str  # "" for void; "int", "uint" or "float" for a number; "other" (returned as None)
    returns_ctype: str  # as written
    sole_region: int | None = None  # the index of its region when the function is that region only
    # cuda: the host function taking device buffers for the function ("" when none) and its arguments,
    # parameter names of the function in its order; device arrays can be passed only then
    device_function: str = ""
    device_arguments: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(data: dict) -> "Signature":
        parameters = tuple(Parameter(**{**p, "dims": tuple(_tuple_tree(d) for d in p["dims"]),
                                        "dims_text": tuple(p["dims_text"])}) for p in data["parameters"])
        return Signature(data["name"], parameters, data["returns"], data["returns_ctype"], data["sole_region"],
                         data["device_function"], tuple(data["device_arguments"]))


def _tuple_tree(tree):
    return tuple(_tuple_tree(t) for t in tree) if isinstance(tree, list) else tree


def evaluate(tree, values: dict[str, int]) -> int | None:
    """The value of an extent tree for the integer arguments ``values``, with C's integer division;
    None when it names something else (a global) or divides by zero."""
    if tree is None:
        return None
    kind = tree[0]
    if kind == "num":
        return tree[1]
    if kind == "id":
        return values.get(tree[1])
    operands = [evaluate(t, values) for t in tree[1:]]
    if None in operands:
        return None
    if kind == "neg":
        return -operands[0]
    if kind == "pos":
        return operands[0]
    if kind.startswith("?"):
        a, b, yes, no = operands
        holds = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[kind[1:]]
        return yes if holds else no
    a, b = operands
    if kind in ("/", "%"):
        if b == 0:
            return None
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
        return quotient if kind == "/" else a - b * quotient
    return {"+": a + b, "-": a - b, "*": a * b, "<<": a << b if b >= 0 else None,
            ">>": a >> b if b >= 0 else None}[kind]
