"""Python arguments checked against a C signature and turned into ctypes values.

A wrong argument must fail in Python with the parameter's name, never in C: an array too small for
its declaration would be read and written out of bounds by the generated code, inside the
interpreter's process.  So, per array, the dtype, the number of dimensions and each declared extent
(evaluated with the integer arguments of the same call) are checked, and the array must be
C-contiguous (the generated code indexes it row-major from its first element) and writeable unless
its elements are declared ``const``.  Arrays are never copied or converted implicitly: the results
are written into the caller's own array.

Device arrays get the same checks and are passed as device buffers, used in place by the backend's
host function for device buffers: anything with ``__cuda_array_interface__`` (CuPy, PyCUDA's
``GPUArray``, Numba) as a device pointer for the cuda backend, PyOpenCL arrays as their ``cl_mem``
for the opencl backend (which then runs in their context, on their queue).

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


# where a call's arrays are, as convert() says
HOST, CUDA, OPENCL = "a NumPy array", "a CUDA device array", "a PyOpenCL array"


def convert(signature: Signature, values: list) -> tuple[list, list, str]:
    """(ctypes values for the entry point, the arrays, to keep alive during the call, and where they
    are: HOST, CUDA or OPENCL).  Arrays are all NumPy arrays or all device arrays of one kind: a mix
    would need copies."""
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
    kinds = {}
    for k, (p, value) in enumerate(zip(signature.parameters, values)):
        if p.kind != "array":
            continue
        if hasattr(value, "__cuda_array_interface__") and not isinstance(value, np.ndarray):
            converted[k] = ctypes.c_void_p(_device_array(signature, p, value, integers, np))
            kinds[p.name] = CUDA
        elif _is_pyopencl_array(value):
            converted[k] = ctypes.c_void_p(_opencl_array(signature, p, value, integers, np))
            kinds[p.name] = OPENCL
        else:
            _host_array(signature, p, value, integers, np)
            converted[k] = ctypes.c_void_p(value.ctypes.data)
            kinds[p.name] = HOST
        keep.append(value)
    if len(set(kinds.values())) > 1:
        raise TypeError(f"{signature.name}(): pass all arrays on the device or all on the host, not a mix ("
                        + ", ".join(f"'{n}' is {kind}" for n, kind in kinds.items()) + ")")
    if OPENCL in kinds.values() and len({a.context.int_ptr for a in keep}) > 1:
        raise ValueError(f"{signature.name}(): the PyOpenCL arrays belong to different contexts; pass arrays of "
                         "one context")
    return converted, keep, next(iter(kinds.values()), HOST)


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


def _host_array(signature: Signature, p: Parameter, value, integers: dict[str, int], np) -> None:
    where = _where(signature, p)
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{where}: expected a NumPy array of {p.dtype}, got {type(value).__name__}"
                        " (arrays are not converted: the results are written into the array you pass)")
    _check(where, p, value.dtype, value.shape, value.flags.c_contiguous, value.flags.writeable, integers, np)


def _device_array(signature: Signature, p: Parameter, value, integers: dict[str, int], np) -> int:
    """The device pointer of an array with ``__cuda_array_interface__`` (CuPy, PyCUDA, Numba), checked."""
    where = _where(signature, p)
    interface = value.__cuda_array_interface__
    if interface.get("mask") is not None:
        raise TypeError(f"{where}: masked device arrays are not supported")
    shape = tuple(interface["shape"])
    dtype = np.dtype(interface["typestr"])
    strides = interface.get("strides")
    contiguous = strides is None or tuple(strides) == _c_strides(shape, dtype.itemsize)
    pointer, readonly = interface["data"]
    _check(where, p, dtype, shape, contiguous, not readonly, integers, np)
    return pointer


def _is_pyopencl_array(value) -> bool:
    return type(value).__module__.startswith("pyopencl") and hasattr(value, "base_data") \
        and hasattr(value, "context")


def _opencl_array(signature: Signature, p: Parameter, value, integers: dict[str, int], np) -> int:
    """The ``cl_mem`` handle of a PyOpenCL array, checked: the kernels take the whole buffer, so the
    array must start it."""
    where = _where(signature, p)
    if value.offset != 0:
        raise ValueError(f"{where}: the PyOpenCL array starts {value.offset} bytes into its buffer (a view or a "
                         "slice); pass an array of its own (its .copy())")
    _check(where, p, value.dtype, tuple(value.shape), value.flags.c_contiguous, True, integers, np)
    return value.base_data.int_ptr if value.base_data is not None else 0


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def _check(where: str, p: Parameter, dtype, shape: tuple[int, ...], contiguous: bool, writeable: bool,
           integers: dict[str, int], np) -> None:
    if dtype != np.dtype(p.dtype):
        raise TypeError(f"{where}: expected an array of {p.dtype}, got {dtype} "
                        f"(convert it with .astype(numpy.{p.dtype}))")
    if not p.flat and len(shape) != len(p.dims):
        raise ValueError(f"{where}: expected {len(p.dims)} dimension(s), got an array of shape {shape}")
    if not contiguous and any(extent > 1 for extent in shape):
        raise ValueError(f"{where}: the array is not C-contiguous (a view with strides or in Fortran order); "
                         "pass a contiguous copy (numpy.ascontiguousarray) and read the results from it")
    if not p.const and not writeable:
        raise ValueError(f"{where}: the array is read-only, and the function may write it")
    if p.flat:
        return
    expected = [evaluate(tree, integers) for tree in p.dims]
    for d, (want, have) in enumerate(zip(expected, shape)):
        if want is not None and want != have:
            text = ", ".join(p.dims_text)
            values = ", ".join("?" if w is None else str(w) for w in expected)
            raise ValueError(f"{where}: expected shape ({text}) = ({values}), got {shape} "
                             f"(dimension {d} differs)")
