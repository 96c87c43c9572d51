"""Build the isl AST of a schedule, with each loop annotated parallel or not.

A loop is parallel when no dependence is carried by it: among the dependences
between instances with equal outer schedule dimensions, the distance along
the loop's own dimension is zero (the test PPCG's CPU backend makes).  Given
reductions (:mod:`polypragma.reductions`), a loop that carries none but theirs
is annotated with the statements of those reductions, which the printer combines.
"""

from __future__ import annotations

import islpy as isl

from polypragma.isl_helpers import (bounded_operations, coalesced, descendants, iterator_prefix, maps_of,
                                     out_of_operations, parameter, sets_of, union_of, variable)

PARALLEL = "parallel"
SEQUENTIAL = "sequential"
REDUCTION = "reduction"  # "reduction S_1 S_4": parallel but for the reductions of those statements


def carries_no_dependence(schedule: isl.UnionMap, dependences: isl.UnionMap) -> bool:
    """Whether the innermost dimension of ``schedule`` carries none of ``dependences``."""
    on_schedule = dependences.apply_domain(schedule).apply_range(schedule)
    if on_schedule.is_empty():
        return True
    relation = isl.Map.from_union_map(on_schedule)
    depth = relation.dim(isl.dim_type.in_) - 1
    for k in range(depth):
        relation = relation.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
    distances = relation.deltas()
    zero = distances.fix_val(isl.dim_type.set, depth, isl.Val.zero(distances.get_ctx()))
    return distances.is_subset(zero)


def ast_builder(context: isl.Set, prefix: str) -> isl.AstBuild:
    """An AST build within ``context`` whose loop iterators are named ``prefix0``, ``prefix1``, ..."""
    ctx = context.get_ctx()
    names = isl.IdList.alloc(ctx, 0)
    for k in range(64):
        names = names.add(isl.Id(f"{prefix}{k}", context=ctx))
    return isl.AstBuild.from_context(context).set_iterators(names)


def build_ast(schedule: isl.Schedule, context: isl.Set, dependences: isl.UnionMap,
              reserved: frozenset[str], reductions=None) -> isl.AstNode:
    """The AST of ``schedule``, each loop annotated PARALLEL, SEQUENTIAL or, with ``reductions`` (a
    :class:`polypragma.reductions.ReductionDependences`), "REDUCTION S ...": it carries no dependence
    but those of the reductions of the statements named."""
    ctx = context.get_ctx()
    build = ast_builder(context, iterator_prefix(reserved))
    own = []  # (statement, its reduction dependences)
    for r in reductions.reductions if reductions is not None else ():
        mine = isl.UnionSet.from_set(r.write.domain())
        own.append((r.statement, reductions.carried.intersect_domain(mine).intersect_range(mine)))

    def before_for(b: isl.AstBuild) -> isl.Id:
        # (an exception must not cross isl's callback: a loop whose test fails is sequential)
        try:
            at = b.get_schedule()
            if carries_no_dependence(at, dependences):
                return isl.Id(PARALLEL, context=ctx)
            if reductions is not None and carries_no_dependence(at, reductions.coincidence):
                names = [name for name, relation in own if not carries_no_dependence(at, relation)]
                return isl.Id(" ".join([REDUCTION, *names]), context=ctx)
        except isl.Error:
            pass
        return isl.Id(SEQUENTIAL, context=ctx)

    # islpy returns the callback's lifetime handle with the build; keep it alive while building
    build, _handle = build.set_before_each_for(before_for)
    return build.node_from_schedule(schedule)


def is_parallel(node: isl.AstNode) -> bool:
    annotation = node.get_annotation()
    return annotation is not None and annotation.get_name() == PARALLEL


def reductions_carried(node: isl.AstNode) -> tuple[str, ...] | None:
    """The statements whose reductions loop ``node`` alone carries (build_ast's REDUCTION annotation),
    None for a loop without that annotation."""
    annotation = node.get_annotation()
    words = annotation.get_name().split() if annotation is not None else []
    return tuple(words[1:]) if words and words[0] == REDUCTION else None


