"""Extents found at run time: the pointers whose outermost subscripts read data (``x[col[j]]``, ``h[v[i]]``).

The model covers such a subscript with the whole dimension, so the elements a pointer without a declared
extent holds cannot be bounded at compile time.  The host can bound them just before the region runs, as
an inspector does (Saltz et al.'s inspector/executor; Venkat et al., PLDI'15): it walks the instances of
the statements that hold those subscripts, computes each subscript and keeps one past the largest (and
whether one is negative).  That is right only where what it computes is what the region will compute: the
subscripts, the bounds of the loops around them that read data and the locals they read may read the
arrays the region does not write, the parameters and the iterators, nothing else.  A condition on data that
reads what the region writes is left out (both branches inspected: more elements, never fewer).

Each inspection is a slice of the statements' bodies (:class:`Inspection`): their loops and conditions,
the assignments of the locals they need, and in place of each access the subscript, as the host prints it
(codegen/inspector.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl
from pycparser import c_ast, c_parser

from polypragma.diagnostics import Unsupported
from polypragma.frontend.c_tree import STEPS, assigned_name, subtree, text
from polypragma.frontend.library import PURE_FUNCTIONS
from polypragma.frontend.loops import rising_loop
from polypragma.model import Array, Reference, Scop, Statement, c_expression


@dataclass(frozen=True)
class Inspection:
    """How the host finds the extent of the outermost dimension of pointer ``array``: ``extent`` (a C
    variable) starts at ``start`` (what the modelled subscripts reach, a C expression over the parameters)
    and each statement of ``bodies`` raises it, run over its domain; ``below`` (a C variable) is set where a
    subscript is negative.  ``reads``: the arrays the bodies read, which must be current on the host."""

    array: str
    extent: str
    below: str
    start: str
    bodies: tuple[tuple[Statement, c_ast.Node], ...]
    reads: tuple[str, ...]
    subscripts: tuple[str, ...]  # as written, with their lines (for --explain)

    def describe(self) -> str:
        reads = f" by reading {', '.join(repr(r) for r in self.reads)}" if self.reads else ""
        return (f"as many elements as its subscripts on data reach, found on the host before each call{reads}: "
                f"{', '.join(self.subscripts)}")


def extent_parameter(inspected: Inspection, space: isl.Space) -> isl.PwAff:
    """The extent an inspection finds, as an isl parameter of its own (the C variable of the same name),
    in ``space``'s parameters."""
    params = space.params()
    position = params.find_dim_by_name(isl.dim_type.param, inspected.extent)
    if position < 0:
        position = params.dim(isl.dim_type.param)
        params = params.add_dims(isl.dim_type.param, 1).set_dim_name(isl.dim_type.param, position, inspected.extent)
    return isl.PwAff.var_on_domain(isl.LocalSpace.from_space(params), isl.dim_type.param, position)


def ordered(inspections: list[Inspection]) -> tuple[list[Inspection], Inspection | None]:
    """``inspections``, each after those whose arrays it reads (the first ready by array name, then the
    next), and the first of them in a cycle, which cannot be ordered (None: there is none)."""
    pending = sorted(inspections, key=lambda i: i.array)
    names = {i.array for i in pending}
    done: list[Inspection] = []
    while pending:
        finished = {i.array for i in done}
        ready = next((i for i in pending if not (set(i.reads) & names) - finished), None)
        if ready is None:
            return done, pending[0]
        done.append(ready)
        pending.remove(ready)
    return done, None


def outer_unmodelled(reference: Reference) -> bool:
    """Whether the outermost subscript of ``reference`` is not modelled (the relation covers the whole
    dimension)."""
    if reference.exact:
        return False
    elements = reference.relation.range()
    return not elements.project_out(isl.dim_type.set, 1, elements.dim(isl.dim_type.set) - 1).is_bounded()


