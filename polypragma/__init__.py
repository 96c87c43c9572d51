"""polypragma: a polyhedral compiler for loop nests marked with ``#pragma scop``.

The pipeline runs in one direction, one module per stage::

    scan -> frontend -> dependences -> schedule -> codegen -> splice

``polypragma.driver.compile_file`` runs it for one source file; the command
line (``polypragma.cli``) is a thin layer over that.  ``polypragma.compile`` compiles a C source
into a module whose functions Python calls on NumPy arrays (``polypragma.api``).
"""

__version__ = "0.1.0"

# the Python API, imported when first used: the command line does not need it
_API = ("compile", "Module", "Function", "CompileError", "CompileWarning", "DeviceError", "DeviceWarning",
        "cache_dir", "set_cache_dir", "clear_cache")


def __getattr__(name: str):
    if name in _API:
        from polypragma import api

        return getattr(api, name)
    raise AttributeError(f"module 'polypragma' has no attribute '{name}'")


def __dir__():
    return sorted(list(globals()) + list(_API))
