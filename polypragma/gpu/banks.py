"""Shared memory's banks: how many wavefronts one warp's access to a tile takes, and the padding of the
tile's rows that makes the fewest (a row of 32 doubles read down a column: every thread on the same
bank without padding, 32 wavefronts; with one element more per row, 2).  Used by the memory analysis
(:mod:`polypragma.gpu.memory`) and the cost model (:mod:`polypragma.gpu.cost`).
"""

from __future__ import annotations

import functools
import math

BANKS = 32

Moves = list[tuple[tuple[int, ...], int]]  # a warp's threads: per dimension, the element's stride and threads


def bank_padding(widths: list[int], moves: list[Moves], words: int, weights: list[int] | None = None,
                 multiple: int = 1) -> tuple[int, list[int]]:
    """The padding of the innermost dimension of a shared tile of ``widths`` that minimises the
    wavefronts of one warp's access through each reference (``moves``, weighed by ``weights``), and
    those wavefronts at that padding; ties go to a padding that makes the row a ``multiple`` of
    elements (a vector's, so that every row starts aligned), then to the smaller.  A tile of one
    dimension is not padded."""
    weights = weights or [1] * len(moves)
    keys = [tuple((tuple(stride), threads) for stride, threads in m) for m in moves]

    def fronts(pad: int) -> list[int]:
        padded = tuple(widths[:-1]) + (widths[-1] + pad,)
        return [_warp_wavefronts(padded, key, words) for key in keys]

    if len(widths) < 2:
        return 0, fronts(0)
    best = min(range(BANKS), key=lambda pad: (sum(w * f for w, f in zip(weights, fronts(pad))),
                                              (widths[-1] + pad) % multiple != 0, pad))
    return best, fronts(best)


@functools.lru_cache(maxsize=4096)
def _warp_wavefronts(widths: tuple[int, ...], moves: tuple, words: int) -> int:
    """:func:`wavefronts` of :func:`warp_offsets`, remembered: the cost model asks for the same tiles and
    warps under many candidates and paddings."""
    return wavefronts(warp_offsets(list(widths), moves), words)


def warp_offsets(widths: list[int], moves: Moves) -> set[int]:
    """The offsets in a row-major tile of ``widths`` of the elements a warp reads: the first thread's
    moved by each dimension's stride, for each of its threads."""
    elements = {0}
    for stride, threads in moves:
        linear = sum(v * math.prod(widths[k + 1:]) for k, v in enumerate(stride))
        elements = {e + a * linear for e in elements for a in range(threads)}
    return elements


def wavefronts(elements: set[int], words: int) -> int:
    """The shared-memory wavefronts one warp's access to ``elements`` (offsets, in elements of
    ``words`` 4-byte words) takes: the most distinct words any bank serves (a word read by several
    threads is broadcast)."""
    per_bank: dict[int, set[int]] = {}
    for e in elements:
        for w in range(e * words, (e + 1) * words):
            per_bank.setdefault(w % BANKS, set()).add(w)
    return max(len(ws) for ws in per_bank.values())