def inspection(array: Array, scop: Scop) -> Inspection | None:
    """The inspection bounding pointer ``array``'s outermost dimension, None where its subscripts there are
    all modelled; Unsupported where the host cannot compute them before the region runs."""
    references = [r for r in scop.references if r.array == array.name]
    unmodelled = [r for r in references if outer_unmodelled(r)]
    if not unmodelled:
        return None
    if array.delinearised or array.member is not None or any(e is None for e in array.extents[1:]):
        raise refusal(array, unmodelled[0], scop, "its inner extents are not declared")
    start = "0"
    modelled = [r.relation.range() for r in references if not outer_unmodelled(r)]
    if modelled:
        elements = modelled[0]
        for e in modelled[1:]:
            elements = elements.union(e)
        outer = elements.project_out(isl.dim_type.set, 1, elements.dim(isl.dim_type.set) - 1)
        if not outer.is_subset(outer.lower_bound_val(isl.dim_type.set, 0, isl.Val.zero(outer.get_ctx()))):
            raise Unsupported(f"negative subscripts of '{array.c_name}'", scop.region.location,
                              "are not supported by the GPU targets")
        one = isl.Val.one(outer.get_ctx())
        zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(outer.get_space().params()))
        start = c_expression(outer.dim_max(0).add_constant_val(one).union_max(zero), scop.signed_names, scop.context)
    readable = _readable(scop)
    bodies = []
    reads: set[str] = set()
    for statement in scop.statements:
        targets = {id(r.node): r for r in unmodelled if r.statement == statement.name}
        if targets:
            slicer = _Slicer(scop, statement, targets, readable, array)
            body = slicer.slice()
            bodies.append((_projected(statement, body), body))
            reads |= slicer.reads
    subscripts = tuple(dict.fromkeys(f"'{text(_outer_subscript(r.node))}' at line {r.node.coord.line}"
                                     for r in unmodelled if r.node.coord is not None))
    return Inspection(array.name, f"polypragma_extent_{array.name}", f"polypragma_below_{array.name}", start,
                      tuple(bodies), tuple(sorted(reads)), subscripts)


def _projected(statement: Statement, body: c_ast.Node) -> Statement:
    """``statement`` over the iterators ``body`` reads only (its domain projected on them): an inspection
    of ``A[i * lda + k]`` in a statement of ``i``, ``j``, ``k`` walks each ``(i, k)`` once, not ``n`` times."""
    used = {n.name for n in subtree(body) if isinstance(n, c_ast.ID)}
    domain = statement.domain
    kept = []
    for position in reversed(range(len(statement.iterators))):
        if statement.iterators[position] in used:
            kept.insert(0, position)
        else:
            domain = domain.project_out(isl.dim_type.set, position, 1)
    if len(kept) == len(statement.iterators):
        return statement
    return replace(statement, domain=domain, iterators=tuple(statement.iterators[k] for k in kept),
                   iterator_types=tuple(statement.iterator_types[k] for k in kept))


def refusal(array: Array, reference: Reference, scop: Scop, why: str) -> Unsupported:
    """Why the extent of ``array``'s outermost dimension cannot be found: at the subscript of ``reference``
    that is not modelled, ``why`` the host cannot compute it ahead of the region."""
    hint = f" (declare how many elements it has: '{array.element_type} {array.c_name}[size]' with size a " \
        "parameter of the function or a constant)"
    construct, reason, location = reference.unmodelled or (f"subscript of '{array.c_name}'", "depends on data",
                                                           scop.region.location)
    return Unsupported(construct, location or scop.region.location,
                       f"{reason}: the elements of '{array.c_name}' accessed cannot be bounded ({why}, so the host "
                       f"cannot find them before the region runs); not supported by the GPU targets{hint}")


def _readable(scop: Scop) -> dict[str, Array]:
    """The arrays an inspection may read on the host: those the region does not write, which the host
    function takes as they are (not a local, not a struct's member)."""
    written = {a.name for a in scop.written_arrays()}
    return {a.name: a for a in scop.arrays
            if a.name not in written and a.kind in ("array", "pointer") and a.member is None}


def _outer_subscript(node: c_ast.ArrayRef) -> c_ast.Node:
    while isinstance(node.name, c_ast.ArrayRef):
        node = node.name
    return node.subscript


