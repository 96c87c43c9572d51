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

:class:`ExitWalk` is the part of the walk over a region (:class:`polypragma.frontend.extract.RegionExtractor`)
that makes these pseudo-statements, or the whole region one statement run as written where an exit's
condition reads data.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import islpy as isl
from pycparser import c_ast

from polypragma.frontend.accesses import ExitOnData
from polypragma.frontend.c_tree import rewrite_children, subtree, text
from polypragma.frontend.walk import Walk
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


class ExitWalk:
    """The returns and gotos of :class:`polypragma.frontend.extract.RegionExtractor`'s walk, which provides
    the state (``statements``, ``exits``, ``_frames``, ``_pending``...) and the walk of statements and
    declarations (``_statement``, ``_declaration``, ``_fresh``)."""

    def _exits(self, schedule: isl.Schedule) -> tuple[isl.Schedule | None, tuple]:
        """Cut the domains where a return or goto was taken before (frontend/exits.py).  A return that
        remains possible is returned with its condition on the parameters and the expression to return,
        for the c target to print after the generated code."""
        gotos = [e for e in self.exits if isinstance(e.node, c_ast.Goto)]
        for a in gotos:
            for b in gotos:
                if a.first < b.first < a.end < b.end:
                    raise ExitOnData(f"'goto {a.node.name}'", self.location(a.node),
                                     f"skips a part of what 'goto {b.node.name}' (line {b.node.coord.line}) skips")
        self.statements, schedule, taken = apply_exits(self.statements, schedule, self.exits)
        returns = []
        for exit in self.exits:
            if isinstance(exit.node, c_ast.Return) and not taken[exit.name].is_empty():
                returns.append((coalesced(taken[exit.name].params()), exit.node.expr, self.location(exit.node)))
        return schedule, tuple(returns)

    def _region_as_statement(self, walk: Walk) -> isl.Schedule | None:
        """The region as one statement run as written (a return or goto on data is in it): its
        declarations are hoisted as at the top of any region, their initialisations assignments of it."""
        body: list[c_ast.Node] = []
        for item in self.items:
            decls = [item] if isinstance(item, c_ast.Decl) else item.decls if isinstance(item, c_ast.DeclList) else None
            if decls is None:
                body.append(item)
                continue
            for decl in decls:
                self._declaration(decl, walk, region_level=True, initialise=False)
                if decl.init is not None:
                    body.append(c_ast.Assignment("=", c_ast.ID(decl.name, coord=decl.coord), decl.init,
                                                 coord=decl.coord))
        for item in self.items:
            for decl in ([item] if isinstance(item, c_ast.Decl) else item.decls if isinstance(item, c_ast.DeclList)
                         else []):
                if isinstance(decl.init, c_ast.InitList):
                    raise self.unsupported(f"initializer list of '{decl.name}'", decl)
        coord = self.items[0].coord if self.items else None
        if any(isinstance(n, c_ast.Return) for item in body for n in subtree(item)):
            body = self._returns_as_flags(body, walk, coord)
        return self._statement(c_ast.Compound(body, coord=coord), walk, exits=True)

    def _returns_as_flags(self, body: list[c_ast.Node], walk: Walk, coord) -> list[c_ast.Node]:
        """The region run as written, its returns made assignments of region-level variables, as kernels
        can run it: ``return e;`` becomes ``{ value = e; taken = 1; goto end; }`` with a label ``end`` closing
        the region, whose code after it returns ``value`` when ``taken`` (``Scop.data_return``; the CPU
        fallback of the GPU targets keeps the returns as written).  A value of a type that is not a number
        (a pointer, a struct) leaves the region to the c target, as before."""
        valued = [n for item in body for n in subtree(item) if isinstance(n, c_ast.Return) and n.expr is not None]
        ctype = self.types.ctype(self.result_type) if valued and self.result_type is not None else None
        if valued and (ctype is None or ctype.pointer_depth or ctype.dims
                       or not (ctype.is_integer or ctype.is_float)):
            self.device_unsupported.append((
                self.as_written.construct, self.as_written.location,
                f"{self.as_written.why}; the region is run as written on the c target, not supported by the GPU "
                "targets (they return only numbers from a region)"))
            return body
        # (named after the region: two regions of a function declare theirs in the same block)
        stem = f"polypragma_region{self.region.index}"
        taken, end = self._fresh(f"{stem}_returned"), f"{stem}_return"
        names = [(taken, c_ast.TypeDecl(taken, [], None, c_ast.IdentifierType(["int"])))]
        value = None
        if valued:
            value = self._fresh(f"{stem}_value")
            declarator = copy.deepcopy(self.result_type)
            node = declarator
            while not isinstance(node, c_ast.TypeDecl):
                node = node.type
            node.declname = value
            names.append((value, declarator))
        for name, declarator in names:
            # declared before the region (code after it reads them), 0 there: the CPU fallback never sets them
            self._declaration(c_ast.Decl(name, [], [], [], [], declarator, None, None), walk, region_level=True,
                              initialise=False)
            self.outer_declarations[-1] = self.outer_declarations[-1][:-1] + " = 0;"

        def assign(name: str, expr: c_ast.Node) -> c_ast.Node:
            return c_ast.Assignment("=", c_ast.ID(name, coord=expr.coord), expr, coord=expr.coord)

        def rewrite(node: c_ast.Node) -> c_ast.Node:
            if isinstance(node, c_ast.Return):
                items = [assign(value, node.expr)] if node.expr is not None else []
                items += [assign(taken, c_ast.Constant("int", "1", coord=node.coord)),
                          c_ast.Goto(end, coord=node.coord)]
                return c_ast.Compound(items, coord=node.coord)
            return rewrite_children(node, rewrite)

        self.data_return = (taken, value)
        zero = c_ast.Constant("int", "0", coord=coord)
        return ([c_ast.Assignment("=", c_ast.ID(taken, coord=coord), zero, coord=coord)]
                + [rewrite(copy.deepcopy(item)) for item in body] + [c_ast.Label(end, c_ast.EmptyStatement())])

    def _return(self, node: c_ast.Return, walk: Walk) -> isl.Schedule | None:
        """A ``return`` where the enclosing conditions are affine: a pseudo-statement whose instances
        are the points where it is reached (see :meth:`_exits`).  Its value is computed after
        the generated code, when nothing else has run since: one naming the region's iterators or locals,
        which have no value there, makes the region one statement run as written."""
        loop_names = {l.c_name for l in walk.loops}
        for child in subtree(node.expr) if node.expr is not None else ():
            if isinstance(child, c_ast.ID):
                variable = walk.scope.lookup(child.name)
                if child.name in loop_names or child.name in self.outer_iterators \
                        or (variable is not None and variable.declared_in_region):
                    raise ExitOnData(
                        f"'return {text(node.expr)}'", self.location(child),
                        f"returns a value computed from '{child.name}', a loop iterator or local of the region")
        if walk.domain.is_empty():
            return None
        return self._exit(node, walk, "R", 0, 0)

    def _exit(self, node: c_ast.Node, walk: Walk, prefix: str, depth: int, first: int) -> isl.Schedule | None:
        name = f"{prefix}_{len(self.statements)}"
        domain = walk.domain.set_tuple_name(name)
        empty = isl.UnionMap.empty(domain.get_space().params())
        self.statements.append(Statement(
            name=name, domain=domain, body=node, iterators=tuple(l.c_name for l in walk.loops),
            iterator_types=tuple(l.ctype for l in walk.loops),
            line=node.coord.line if node.coord else self.region.begin_line,
            reads=empty, must_writes=empty, may_writes=empty))
        exit = Exit(name, node, depth, first, None if prefix == "R" else 0)
        self.exits.append(exit)
        if isinstance(node, c_ast.Goto):
            self._pending.setdefault(node.name, []).append(exit)
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domain))

    def _goto(self, node: c_ast.Goto, walk: Walk) -> isl.Schedule | None:
        """A ``goto`` to a label later in a block that holds it (see frontend/exits.py): it skips the
        statements of that block from the item holding it up to the label, in the same iterations of the
        loops around the block."""
        for frame in reversed(self._frames):
            if any(isinstance(item, c_ast.Label) and item.name == node.name for item in frame.items[frame.index + 1:]):
                if walk.domain.is_empty():
                    return None
                return self._exit(node, walk, "G", frame.depth, frame.first)
        raise ExitOnData(f"'goto {node.name}'", self.location(node),
                         "jumps to a label that is not later in a block holding it")
