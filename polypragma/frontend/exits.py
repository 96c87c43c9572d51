"""Statements that leave: ``return`` and forward ``goto``, modelled as pet models an early return.

Each such statement of the region is a pseudo-statement of the model whose instances are the points
where it is reached with its conditions holding (affine ones: the walk put them in its domain).  An
instance of another statement runs only when no exit taken before it, in the original execution order,
skips it:

* a ``return`` skips everything after it;
* a ``goto L`` to a label later in an enclosing block skips what lies between: the statements of the
  block's items from the one holding the ``goto`` up to the label, in the same iterations of the loops
  around that block (a ``goto`` to the end of a loop body is a ``continue``, one to just after a nest a
  ``break`` out of all its loops).

Exits are applied from the innermost range outwards: an exit that an outer one skips can only skip what
the outer one skips too, so its unreduced instances do no harm; an inner one must be cut first (an exit
that a ``goto`` to a nearer label jumps over is not reached).  Ranges that cross without nesting are
refused by the extractor.  The instances later than a taken exit are found with isl's lexicographic order
on the original schedule, padded to one width (a sequence places a constant before any difference in
depth, so zeros after a shorter schedule keep the order).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl
from pycparser import c_ast

from polypragma.isl_helpers import coalesced
from polypragma.model import Statement


@dataclass
class Exit:
    name: str  # the pseudo-statement
    node: c_ast.Node  # the return or goto
    depth: int  # loops around the block it stays in (0 for a return)
    first: int  # index, in the walk's statements, of the first statement it may skip
    end: int | None = None  # one past the last (None: to the end of the region, a return)

    def contains(self, other: "Exit") -> bool:
        return self.first <= other.first and (self.end is None or (other.end is not None and other.end <= self.end))


def apply_exits(statements: list[Statement], schedule: isl.Schedule, exits: list[Exit]
                ) -> tuple[list[Statement], isl.Schedule | None, dict[str, isl.Set]]:
    """The statements without the pseudo-statements, their domains cut where an exit was taken before,
    the schedule on what remains (None when nothing does), and per exit the instances where it is
    taken (an empty set where it never is)."""
    ctx = schedule.get_ctx()
    domains = {s.name: s.domain for s in statements}
    maps: dict[str, isl.Map] = {}
    schedule.get_map().foreach_map(lambda m: maps.__setitem__(m.get_tuple_name(isl.dim_type.in_), m))
    width = max(m.dim(isl.dim_type.out) for m in maps.values())
    padded: dict[str, isl.Map] = {}
    for name, m in maps.items():
        n = m.dim(isl.dim_type.out)
        m = m.add_dims(isl.dim_type.out, width - n)
        for d in range(n, width):
            m = m.fix_si(isl.dim_type.out, d, 0)
        m = m.reset_tuple_id(isl.dim_type.out)
        for d in range(width):
            m = m.set_dim_id(isl.dim_type.out, d, isl.Id(f"t{d}", context=ctx))
        padded[name] = m
    order = sorted(exits, key=lambda e: (float("inf") if e.end is None else e.end - e.first, -e.depth))
    for exit in order:
        taken = padded[exit.name].intersect_domain(domains[exit.name])
        if taken.is_empty():
            continue
        for statement in statements[exit.first:exit.end]:
            reached = padded[statement.name].intersect_domain(domains[statement.name])
            if reached.is_empty():
                continue
            pairs = taken.lex_lt_map(reached)  # exit instance -> statement instance after it
            for k in range(exit.depth):
                pairs = pairs.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
            domains[statement.name] = coalesced(domains[statement.name].subtract(pairs.range()))
    names = {e.name for e in exits}
    kept_statements: list[Statement] = []
    kept = None
    for s in statements:
        if s.name in names:
            continue
        kept_statements.append(replace(s, domain=domains[s.name]))
        piece = isl.UnionSet.from_set(domains[s.name])
        kept = piece if kept is None else kept.union(piece)
    taken_at = {e.name: domains[e.name] for e in exits}
    if kept is None:
        return kept_statements, None, taken_at
    return kept_statements, schedule.intersect_domain(kept), taken_at