# the action standing for an access: raise the extent to one past the subscript, or note a negative one
_ACTION = ("typedef unsigned long size_t; void f(void) { { const long long polypragma_index = (long long)(0);"
           " if (polypragma_index < 0) BELOW = 1;"
           " else if ((size_t)polypragma_index >= EXTENT) EXTENT = (size_t)polypragma_index + 1; } }")
_LEAVES = (c_ast.Break, c_ast.Continue, c_ast.Return, c_ast.Goto)


class _Slicer:
    """The slice of one statement's body an inspection runs (see the module's description)."""

    def __init__(self, scop: Scop, statement: Statement, targets: dict[int, Reference],
                 readable: dict[str, Array], array: Array):
        self.scop = scop
        self.statement = statement
        self.targets = targets
        self.readable = readable
        self.array = array
        self.reads: set[str] = set()
        self.covered: set[int] = set()
        self.known = set(scop.parameters) | set(scop.read_only_scalars) | set(statement.iterators)
        self.locals = self._locals()
        self.safe = self._safe_locals()

    # -- what may be computed ahead of the region ------------------------------------------------------
    def _locals(self) -> set[str]:
        names = {name for name, _ in self.statement.private_iterators}
        for node in subtree(self.statement.body):
            if isinstance(node, c_ast.Decl) and node.name is not None:
                names.add(node.name)
        return names - self.known

    def _assignments(self) -> list[tuple[str, c_ast.Node | None]]:
        """(local, the value it gets: None where it is not a plain value) for every assignment of a local
        (its address taken, it may get any)."""
        out = []
        for node in subtree(self.statement.body):
            if isinstance(node, c_ast.Decl) and node.name in self.locals and node.init is not None:
                out.append((node.name, None if isinstance(node.init, c_ast.InitList) else node.init))
            elif assigned_name(node) in self.locals:
                out.append((assigned_name(node), None if node.op == "&" else _values(node)))
        return out

    def _safe_locals(self) -> set[str]:
        """The locals whose every value is computed from what the host has before the region runs."""
        safe = set(self.locals)
        assignments = self._assignments()
        changed = True
        while changed:
            changed = False
            for name, value in assignments:
                if name in safe and (value is None or self._culprit(value, safe) is not None):
                    safe.discard(name)
                    changed = True
        return safe

    def _culprit(self, node: c_ast.Node, safe: set[str] | None = None) -> str | None:
        """What in expression ``node`` the host cannot compute ahead of the region (None: nothing)."""
        safe = self.safe if safe is None else safe
        if isinstance(node, c_ast.ID):
            return None if node.name in self.known or node.name in safe else f"'{node.name}'"
        if isinstance(node, c_ast.ArrayRef):
            base = node
            while isinstance(base, c_ast.ArrayRef):
                base = base.name
            if not isinstance(base, c_ast.ID) or base.name not in self.readable:
                return f"'{text(node)}'"
            for sub in _subscripts(node):
                culprit = self._culprit(sub, safe)
                if culprit is not None:
                    return culprit
            return None
        if isinstance(node, c_ast.FuncCall):
            name = node.name.name if isinstance(node.name, c_ast.ID) else None
            if name not in PURE_FUNCTIONS:
                return f"a call of '{text(node.name)}'"
            return next((c for a in (node.args.exprs if node.args else []) if (c := self._culprit(a, safe))), None)
        if isinstance(node, (c_ast.Assignment, c_ast.StructRef)) or \
                (isinstance(node, c_ast.UnaryOp) and node.op in (*STEPS, "&")):
            return f"'{text(node)}'"
        if isinstance(node, c_ast.UnaryOp) and node.op == "sizeof":
            return None
        if isinstance(node, c_ast.Typename):
            return None
        for _, child in node.children():
            culprit = self._culprit(child, safe)
            if culprit is not None:
                return culprit
        return None

    def _required(self, node: c_ast.Node, what: str, reference: Reference | None = None) -> None:
        culprit = self._culprit(node)
        if culprit is not None:
            raise self._refused(node, f"{what} reads {culprit}, which the region changes or the host function "
                                "does not have", reference)

    def _refused(self, node: c_ast.Node, why: str, reference: Reference | None = None) -> Unsupported:
        """(``node``: where the host stopped; the diagnostic stands at ``reference``'s subscript, or the first
        of the statement's.)"""
        return refusal(self.array, reference or next(iter(self.targets.values())), self.scop, why)

    # -- the slice --------------------------------------------------------------------------------------
    def slice(self) -> c_ast.Node:
        kept = _block(self._statement(self.statement.body))
        missed = [r for key, r in self.targets.items() if key not in self.covered]
        if missed:  # (in a loop's header)
            raise self._refused(missed[0].node, "the host does not inspect a subscript in a loop's header")
        sliced = _ranged(_pruned(kept, self._needed(kept)) or c_ast.Compound([]))
        for n in subtree(sliced):
            if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID):
                self.reads.add(n.name.name)
        return sliced

    def _statement(self, node: c_ast.Node | None) -> list[c_ast.Node]:
        """The slice of statement ``node``, as the statements standing for it in its block."""
        if node is None or isinstance(node, (c_ast.EmptyStatement, c_ast.Pragma)):
            return []
        if isinstance(node, c_ast.Compound):
            items = [k for item in node.block_items or [] for k in self._statement(item)]
            return [c_ast.Compound(items, node.coord)] if items else []
        if isinstance(node, c_ast.Decl):
            actions = self._actions(node.init) if node.init is not None else []
            return actions + ([node] if node.name in self.safe else [])
        if isinstance(node, c_ast.DeclList):
            return [k for d in node.decls for k in self._statement(d)]
        if isinstance(node, c_ast.If):
            actions = self._actions(node.cond)
            culprit = self._culprit(node.cond)
            if culprit is None:
                return actions + [c_ast.If(node.cond, _block(self._statement(node.iftrue)),
                                           _block(self._statement(node.iffalse)) if node.iffalse else None, node.coord)]
            # both branches (more elements, never fewer), unless one leaves the loop
            if any(isinstance(n, _LEAVES) for n in subtree(node)):
                raise self._refused(node.cond, f"the condition '{text(node.cond)}' reads {culprit}, which the region "
                                    "changes, and a branch leaves the loop")
            return actions + self._statement(node.iftrue) + self._statement(node.iffalse)
        if isinstance(node, c_ast.For):
            if node.cond is not None:
                self._required(node.cond, "the loop's condition")
            if node.next is not None:
                self._required(_values(node.next), "the loop's step")
            init = node.init
            if isinstance(init, c_ast.DeclList):
                for d in init.decls:
                    if d.name not in self.safe:
                        raise self._refused(node, f"the loop's start reads {self._culprit(d.init) or 'data'}, "
                                            "which the region changes")
            elif init is not None:
                self._required(_values(init), "the loop's start")
            return [c_ast.For(init, node.cond, node.next, _block(self._statement(node.stmt)), node.coord)]
        if isinstance(node, (c_ast.While, c_ast.DoWhile)):
            self._required(node.cond, "the loop's condition")
            return [type(node)(node.cond, _block(self._statement(node.stmt)), node.coord)]
        if isinstance(node, (c_ast.Break, c_ast.Continue)):
            return [node]
        if isinstance(node, (c_ast.Assignment, c_ast.UnaryOp)) and assigned_name(node) in self.safe:
            return self._actions(node) + [node]
        if isinstance(node, (c_ast.Assignment, c_ast.UnaryOp, c_ast.FuncCall, c_ast.ExprList, c_ast.BinaryOp,
                             c_ast.TernaryOp, c_ast.ArrayRef, c_ast.ID, c_ast.Constant, c_ast.Cast)):
            return self._actions(node)
        raise self._refused(node, f"the host does not inspect a {type(node).__name__} statement")

    def _actions(self, node: c_ast.Node) -> list[c_ast.Node]:
        """The actions for the accesses to inspect inside expression ``node``, in order."""
        actions = []
        for n in subtree(node):
            if id(n) in self.targets:
                self.covered.add(id(n))
                subscript = _outer_subscript(n)
                self._required(subscript, f"its subscript '{text(subscript)}'", self.targets[id(n)])
                actions.append(_action(subscript, self.array.name))
        return actions

    def _needed(self, kept: c_ast.Node | None) -> set[str]:
        """The locals the slice's actions and control need (assignments of others are dropped)."""
        needed: set[str] = set()
        if kept is None:
            return needed
        uses = []
        defs: dict[str, list[c_ast.Node]] = {}
        for n in subtree(kept):
            if isinstance(n, (c_ast.If, c_ast.While, c_ast.DoWhile)):
                uses.append(n.cond)
            elif isinstance(n, c_ast.For):
                uses += [p for p in (n.cond, n.next) if p is not None]
                if n.init is not None:
                    uses.append(n.init)
            elif isinstance(n, c_ast.Decl) and n.name in self.safe and n.init is not None:
                defs.setdefault(n.name, []).append(n.init)
            elif isinstance(n, (c_ast.Assignment, c_ast.UnaryOp)) and assigned_name(n) in self.safe:
                defs.setdefault(assigned_name(n), []).append(_values(n))
            elif _is_action_block(n):
                uses.append(n.block_items[0].init)
        pending = [i.name for u in uses for i in subtree(u) if isinstance(i, c_ast.ID) and i.name in self.safe]
        while pending:
            name = pending.pop()
            if name in needed:
                continue
            needed.add(name)
            pending += [i.name for d in defs.get(name, []) for i in subtree(d)
                        if isinstance(i, c_ast.ID) and i.name in self.safe]
        return needed


