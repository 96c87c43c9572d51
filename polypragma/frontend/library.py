"""Functions of the C library a region may call without defining them: the pure math functions, and
``assert``.

Each is modelled by the accesses of its arguments only (it touches no memory the region could see;
like the compiler, the model ignores ``errno``), and each has a device version on both GPU targets:
CUDA's math library has every one under its C name, and OpenCL C has most as built-ins and the others
as a short expression of one (:func:`opencl_call`).  CUDA and OpenCL overload these functions for
``float`` and ``double``, where an integer argument is ambiguous: kernels convert each argument to the
type C's prototype gives it (:func:`argument_types`).
"""

from __future__ import annotations

from pycparser import c_ast

from polypragma.frontend.c_tree import has_side_effects, subtree

# the real functions of <math.h> without pointer parameters, by their C parameter types: "r" the real
# type of the variant (double; float for the name with an 'f' appended), "i" int
_MATH = {
    **{name: "r" for name in (
        "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "logb", "fabs", "floor",
        "ceil", "round", "trunc", "rint", "nearbyint", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
        "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "tgamma", "lgamma", "ilogb", "lround",
        "llround", "lrint", "llrint")},
    **{name: "rr" for name in (
        "pow", "fmin", "fmax", "fmod", "atan2", "hypot", "copysign", "fdim", "remainder", "nextafter")},
    "fma": "rrr",
    "ldexp": "ri",
    "scalbn": "ri",
}

# the integer functions of <stdlib.h>
_INTEGER = {"abs": "int", "labs": "long", "llabs": "long long"}

# OpenCL C spellings of the functions it has under another name or not at all ({0}, {1}: the arguments,
# converted); lround's long is OpenCL's 64-bit long, as the C long of the hosts polypragma supports
_OPENCL = {
    "lround": "(long)round({0})",
    "llround": "(long)round({0})",
    "lrint": "(long)rint({0})",
    "llrint": "(long)rint({0})",
    "nearbyint": "rint({0})",
    "scalbn": "ldexp({0}, {1})",
    # OpenCL's abs of a signed integer is unsigned: back to C's signed result
    "abs": "(int)abs({0})",
    "labs": "(long)abs({0})",
    "llabs": "(long)abs({0})",
}


def _variants() -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for name, kinds in _MATH.items():
        for suffix, real in (("", "double"), ("f", "float")):
            out[name + suffix] = tuple(real if k == "r" else "int" for k in kinds)
    for name, type_ in _INTEGER.items():
        out[name] = (type_,)
    return out


_PARAMETERS = _variants()

# every library function a region may call without defining it
PURE_FUNCTIONS = frozenset(_PARAMETERS)


def argument_types(name: str) -> tuple[str, ...] | None:
    """The C types of the parameters of the math function ``name`` (None: not one of :data:`PURE_FUNCTIONS`)."""
    return _PARAMETERS.get(name)


def opencl_call(name: str, arguments: list[str]) -> str:
    """The call of library function ``name`` on ``arguments`` (C text) as OpenCL C spells it: the 'f'
    variants without the 'f' (OpenCL overloads on the argument type), the others from :data:`_OPENCL`."""
    base = name[:-1] if name.endswith("f") and name[:-1] in _MATH else name
    template = _OPENCL.get(base)
    if template is None:
        return f"{base}({', '.join(arguments)})"
    return template.format(*arguments)


# C's assert (<assert.h>): a statement that reads its condition and, when the condition is false, stops the
# program.  Kernels set a flag instead (polypragma_assert), which the host reads before the copy-out: a set
# flag sends the region to its original loops, whose assert stops the program as the original does.
ASSERT = "assert"


def is_assert(node: c_ast.Node) -> bool:
    """Whether ``node`` is a call to C's assert whose condition writes nothing (an assert with side effects
    is an ordinary call to a function without a body: under NDEBUG its condition is not evaluated)."""
    if not (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name == ASSERT):
        return False
    return node.args is not None and len(node.args.exprs) == 1 and not has_side_effects(node.args.exprs[0])


def asserts(node: c_ast.Node) -> bool:
    """Whether a statement ``node`` holds an assert (:func:`is_assert`)."""
    return any(is_assert(n) for n in subtree(node))
