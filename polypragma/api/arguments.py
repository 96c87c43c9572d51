"""Python arguments checked against a C signature and turned into ctypes values.

A wrong argument must fail in Python with the parameter's name, never in C: an array too small for
its declaration would be read and written out of bounds by the generated code, inside the
interpreter's process.  So, per array, the dtype, the number of dimensions and each declared extent
(evaluated with the integer arguments of the same call) are checked, and the array must be
C-contiguous (the generated code indexes it row-major from its first element) and writeable unless
its elements are declared ``const``.  Arrays are never copied or converted implicitly: the results
are written into the caller's own array.

Scalars travel through the library's entry points as ``long long``, ``unsigned long long`` or
``double`` (the C compiler converts them to the declared type), so that a typedef the API resolved
wrongly cannot corrupt the call; the range of the declared type is checked here instead.
"""

from __future__ import annotations

import ctypes
import numbers

from polypragma.api.signature import Parameter, Signature, evaluate

# the ctypes type of each kind in the entry points (see polypragma.api.glue)
CTYPES = {"int": ctypes.c_longlong, "uint": ctypes.c_ulonglong, "float": ctypes.c_double}


def bind(signature: Signature, args: tuple, kwargs: dict) -> list:
    """The arguments by parameter, from positional and keyword arguments, as Python binds them."""
    names = [p.name for p in signature.parameters]
    if len(args) > len(names):
        raise TypeError(f"{signature.name}() takes {len(names)} argument(s) ({', '.join(names)}) but "
                        f"{len(args)} were given")
    bound = list(args) + [_MISSING] * (len(names) - len(args))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"{signature.name}() got an unexpected keyword argument '{key}'")
        position = names.index(key)
        if bound[position] is not _MISSING:
            raise TypeError(f"{signature.name}() got multiple values for argument '{key}'")
        bound[position] = value
    missing = [n for n, v in zip(names, bound) if v is _MISSING]
    if missing:
        raise TypeError(f"{signature.name}() missing {len(missing)} required argument(s): "
                        f"{', '.join(repr(m) for m in missing)}")
    return bound


_MISSING = object()


def convert(signature: Signature, values: list) -> tuple[list, list]:
    """(ctypes values for the entry point, objects to keep alive during the call)."""
    import numpy as np

    for p in signature.parameters:
        if p.unsupported:
            raise TypeError(f"{signature.name}(): parameter '{p.name}' cannot be passed from Python: "
                            f"{p.unsupported}")
    integers: dict[str, int] = {}
    converted: list = [None] * len(values)
    for k, (p, value) in enumerate(zip(signature.parameters, values)):
        if p.kind == "scalar":
            number = _scalar(signature, p, value, np)
            if p.number != "float":
                integers[p.name] = number
            converted[k] = CTYPES[p.number](number)
    keep = []
    for k, (p, value) in enumerate(zip(signature.parameters, values)):
        if p.kind == "array":
            _check_array(signature, p, value, integers, np)
            keep.append(value)
            converted[k] = ctypes.c_void_p(value.ctypes.data)
    return converted, keep


def _where(signature: Signature, p: Parameter) -> str:
    return f"{signature.name}(): parameter '{p.name}' ({p.declaration})"


def _scalar(signature: Signature, p: Parameter, value, np):
    if isinstance(value, (bool, np.bool_)) and p.dtype != "bool":
        raise TypeError(f"{_where(signature, p)}: expected a number, got a bool")
    if p.number == "float":
        if not isinstance(value, numbers.Real):
            raise TypeError(f"{_where(signature, p)}: expected a real number, got {type(value).__name__}")
        return float(value)
    if not isinstance(value, numbers.Integral):
        raise TypeError(f"{_where(signature, p)}: expected an integer, got {type(value).__name__}"
                        + (" (C would truncate it; pass int(...) to mean that)" if isinstance(value, numbers.Real)
                           else ""))
    value = int(value)
    info = np.iinfo(np.dtype(p.dtype)) if p.dtype != "bool" else np.iinfo(np.uint8)
    if not info.min <= value <= info.max:
        raise ValueError(f"{_where(signature, p)}: {value} is out of its range [{info.min}, {info.max}]")
    return value


def _check_array(signature: Signature, p: Parameter, value, integers: dict[str, int], np) -> None:
    where = _where(signature, p)
    if hasattr(value, "__cuda_array_interface__") and not isinstance(value, np.ndarray):
        raise TypeError(f"{where}: device arrays (__cuda_array_interface__: CuPy, PyCUDA) are not supported by "
                        "this version of the Python API; pass a NumPy array (the generated host code copies it "
                        "to the device and back)")
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{where}: expected a NumPy array of {p.dtype}, got {type(value).__name__}"
                        " (arrays are not converted: the results are written into the array you pass)")
    if value.dtype != np.dtype(p.dtype):
        raise TypeError(f"{where}: expected an array of {p.dtype}, got {value.dtype} "
                        f"(convert it with .astype(numpy.{p.dtype}))")
    if not p.flat and value.ndim != len(p.dims):
        raise ValueError(f"{where}: expected {len(p.dims)} dimension(s), got an array of shape {value.shape}")
    if not value.flags.c_contiguous:
        raise ValueError(f"{where}: the array is not C-contiguous (a view with strides or in Fortran order); "
                         "pass numpy.ascontiguousarray(...) and read the results from that copy")
    if not p.const and not value.flags.writeable:
        raise ValueError(f"{where}: the array is read-only, and the function may write it")
    if p.flat:
        return
    expected = [evaluate(tree, integers) for tree in p.dims]
    for d, (want, have) in enumerate(zip(expected, value.shape)):
        if want is not None and want != have:
            shape = ", ".join(p.dims_text)
            values = ", ".join("?" if w is None else str(w) for w in expected)
            raise ValueError(f"{where}: expected shape ({shape}) = ({values}), got {value.shape} "
                             f"(dimension {d} differs)")