def _action(subscript: c_ast.Node, array: str) -> c_ast.Node:
    parsed = c_parser.CParser().parse(_ACTION.replace("EXTENT", f"polypragma_extent_{array}")
                                      .replace("BELOW", f"polypragma_below_{array}"))
    block = parsed.ext[-1].body.block_items[0]
    block.block_items[0].init.expr = subscript  # (shared with the statement's body, which is not changed)
    return block


def _pruned(node: c_ast.Node | None, needed: set[str]) -> c_ast.Node | None:
    """``node`` without the assignments of locals not ``needed`` and the statements left with neither an
    action nor an assignment of a needed local."""
    if node is None:
        return None
    if _is_action_block(node):
        return node
    if isinstance(node, c_ast.Compound):
        items = [k for item in node.block_items or [] if (k := _pruned(item, needed)) is not None]
        return c_ast.Compound(items, node.coord) if any(_matters(i, needed) for i in items) else None
    if isinstance(node, c_ast.Decl):
        return node if node.name in needed else None
    if isinstance(node, (c_ast.Assignment, c_ast.UnaryOp)):
        return node if assigned_name(node) in needed else None
    if isinstance(node, c_ast.If):
        then, other = _pruned(node.iftrue, needed), _pruned(node.iffalse, needed)
        if not any(_matters(b, needed) for b in (then, other) if b is not None):
            return None
        return c_ast.If(node.cond, then or c_ast.Compound([]), other, node.coord)
    if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
        body = _pruned(node.stmt, needed)
        if body is None or not _matters(body, needed):
            return None
        if isinstance(node, c_ast.For):
            return c_ast.For(node.init, node.cond, node.next, body, node.coord)
        return type(node)(node.cond, body, node.coord)
    return node  # break, continue


