"""polypragma: a polyhedral compiler for loop nests marked with ``#pragma scop``.

The pipeline runs in one direction, one module per stage::

    scan -> frontend -> dependences -> schedule -> codegen -> splice

``polypragma.driver.compile_file`` runs it for one source file; the command
line (``polypragma.cli``) is a thin layer over that.
"""

__version__ = "0.1.0"
