"""A bound on the work isl may do, for the analyses that give up past it (the dataflow analysis,
the scheduler, the memory analysis, the atomic form of a kernel's AST): past the bound isl raises isl.Error
("maximal number of operations exceeded") and the caller falls back."""

from __future__ import annotations

from contextlib import contextmanager

import islpy as isl


@contextmanager
def bounded_operations(ctx: isl.Context, limit: int):
    """isl operations within the block count from zero and stop at ``limit`` (0: no bound);
    afterwards the context is unbounded again."""
    ctx.reset_operations()
    ctx.set_max_operations(limit)
    try:
        yield
    finally:
        ctx.set_max_operations(0)
        ctx.reset_operations()
