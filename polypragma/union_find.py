"""Union-find over the integers ``0 .. n-1``: the classes of references that touch common elements
(:mod:`polypragma.gpu.memory`, :mod:`polypragma.gpu.cost`) and of a scalar's writes and the reads they
reach (:func:`polypragma.privatise.split_webs`)."""

from __future__ import annotations


class UnionFind:
    """Disjoint classes of ``0 .. n-1``, each named by its smallest member."""

    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, k: int) -> int:
        while self.parent[k] != k:
            self.parent[k] = self.parent[self.parent[k]]
            k = self.parent[k]
        return k

    def join(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[max(a, b)] = min(a, b)

    def classes(self) -> list[list[int]]:
        """The classes, each in increasing order, by their smallest member."""
        out: dict[int, list[int]] = {}
        for k in range(len(self.parent)):
            out.setdefault(self.find(k), []).append(k)
        return list(out.values())