def _ranged(node: c_ast.Node) -> c_ast.Node:
    """``node`` with each counted loop whose body only inspects its iterator (``for (j = lo; j < hi; j++)``
    around ``val[j]``) replaced by the inspection of its first and last values: a row's entries in two
    steps, not one a entry."""
    if isinstance(node, c_ast.For):
        header = rising_loop(node)
        if header is not None and header[3] == 1 and not any(
                isinstance(n, c_ast.ID) and n.name == header[0] for n in subtree(header[2])):
            name, first, past, _ = header
            actions = _statements(node.stmt)
            if actions and all(_is_action_block(a) and _inspected(a) == name for a in actions):
                steps = [_retarget(a, subscript) for a in actions for subscript in (first, _before(past))]
                return c_ast.If(c_ast.BinaryOp("<", first, past), c_ast.Compound(steps), None, node.coord)
        return c_ast.For(node.init, node.cond, node.next, _ranged(node.stmt), node.coord)
    if isinstance(node, c_ast.Compound) and not _is_action_block(node):
        return c_ast.Compound([_ranged(item) for item in node.block_items or []], node.coord)
    if isinstance(node, c_ast.If):
        return c_ast.If(node.cond, _ranged(node.iftrue), _ranged(node.iffalse) if node.iffalse else None, node.coord)
    if isinstance(node, (c_ast.While, c_ast.DoWhile)):
        return type(node)(node.cond, _ranged(node.stmt), node.coord)
    return node


