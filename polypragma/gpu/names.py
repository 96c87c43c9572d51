"""The prefixes of the names the GPU stage gives iterators and ids, free in the program."""

from __future__ import annotations

from dataclasses import dataclass

from polypragma.isl_helpers import iterator_prefix


@dataclass(frozen=True)
class IteratorNames:
    """Prefixes, each followed by a number: ``host`` the host AST's loop iterators, ``host_dims`` the
    host loop dimensions as a kernel's parameters, ``block`` and ``thread`` the block and thread ids,
    ``kernel`` the kernel AST's loop iterators, ``tile`` a kernel's tile coordinates."""

    host: str
    host_dims: str
    block: str
    thread: str
    kernel: str
    tile: str

    @classmethod
    def free_in(cls, reserved: set[str] | frozenset[str]) -> IteratorNames:
        """Prefixes (preferably c, h, b, t, k, g) under which no name of ``reserved`` nor of another
        prefix falls; the roles are chosen in a fixed order, so the names are the same on every run."""
        reserved = set(reserved)
        chosen = {}
        for role, preferred in (("host", "c"), ("block", "b"), ("thread", "t"), ("kernel", "k"), ("host_dims", "h"),
                                ("tile", "g")):
            prefix = iterator_prefix(reserved, preferred)
            chosen[role] = prefix
            reserved |= {f"{prefix}{k}" for k in range(64)}
        return cls(**chosen)
