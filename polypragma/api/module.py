"""A compiled module: its functions, callable from Python, and why its backend was chosen.

A call checks and converts the arguments (arguments.py), calls the library's entry point, then reads
the messages the generated runtime left (glue.py).  A failure the runtime declares fatal (under
``POLYPRAGMA_DEVICE=gpu``, or a failed copy back to the host arrays) raises :class:`DeviceError` with
the message a C program would print; a failure it survives by running the original loops on the CPU
gives a :class:`DeviceWarning` with that message, since a silent fallback hides a slow call.

Calls of one module are serialised: the messages live in one buffer of the library, and ctypes
releases the GIL during the call.
"""

from __future__ import annotations

import ctypes
import os
import threading
import warnings

from polypragma.api.arguments import CTYPES, CUDA, HOST, OPENCL, bind, convert
from polypragma.api.signature import Signature


class CompileError(Exception):
    """polypragma or a compiler rejected the source; the message holds their diagnostics."""


class DeviceError(RuntimeError):
    """The generated code failed on the device and could not, or was told not to, fall back."""


class DeviceWarning(RuntimeWarning):
    """The generated code failed on the device and ran the original loops instead."""


# shown as polypragma.DeviceError, where users catch them
for _exception in (CompileError, DeviceError, DeviceWarning):
    _exception.__module__ = "polypragma"


class Function:
    """One C function holding a region; call it with the arguments of its C signature."""

    def __init__(self, module: "Module", signature: Signature, entry, device_entry=None):
        self.module = module
        self.signature = signature
        self._entry = entry
        self._device_entry = device_entry  # takes device arrays in place (cuda), or None
        self.__name__ = signature.name
        self.__doc__ = f"{self.c_declaration()}\n\nCompiled by polypragma for the {module.backend} backend."

    def c_declaration(self) -> str:
        params = ", ".join(p.declaration for p in self.signature.parameters) or "void"
        return f"{self.signature.returns_ctype} {self.signature.name}({params})"

    def __repr__(self) -> str:
        return f"<polypragma function {self.c_declaration()} ({self.module.backend})>"

    def __call__(self, *args, **kwargs):
        values = bind(self.signature, args, kwargs)
        converted, arrays, place = convert(self.signature, values)
        entry = self._entry if place == HOST else self._device_entry
        if entry is None or _BACKEND.get(place, self.module.backend) != self.module.backend:
            raise TypeError(self._why_not_on_device(place) if place != HOST else
                            f"{self.signature.name}() cannot be called from Python")
        result = CTYPES.get(self.signature.returns, ctypes.c_longlong)()
        with self.module._lock:
            failed = place == OPENCL and self.module._adopt(arrays)
            if not failed:
                failed = entry(ctypes.byref(result), *converted)
            messages = self.module._messages().decode("utf-8", "replace").strip()
        del arrays
        if failed == 2:  # an assert of the source (the glue's handler)
            raise AssertionError(messages)
        if failed:
            raise DeviceError(messages or f"{self.signature.name}: the device failed")
        if messages:
            warnings.warn(messages, DeviceWarning, stacklevel=2)
        return result.value if self.signature.returns in CTYPES else None

    def _why_not_on_device(self, place: str) -> str:
        name = self.signature.name
        if _BACKEND[place] != self.module.backend:
            return (f"{name}(): {place} needs the {_BACKEND[place]} backend; this module runs on "
                    f"{self.module.backend} (pass NumPy arrays)")
        return (f"{name}(): device arrays need a function that is one region and nothing else, whose sizes, "
                f"scalars and arrays are its parameters: {name} is more, so its original loops may have to run "
                "on the host (pass NumPy arrays)")


# the backend that takes each kind of device array
_BACKEND = {CUDA: "cuda", OPENCL: "opencl"}