def _before(past: c_ast.Node) -> c_ast.Node:
    """The value before ``past``: ``e`` for ``e + 1`` (a loop to ``j <= e``), else ``past - 1``."""
    if isinstance(past, c_ast.BinaryOp) and past.op == "+" and isinstance(past.right, c_ast.Constant) \
            and past.right.value == "1":
        return past.left
    return c_ast.BinaryOp("-", past, c_ast.Constant("int", "1"))


def _statements(node: c_ast.Node) -> list[c_ast.Node]:
    """The statements of ``node``, blocks opened (an action's block is one)."""
    if isinstance(node, c_ast.Compound) and not _is_action_block(node):
        return [s for item in node.block_items or [] for s in _statements(item)]
    return [node]


def _inspected(action: c_ast.Compound) -> str | None:
    """The variable an action inspects, where its subscript is a plain variable."""
    subscript = action.block_items[0].init.expr
    return subscript.name if isinstance(subscript, c_ast.ID) else None


def _retarget(action: c_ast.Compound, subscript: c_ast.Node) -> c_ast.Compound:
    """A copy of ``action`` inspecting ``subscript``."""
    copied = c_ast.Compound(list(action.block_items), action.coord)
    declaration = action.block_items[0]
    cast = declaration.init
    copied.block_items[0] = c_ast.Decl(declaration.name, declaration.quals, declaration.align, declaration.storage,
                                       declaration.funcspec, declaration.type,
                                       c_ast.Cast(cast.to_type, subscript, cast.coord), declaration.bitsize,
                                       declaration.coord)
    return copied


def _is_action_block(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Compound) and bool(node.block_items) and \
        isinstance(node.block_items[0], c_ast.Decl) and node.block_items[0].name == "polypragma_index"


def _matters(node: c_ast.Node, needed: set[str]) -> bool:
    """Whether ``node`` holds an action or sets a needed local."""
    return any(_is_action_block(n) or (isinstance(n, c_ast.Decl) and n.name in needed)
               or assigned_name(n) in needed for n in subtree(node))


def _block(items: list[c_ast.Node]) -> c_ast.Node:
    """``items`` as one statement."""
    return items[0] if len(items) == 1 else c_ast.Compound(items)


def _values(node: c_ast.Node) -> c_ast.Node:
    """What an assignment, an increment or a list of them reads (the values, not the locals set)."""
    if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
        return node.rvalue if node.op == "=" else c_ast.BinaryOp(node.op[:-1], node.lvalue, node.rvalue)
    if isinstance(node, c_ast.UnaryOp) and node.op in STEPS and isinstance(node.expr, c_ast.ID):
        return node.expr
    if isinstance(node, c_ast.ExprList):
        return c_ast.ExprList([_values(e) for e in node.exprs])
    return node


def _subscripts(node: c_ast.ArrayRef) -> list[c_ast.Node]:
    out = []
    while isinstance(node, c_ast.ArrayRef):
        out.insert(0, node.subscript)
        node = node.name
    return out


