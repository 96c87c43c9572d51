"""A block's copy in shared memory of an array that a kernel only updates atomically, such as a histogram
(``count[key[i]]++``): which arrays have one.

The block's updates go to the copy, and the block merges it into the array at its end with one atomic update
an element it changed (:func:`polypragma.codegen.reduction_code.block_copy_start` and
:func:`~polypragma.codegen.reduction_code.block_copy_merge`), so that the array in global
memory takes one update a block and element instead of one a point.  Only 32-bit integer elements (CUDA's and
OpenCL 1.1's own atomics on shared memory; integers, so the result is the same in any order), an array of at
most BLOCK_COPY_BYTES bytes whose extent is a constant, and where the copy fits beside the kernel's tiles in
STATIC_SHARED_BYTES (the CUDA tiles past it are in dynamic shared memory, which the copy keeps out of)."""

from __future__ import annotations

from polypragma.gpu.mapping import Kernel
from polypragma.gpu.memory import STATIC_SHARED_BYTES

BLOCK_COPY_BYTES = 16 * 1024
# the most blocks along x of a kernel with block copies, where the user set no grid: the blocks then wrap
# around the tiles, each counting many of them into its copies before its one merge (about the blocks of
# 256 threads an H100 or H200 holds at once: 132 multiprocessors of 2048 threads)
BLOCK_COPY_GRID = 1024
BLOCK_COPY_TYPES = ("int", "unsigned int", "unsigned")


def block_copies(kernel: Kernel, arrays: dict, references, shared_bytes: int) -> dict[str, int]:
    """The arrays of ``kernel`` whose updates go to a copy in shared memory (see BLOCK_COPY_BYTES), each
    with its elements: an array that every reference of the kernel's statements (``references``, the
    region's :class:`~polypragma.model.Reference` list) reaches through an atomic reduction of 32-bit
    integers with one operator, flat in the kernel's code (of one dimension, or linearised)."""
    if not kernel.mapped:
        return {}
    atomic: dict[str, set] = {}
    for kr in kernel.reductions:
        r = kr.reduction
        if kr.accumulated or kr.runs or r.element_type not in BLOCK_COPY_TYPES or r.op == "*":
            atomic.setdefault(r.array, set()).add(None)
        else:
            atomic.setdefault(r.array, set()).add((r.op, r.statement))
    out: dict[str, int] = {}
    used = shared_bytes
    for name, updates in sorted(atomic.items()):
        array = arrays.get(name)
        if None in updates or len({op for op, _ in updates}) != 1 or array is None or array.member is not None \
                or array.row_member or array.rows or array.scalar or array.constant_elements is None \
                or not (array.rank == 1 or array.linearise):
            continue
        size = array.constant_elements * 4
        statements = {statement for _, statement in updates}
        others = [ref for ref in references if ref.array == name and ref.statement in kernel.statements
                  and ref.statement not in statements]
        if others or size > BLOCK_COPY_BYTES or used + size > STATIC_SHARED_BYTES:
            continue
        out[name] = array.constant_elements
        used += size
    return out


def block_copy(array: str) -> str:
    """The name of the block's copy of ``array`` in shared memory (:func:`block_copies`)."""
    return f"polypragma_block_{array}"