class Module:
    """The functions of a compiled C source that hold a ``#pragma scop`` region, as attributes.

    ``backend`` is what runs them ("cuda", "opencl" or "c"); ``explain()`` says why, and what
    polypragma reported; ``cached`` whether the library came from the cache; ``library`` its path.
    """

    def __init__(self, directory: str, manifest: dict, reasons: tuple[str, ...], cached: bool, source: str):
        self.backend: str = manifest["backend"]
        self.library = os.path.join(directory, manifest["library"])
        self.cached = cached
        self.source = source
        self.openmp: bool = manifest["openmp"]
        self.diagnostics: str = manifest["diagnostics"]
        self._reasons = reasons
        self._lock = threading.Lock()
        self._queues: dict[int, object] = {}  # a PyOpenCL queue per context, for arrays without one
        self._library = ctypes.CDLL(self.library)
        self._messages = self._library.polypragma_api_messages
        self._messages.restype = ctypes.c_char_p
        self._messages.argtypes = []
        if self.backend == "opencl":  # the glue's adoption of PyOpenCL's context and queue (see glue.py)
            self._adopt_entry = self._library.polypragma_api_opencl_adopt
            self._adopt_entry.restype = ctypes.c_int
            self._adopt_entry.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.functions: dict[str, Function] = {}
        for data in manifest["signatures"]:
            signature = Signature.from_json(data)
            entry = device_entry = None
            if not any(p.unsupported for p in signature.parameters):
                entry = self._entry(f"polypragma_api_{signature.name}", signature)
                if signature.device_function:
                    device_entry = self._entry(f"polypragma_api_{signature.name}_device", signature)
            self.functions[signature.name] = Function(self, signature, entry, device_entry)

    def _adopt(self, arrays: list) -> bool:
        """Before a call on PyOpenCL ``arrays``: the library's kernels run in their context, on the queue
        of the first that has one (the others' queues are finished first, so that what the caller
        enqueued on them is done; without any, a queue of the module's for that context).  Whether
        that failed (the messages say why)."""
        queues = list({a.queue.int_ptr: a.queue for a in arrays if a.queue is not None}.values())
        for other in queues[1:]:
            other.finish()
        if queues:
            queue = queues[0]
        else:
            import pyopencl

            context = arrays[0].context
            queue = self._queues.get(context.int_ptr)
            if queue is None:
                queue = self._queues[context.int_ptr] = pyopencl.CommandQueue(context)
        return bool(self._adopt_entry(queue.context.int_ptr, queue.int_ptr))

    def _entry(self, name: str, signature: Signature):
        entry = self._library[name]
        entry.restype = ctypes.c_int
        entry.argtypes = [ctypes.c_void_p] + [ctypes.c_void_p if p.kind == "array" else CTYPES[p.number]
                                              for p in signature.parameters]
        return entry

    def __getattr__(self, name: str) -> Function:
        functions = self.__dict__.get("functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(f"the module compiled from {self.__dict__.get('source', '?')} has no function '{name}' "
                             f"holding a '#pragma scop' region (it has: {', '.join(functions) or 'none'})")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.functions))

    def __repr__(self) -> str:
        return f"<polypragma module {self.source} ({self.backend}): {', '.join(self.functions) or 'no function'}>"

    def explain(self) -> str:
        """Why this backend runs the functions, how the library was built, and polypragma's messages."""
        lines = [f"backend: {self.backend}" + (" (with OpenMP)" if self.openmp else ""), *self._reasons,
                 f"library: {self.library} ({'loaded from the cache' if self.cached else 'built now'})",
                 "functions: " + ", ".join(f.c_declaration() for f in self.functions.values())]
        if self.backend in ("cuda", "opencl"):
            takes = [n for n, f in self.functions.items() if f._device_entry is not None]
            kind = "CUDA device arrays" if self.backend == "cuda" else "PyOpenCL arrays"
            lines.append(f"{kind}, used in place: " + (", ".join(takes) or "no function") + " (a function "
                         "that is its region and nothing else takes them)")
        if self.diagnostics:
            lines += ["polypragma said:", self.diagnostics]
        return "\n".join(lines)