class CallbackFailures:
    """The isl errors raised inside an AST build's node callbacks: an exception must not cross isl's
    callback, so ``kept(fn)`` returns the node unchanged on an error and keeps the error, which
    ``raise_first`` raises once the build has returned."""

    def __init__(self):
        self.errors: list[isl.Error] = []

    def kept(self, fn):
        def call(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
            try:
                return fn(node, build)
            except isl.Error as error:
                self.errors.append(error)
                return node

        return call

    def raise_first(self) -> None:
        if self.errors:
            raise self.errors[0]


# isl operations the atomic form of a kernel's AST may take before the default form is built instead.
# Over the corpus (every RUN line, the opencl test's six option sets) only conditions.c's kernel goes past
# 4,000,000: with a register tile (-DNX=24 ..., --tile-size 7,8 --block-size 2,4) it needs 6-8 million
# (2.6 s alone, 7 s on a loaded machine), where the default form needs 24-28 million (36 s) and is 27
# times as long (49 KB of C); with WRAP_SIZES (-DNX=7 ...) 4-8 million.  A kernel that fits in neither
# form loses up to this bound (differential program 3258: 16 million operations took 36 s)
ATOMIC_OPERATIONS = 10_000_000
# isl operations the default form may take: past them the kernel is not built (AstPastBound), and its
# region is left as written.  No corpus kernel needs the default form within ATOMIC_OPERATIONS; the
# costliest it built was conditions.c's above (24-28 million).  On differential program 3258 (strided
# loops under modulo guards and disjunctions, wrapped around a 65535-block grid) isl did not finish in
# minutes: 64 million operations took 226 s
DEFAULT_OPERATIONS = 40_000_000
# isl operations the atomic form may take without building partly spanned tile loops apart, before
# they are built apart (build_kernel_ast).  Over the corpus (every RUN line; cuda, opencl --vector-copies
# and opencl --tile-size 7,8 --block-size 2,4) the kernels with such a loop need 125,000 operations
# without it (strides.c) or 1,000,000 and more (conditions.c, nested_exits.c, switch_cases.c), where
# the loop built apart halves nested_exits's code
UNSEPARATED_OPERATIONS = 500_000
# isl operations for the divisions of a kernel schedule's existential variables (_known_divisions)
KNOWN_DIVISIONS_OPERATIONS = 1_000_000


class AstPastBound(Exception):
    """A kernel's AST past the bounds of both forms of isl's AST build."""


def build_kernel_ast(context: isl.Set, schedule: isl.UnionMap, prefix: str, unroll=(),
                     at_each_domain=None, mapping_steps=frozenset(), tile_dims=range(0)) -> isl.AstNode:
    """The AST of a kernel's ``schedule`` (a map), every loop generated once ("atomic") or unrolled.

    isl's default separates the loop for each piece of a statement's domain; in a kernel whose
    statements have disjunctive guards (``i == j || k == 0``, ``%``) that multiplies the code (ten
    times and more with wrapped tiles) and the build time, and every copy is divergent code on the
    device.  Atomic loops keep one loop per level with the guards inside.  On some schedules the
    atomic form is the costly one instead (it simplifies each statement's guards over the union of
    the pieces): past ATOMIC_OPERATIONS isl operations the default form is built.
    ``at_each_domain(node, build)``, when given, may rewrite each statement's node.
    ``mapping_steps`` are the steps of the loops that wrap tiles around the grid and points around
    a block (the grid and block sizes): the same residue for every statement, not rebuilt.
    ``tile_dims`` are the loops over the mapped tiles: one that some statements span and others do not
    (they run in one tile only, as the statements of a shallower nest fused with a deeper one) is
    built in the default form unless the kernel without that fits UNSEPARATED_OPERATIONS: the atomic
    form bounds it by the maximum of every statement's bounds, piece by piece (nested_exits's kernel:
    0.7 s instead of 1.2 s, and half as long)."""
    # isl's AST build has written wrong guards (one parameter in place of another, inside integer
    # divisions) for a schedule whose parameters came in another order than the context's
    # (tests/differential/regressions/ast_parameter_order.c): both get one order first
    context = context.align_params(schedule.get_space())
    schedule = schedule.align_params(context.get_space())
    # the tiles' existential variables, with the equalities among them found, simplify: on one kernel
    # (program 1516 of the differential test) the atomic form took 70 s before and 11 s after, and the
    # corpus's CUDA code is a little smaller (7 of 84 kernels changed) and faster to build
    # the context first: a parameter it bounds (a block or thread index) becomes a constant where the
    # mapping's residues fix it ((t1) mod 16 = 0 with 0 <= t1 <= 15 is t1 = 0); nested_exits's kernel
    # then takes 1.2 s instead of failing the atomic form's bound (1 s in vain) and its code is half as long
    schedule = coalesced(schedule.intersect_params(context).detect_equalities())
    spanned = set(partly_spanned(schedule, tile_dims))
    # a loop built apart can cost far more than the whole kernel without it: on differential program
    # 4170 (opencl, a statement in the first tile of the first tile loop only) 26-68 s and 17 KB of code,
    # against 0.1 s and 750 bytes without.  Where the kernel without it is cheap, it is kept
    attempts = [(UNSEPARATED_OPERATIONS, set()), (ATOMIC_OPERATIONS, spanned)] if spanned else \
        [(ATOMIC_OPERATIONS, set())]
    for bound, separate in attempts:
        try:
            with bounded_operations(context.get_ctx(), bound):
                ast = _atomic_ast(context, schedule, prefix, unroll, at_each_domain, mapping_steps, separate)
            if ast is not None:
                return ast
        except isl.Error:
            pass
    # (the atomic form kept as it was: there, divisions lengthened seidel_2d's code by a fifth)
    schedule = _known_divisions(schedule)
    try:
        with bounded_operations(context.get_ctx(), DEFAULT_OPERATIONS):
            return _kernel_ast(context, schedule, prefix, unroll, at_each_domain, atomic=False)
    except isl.Error as error:
        if out_of_operations(error):
            raise AstPastBound(f"isl's AST build went past {DEFAULT_OPERATIONS:,} operations") from None
        raise


def _atomic_ast(context: isl.Set, schedule: isl.UnionMap, prefix: str, unroll, at_each_domain, mapping_steps,
                separate: set[int]) -> isl.AstNode | None:
    """The atomic form of a kernel's AST with the dimensions ``separate`` built in isl's default form,
    and the dimensions whose loops it strides too; None where a rebuild strides others."""
    ast = _kernel_ast(context, schedule, prefix, unroll, at_each_domain, atomic=True, separate=separate)
    strided = strided_dimensions(ast, prefix, mapping_steps, schedule) - separate
    if not strided:
        return ast
    # isl's atomic form has started a strided loop off its stride's residue (a statement whose domain
    # holds only every other value ran at the values in between:
    # tests/differential/regressions/atomic_kernel_wrong.c); a strided dimension is built in the
    # default form, which is right
    strided |= separate
    ast = _kernel_ast(context, schedule, prefix, unroll, at_each_domain, atomic=True, separate=strided)
    return None if strided_dimensions(ast, prefix, mapping_steps, schedule) - strided else ast


def _known_divisions(schedule: isl.UnionMap) -> isl.UnionMap:
    """``schedule`` with each map's existential variables written as integer divisions where isl finds
    them within KNOWN_DIVISIONS_OPERATIONS (``exists e: ...`` becomes ``floor(.../k)``), unchanged
    otherwise.  A kernel inside host loops has them from the host's values (program 4080 of the
    differential test, opencl --no-private-memory --tile-size 32,3,16: four alike in each of six
    pieces), and isl's default AST form took 32.7 s on them, 2.6 s once they were divisions."""
    maps = maps_of(schedule)
    if all(m.remove_unknown_divs().plain_is_equal(m) for m in maps):
        return schedule
    try:
        with bounded_operations(schedule.get_ctx(), KNOWN_DIVISIONS_OPERATIONS):
            return union_of(isl.UnionMap.from_map(coalesced(m.compute_divs())) for m in maps)
    except isl.Error as error:
        if out_of_operations(error):
            return schedule
        raise


def partly_spanned(schedule: isl.UnionMap, dims) -> list[int]:
    """The dimensions among ``dims`` that some maps of ``schedule`` fix to one value and others do not."""
    ranges = [m.range() for m in maps_of(schedule)]
    out = []
    for d in dims:
        fixed = [not r.plain_get_val_if_fixed(isl.dim_type.set, d).is_nan() for r in ranges]
        if any(fixed) and not all(fixed):
            out.append(d)
    return out


def strided_dimensions(ast: isl.AstNode, prefix: str, ignored=frozenset(),
                       schedule: isl.UnionMap | None = None) -> set[int]:
    """The schedule dimensions of the loops of ``ast`` (iterators ``prefix<d>``) whose step is neither
    one nor in ``ignored``; and, where ``schedule`` (the map ``ast`` was built from) is given, those
    whose step is in ``ignored`` but whose start is not the residue the schedule gives them modulo it.
    isl's atomic form started a tile loop wrapped around a grid of 2 at a tile of the other block
    (``k1 = k0 + floord(...)``, with ``(b1 + k1) mod 2 = 0`` in the schedule: a thread ran an instance
    outside its tiles, and wrote out of the domain; tests/differential/regressions/wrapped_tile_start.c)."""
    found: set[int] = set()
    anchors: dict[tuple[int, int], dict | None] = {}
    for node in descendants(ast):
        if node.get_type() != isl.ast_node_type.for_:
            continue
        step = node.for_get_inc()
        value = step.get_val().to_python() if step.get_type() == isl.ast_expr_type.int else None
        name = node.for_get_iterator().get_id().get_name()
        dim = int(name[len(prefix):])
        if value is None or (value != 1 and value not in ignored):
            found.add(dim)
        elif value != 1 and schedule is not None:
            if (dim, value) not in anchors:
                anchors[dim, value] = _residue(schedule, dim, value)
            anchor = anchors[dim, value]
            start = _linear_modulo(node.for_get_init(), value)
            # (a constant start isl wrote where the guards fix the index: conditions.c's t0 = 0, t1 = 3)
            constant = start is not None and set(start) <= {""}
            if anchor is None or (start != anchor and not constant):
                found.add(dim)
    return found


def _residue(schedule: isl.UnionMap, dim: int, step: int) -> dict[str, int] | None:
    """``{p: c}`` where every value of ``schedule``'s dimension ``dim`` is ``c p`` modulo ``step`` for
    a parameter ``p`` (a block or thread index, for a loop that wraps tiles or points around them),
    ``c`` one or minus one (modulo ``step``); None where no parameter gives its residue."""
    ranges = [r for r in sets_of(schedule.range()) if r.dim(isl.dim_type.set) > dim]
    if not ranges:
        return None
    space = ranges[0].get_space()
    for k in range(space.dim(isl.dim_type.param)):
        name = space.get_dim_name(isl.dim_type.param, k)
        for sign in (1, -1):
            if all(r.is_subset(_congruence(r.get_space(), dim, name, sign, step)) for r in ranges):
                return {name: sign % step}
    return None


def _congruence(space: isl.Space, dim: int, name: str, sign: int, step: int) -> isl.Set:
    """``{ [o] : o_dim = sign * name (mod step) }`` on ``space``."""
    difference = variable(space, isl.dim_type.set, dim) - parameter(space, name).scale_val(isl.Val(sign))
    return difference.mod_val(isl.Val(step)).zero_set()


def _linear_modulo(expr: isl.AstExpr, step: int) -> dict[str, int] | None:
    """The AST expression ``expr`` modulo ``step`` as ``{name: coefficient}`` (the constant under ``""``,
    zero coefficients left out); None where it is not linear modulo ``step`` (a division, a remainder, a
    minimum of values with different residues)."""
    kind = expr.get_type()
    if kind == isl.ast_expr_type.int:
        constant = expr.get_val().to_python() % step
        return {"": constant} if constant else {}
    if kind == isl.ast_expr_type.id:
        return {expr.get_id().get_name(): 1 % step} if 1 % step else {}
    op = expr.get_op_type()
    args = [expr.get_op_arg(k) for k in range(expr.get_op_n_arg())]
    if op == isl.ast_expr_op_type.mul:
        for k in (0, 1):
            if args[k].get_type() == isl.ast_expr_type.int:
                factor = args[k].get_val().to_python() % step
                other = {} if factor == 0 else _linear_modulo(args[1 - k], step)
                return None if other is None else _scaled(other, factor, step)
        return None
    if op == isl.ast_expr_op_type.minus:
        inner = _linear_modulo(args[0], step)
        return None if inner is None else _scaled(inner, -1, step)
    if op in (isl.ast_expr_op_type.add, isl.ast_expr_op_type.sub):
        left, right = _linear_modulo(args[0], step), _linear_modulo(args[1], step)
        if left is None or right is None:
            return None
        sign = 1 if op == isl.ast_expr_op_type.add else -1
        total = dict(left)
        for name, coefficient in right.items():
            total[name] = (total.get(name, 0) + sign * coefficient) % step
        return {name: c for name, c in total.items() if c}
    if op in (isl.ast_expr_op_type.pdiv_r, isl.ast_expr_op_type.zdiv_r):
        # a - c q for some q: the residue of a, modulo a divisor of c
        divisor = args[1]
        if divisor.get_type() == isl.ast_expr_type.int and divisor.get_val().to_python() % step == 0:
            return _linear_modulo(args[0], step)
        return None
    # a choice between values of one residue (the atomic form's max(b0, b0 + 65535 floord(...))) has it
    choices = {isl.ast_expr_op_type.max: args, isl.ast_expr_op_type.min: args,
               isl.ast_expr_op_type.select: args[1:], isl.ast_expr_op_type.cond: args[1:]}.get(op)
    if choices:
        residues = [_linear_modulo(choice, step) for choice in choices]
        if residues[0] is not None and all(r == residues[0] for r in residues):
            return residues[0]
    return None


def _scaled(terms: dict[str, int], factor: int, step: int) -> dict[str, int]:
    scaled = {name: (c * factor) % step for name, c in terms.items()}
    return {name: c for name, c in scaled.items() if c}


def _kernel_ast(context: isl.Set, schedule: isl.UnionMap, prefix: str, unroll, at_each_domain,
                atomic: bool, separate: set[int] = frozenset()) -> isl.AstNode:
    ctx = context.get_ctx()
    build = ast_builder(context, prefix)
    widths = sorted({s.dim(isl.dim_type.set) for s in sets_of(schedule.range())})
    options = [f"[{', '.join(f'i{k}' for k in range(w))}] -> {'unroll' if d in unroll else 'atomic'}[{d}]"
               for w in widths for d in range(w) if d in unroll or (atomic and d not in separate)]
    if options:
        build = build.set_options(isl.UnionMap(f"{{ {'; '.join(options)} }}", context=ctx))
    failures = CallbackFailures()
    if at_each_domain is not None:
        # islpy returns the callback's lifetime handle with the build; keep it alive while building
        build, _handle = build.set_at_each_domain(failures.kept(at_each_domain))
    ast = build.node_from_schedule_map(schedule)
    failures.raise_first()
    return ast

