"""The ``for`` loops of a region: :class:`LoopWalk` is the part of the walk over a region
(:class:`polypragma.frontend.extract.RegionExtractor`) that models a loop as a band of the schedule over
its iterator's progression.  Its header gives the iterator and the progression (an unsigned iterator that
wraps around is a counter modulo its type's range, as pet models it); a ``break`` whose condition is
affine ends the loop at the first iteration where it holds; the value a loop of the region's top level
leaves in an iterator declared before the region is recorded for the code after it.  A start, bound or
``break`` on data makes the loop one statement run as written (its iterator private)."""

from __future__ import annotations

import islpy as isl
from pycparser import c_ast

from polypragma.diagnostics import Unsupported
from polypragma.frontend.affine import NonAffine
from polypragma.frontend.c_tree import leaves_early, subtree, text
from polypragma.frontend.loops import loop_domain, loop_step
from polypragma.frontend.normalise import is_break
from polypragma.frontend.symbols import Scope
from polypragma.frontend.walk import Loop, Walk, sequence
from polypragma.isl_helpers import coalesced
from polypragma.model import Variable


class LoopWalk:
    """The loops of :class:`polypragma.frontend.extract.RegionExtractor`'s walk, which provides the state
    (``statements``, ``exit_values``, ``iterator_ctypes``...), the affine builder of a point of the walk
    (``_builder``, ``check_requirements``), its diagnostics and the walk of items and statements."""

    def _for(self, node: c_ast.For, walk: Walk) -> isl.Schedule | None:
        scope = walk.scope.child()
        name, init, ctype_base, unsigned = self._loop_init(node, scope, walk)
        step = loop_step(node, name, self.types.enumerators)
        if not step:
            nxt = node.next
            what = f"loop increment '{text(nxt)}'" if nxt is not None else "'for' loop without increment"
            raise self.unsupported(what, nxt if nxt is not None else node,
                                   "is not supported (it must add a non-zero constant to the iterator)")
        if node.cond is None:
            raise self.unsupported("'for' loop without a condition", node)
        dim = name
        used = {l.dim for l in walk.loops}
        k = 1
        while dim in used:
            dim = f"{name}_{k}"
            k += 1
        loop = Loop(name, dim, step < 0, ctype_base, unsigned)
        modulus = _wrap_modulus(scope.lookup(name).ctype) if unsigned else None
        try:
            return self._for_loop(node, walk, scope, loop, init, step)
        except _Wraps:
            if modulus is None:
                raise
        # an unsigned iterator whose plain progression leaves its type's range (unsigned char k = 252;
        # k != 2; ++k): C wraps it around; model the progression by a counter whose value mod 2^w is
        # the iterator, as pet does
        loop.modulus = modulus
        return self._for_loop(node, walk, scope, loop, init, step)

    def _for_loop(self, node: c_ast.For, walk: Walk, scope: Scope, loop: Loop, init: c_ast.Node,
                  step: int) -> isl.Schedule | None:
        name, dim, unsigned, ctype_base = loop.c_name, loop.dim, loop.unsigned, loop.ctype
        inner_walk = Walk(walk.loops, walk.domain, scope)
        builder = self._builder(inner_walk, [loop])
        position = len(walk.loops)
        try:
            lower = builder.pwaff(init)
        except NonAffine as exc:
            if self._opaque_loop(node, name, walk):
                return self._statement(node, walk)  # a start on data (k = rowptr[i]): as for a bound
            raise self.not_affine(f"loop start '{text(init)}'", exc, inner_walk) from None
        if lower.involves_dims(isl.dim_type.in_, position, 1):
            raise self.unsupported(f"loop start '{text(init)}' using its own iterator", init)
        outer_points = walk.domain.add_dims(isl.dim_type.set, 1).set_dim_name(isl.dim_type.set, position, dim)
        if unsigned and not loop.modulus:
            builder.requirements.append((lower.nonneg_set(), init))
        self.check_requirements(builder, outer_points, "loop start")
        try:
            condition = builder.condition(node.cond)
        except NonAffine as exc:
            if self._opaque_loop(node, name, walk):
                # a bound on data (j < len[i], j < f(n)): the loop is one statement of its own, its
                # iterator private, its accesses over the elements its subscripts may reach
                return self._statement(node, walk)
            raise self.not_affine(f"loop condition '{text(node.cond)}'", exc, inner_walk) from None
        domain, evaluated = loop_domain(builder, walk.domain, position, lower, condition, step)
        wraps = unsigned and not loop.modulus
        if not domain.is_bounded():
            raise (_Wraps if wraps else Unsupported)(f"loop '{name}' with no bound on its iterations",
                                                     self.location(node))
        if wraps:
            modulus = _wrap_modulus(scope.lookup(name).ctype)
            in_range = builder.dim(position).nonneg_set().intersect(
                builder.dim(position).lt_set(builder.constant(modulus or 0)))
            if modulus is not None and modulus < 2 ** 32 and not evaluated.is_subset(in_range):
                # the plain progression leaves the type's range: C would wrap it around
                raise _Wraps(f"loop '{name}' of type '{ctype_base}'", self.location(node),
                             "leaves the range of its type and wraps around, without a bound on its iterations")
        self.check_requirements(builder, evaluated, "loop condition")
        self.iterator_ctypes.append(ctype_base)
        first = len(self.statements)
        body_walk = Walk(walk.loops + [loop], domain, scope)
        if self._breaks_on_data(node, body_walk):
            # where the loop stops depends on data: one statement, run as written (as a bound on data)
            return self._statement(node, walk)
        self._breaks_taken = None
        child = self._loop_body(node.stmt, body_walk, loop, position)
        breaks_taken, self._breaks_taken = self._breaks_taken, None
        if child is None:
            return None
        partial = None
        for statement in self.statements[first:]:
            pa = isl.PwAff.from_aff(isl.Aff.var_on_domain(
                isl.LocalSpace.from_space(statement.domain.get_space()), isl.dim_type.set, position))
            if loop.reverse:
                pa = pa.neg()
            piece = isl.UnionMap.from_map(isl.Map.from_pw_aff(pa))
            partial = piece if partial is None else partial.union(piece)
        if loop.modulus:
            self.exit_values.pop(name, None)  # not modelled for a wrapping iterator: a stale value after it
        elif leaves_early(node.stmt, breaks=breaks_taken is None):
            # a goto (or a break the model did not place) may leave it before its condition fails
            self.exit_values.pop(name, None)
        else:
            self._exit_value(node, name, walk, domain, lower, step, position, breaks_taken)
        if partial is None:
            return child
        return child.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(partial))

    def _exit_value(self, node: c_ast.For, name: str, walk: Walk, domain: isl.Set, lower: isl.PwAff,
                    step: int, position: int, breaks_taken: isl.Set | None = None) -> None:
        """Record the value a loop of the region's top level leaves in an iterator declared before the
        region: the first value of its progression that fails the condition, i.e. the last iteration
        plus the step, or the start when it runs no iteration; where a break is taken (``breaks_taken``,
        the iteration it is taken at, if any), that iteration's value (a break skips the step)."""
        self.exit_values.pop(name, None)
        if walk.loops or not isinstance(node.init, c_ast.Assignment) or name in self._assigned_in_statements:
            return
        # { [] -> [i] : i in the loop }: its last iteration as a function of the parameters
        iterations = isl.Map.from_range(domain)
        last = iterations.lexmin() if step < 0 else iterations.lexmax()
        last_value = isl.PwMultiAff.from_map(last).get_pw_aff(0).add_constant_val(
            isl.Val(str(step), context=self.ctx))
        start = lower.drop_dims(isl.dim_type.in_, position, 1)  # it does not involve the iterator
        none = walk.domain.subtract(last_value.domain())
        value = coalesced(last_value.union_max(start.intersect_domain(none)))
        if breaks_taken is not None and not breaks_taken.is_empty():
            stops = isl.Map.from_range(breaks_taken)
            stop = isl.PwMultiAff.from_map(stops.lexmax() if step < 0 else stops.lexmin()).get_pw_aff(0)
            value = coalesced(stop.union_max(value.intersect_domain(walk.domain.subtract(stop.domain()))))
        self.exit_values[name] = value

    def _opaque_loop(self, node: c_ast.For, name: str, walk: Walk) -> bool:
        """Whether a loop whose condition is not affine can be one statement: its condition reads data
        (not a written scalar or a stale iterator, which the diagnostics explain), its iterator is not
        read after the region, nor are those of the loops it holds (run as written inside it too)."""
        if name in self.used_outside or any(
                isinstance(n, c_ast.For) and isinstance(n.init, c_ast.Assignment)
                and isinstance(n.init.lvalue, c_ast.ID) and n.init.lvalue.name in self.used_outside
                for n in subtree(node.stmt)):
            return False
        reads_data = False
        start = node.init.decls[0].init if isinstance(node.init, c_ast.DeclList) else node.init.rvalue
        for child in [*subtree(node.cond), *subtree(start)]:
            if isinstance(child, (c_ast.ArrayRef, c_ast.FuncCall)):
                reads_data = True
            elif isinstance(child, c_ast.ID) and child.name != name \
                    and child.name not in {l.c_name for l in walk.loops}:
                variable = walk.scope.lookup(child.name)
                if variable is not None and not variable.ctype.is_scalar and not variable.declared_in_region:
                    continue  # an array read, as an element is (its accesses are the statement's)
                if child.name in self.written or (variable is not None and variable.declared_in_region) \
                        or (child.name in self.outer_iterators and child.name not in {l.c_name for l in walk.loops}):
                    return False
        return reads_data

    def _breaks_on_data(self, node: c_ast.For, walk: Walk) -> bool:
        """Whether a ``break`` at the top level of the loop's body has a condition on data (a leading one
        joined the condition already), and the loop may be one statement: its iterator is not read after
        the region."""
        items = list(node.stmt.block_items or []) if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        name = walk.loops[-1].c_name
        if name in self.used_outside:
            return False
        for item in items:
            if is_break(item):
                try:
                    self._builder(walk).condition(item.cond)
                except NonAffine:
                    return any(isinstance(n, (c_ast.ArrayRef, c_ast.FuncCall, c_ast.StructRef))
                               for n in subtree(item.cond))
        return False

    def _loop_body(self, body: c_ast.Node, walk: Walk, loop: Loop, position: int) -> isl.Schedule | None:
        """The body of a loop; ``if (c) break;`` at its top level, with ``c`` affine, ends the loop at the
        first iteration where ``c`` holds: the statements before it run up to that iteration, the ones
        after it only before it (as pet models a break)."""
        items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
        if not any(is_break(item) for item in items):
            return self._item(body, walk, False)
        scope = walk.scope.child()
        # pairs of points of this loop, the second later in it, the enclosing iterations the same
        later = (isl.Map.lex_gt(walk.domain.get_space()) if loop.reverse
                 else isl.Map.lex_lt(walk.domain.get_space()))
        for d in range(position):
            later = later.equate(isl.dim_type.in_, d, isl.dim_type.out, d)
        domain = walk.domain
        # per segment (the items between two breaks), the iterations that reach it, within one iteration:
        # the conditions of the breaks before it failed; any: the iterations where some break is taken
        segments: list[tuple[list[c_ast.Node], isl.Set]] = []
        reach = domain
        any_taken = isl.Set.empty(domain.get_space())
        current: list[c_ast.Node] = []
        for item in items:
            if not is_break(item):
                current.append(item)
                continue
            segments.append((current, reach))
            current = []
            builder = self._builder(Walk(walk.loops, domain, scope))
            try:
                condition = builder.condition(item.cond)
                self.check_requirements(builder, reach, "condition")
            except NonAffine as exc:
                statement = item.iftrue.block_items[0] if isinstance(item.iftrue, c_ast.Compound) else item.iftrue
                raise self.unsupported(
                    f"'break' statement under the condition '{text(item.cond)}'", statement,
                    f"is not supported: the condition is not affine ({exc.what})") from None
            any_taken = any_taken.union(reach.intersect(condition))
            reach = coalesced(reach.subtract(condition))
        segments.append((current, reach))
        # the loop goes on at an iteration when no break was taken at an earlier one
        alive = coalesced(domain.subtract(any_taken.apply(later)))
        pieces: list[isl.Schedule] = []
        for segment, reached in segments:
            piece = self._block(segment, Walk(walk.loops, coalesced(reached.intersect(alive)), scope))
            if piece is not None:
                pieces.append(piece)
        # where the loop stops at a break (set after the segments: their loops reset it)
        self._breaks_taken = coalesced(any_taken.intersect(alive))
        return sequence(pieces)

    def _loop_init(self, node: c_ast.For, scope: Scope, walk: Walk) -> tuple[str, c_ast.Node, str, bool]:
        init = node.init
        if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
            decl = init.decls[0]
            ctype = self.types.ctype(decl.type)
            if not (ctype.is_scalar and ctype.is_integer):
                raise self.unsupported(f"loop iterator '{decl.name}' of type '{ctype.base}'", decl,
                                       "is not supported (it must be an integer)")
            scope.add(Variable(decl.name, ctype, True, decl))
            return decl.name, decl.init, ctype.base, ctype.is_unsigned
        if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
            name = init.lvalue.name
            variable = scope.lookup(name)
            if variable is None or not (variable.ctype.is_scalar and variable.ctype.is_integer):
                raise self.unsupported(f"loop iterator '{name}'", init.lvalue,
                                       "is not supported (it must be an integer variable)")
            if any(l.c_name == name for l in walk.loops):
                raise self.unsupported(f"loop iterator '{name}' of an enclosing loop reused", init.lvalue,
                                       "by an inner loop is not supported")
            if name in self.used_outside and name not in self.epilogue.iterators:  # (the epilogue sets it)
                raise self.unsupported(
                    f"loop iterator '{name}'", init.lvalue,
                    f"is used outside the region (line {self.used_outside[name].coord.line}), which would see "
                    "its final value; not supported: declare it in the loop, 'for (int "
                    f"{name} = ...'")
            return name, init.rvalue, variable.ctype.base, variable.ctype.is_unsigned
        if id(node) in self.notes:
            raise self.unsupported(f"loop initialisation '{text(init)}'", init,
                                   f"of a header with several variables is not supported: the header "
                                   f"{self.notes[id(node)]}")
        raise self.unsupported("loop initialisation" if init is not None else "'for' loop without initialisation",
                               init if init is not None else node, "is not of the form 'i = start'")


class _Wraps(Unsupported):
    """A loop on an unsigned iterator that the plain model cannot bound or keep in its type's range: it
    is modelled again with the iterator wrapping around."""


def _wrap_modulus(ctype) -> int | None:
    """2 to the width of an unsigned integer type narrower than long (its values wrap around modulo it)."""
    words = (ctype.resolved or ctype.base).split()
    if "unsigned" not in words and (ctype.resolved or ctype.base) not in ("uint8_t", "uint16_t", "uint32_t"):
        return None
    if "long" in words:
        return None
    if "char" in words or ctype.resolved == "uint8_t":
        return 2 ** 8
    if "short" in words or ctype.resolved == "uint16_t":
        return 2 ** 16
    return 2 ** 32
