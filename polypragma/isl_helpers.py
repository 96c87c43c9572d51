"""Small isl helpers every stage uses, in one place instead of a copy per module.

* :func:`bounded_operations`: a bound on the work isl may do, for the analyses that give up past it
  (the dataflow analysis, the scheduler, the memory analysis, the atomic form of a kernel's AST):
  past the bound isl raises isl.Error ("maximal number of operations exceeded") and the caller falls
  back; :func:`out_of_operations` tells that error from others.
* :func:`coalesced`: a relation coalesced, or as it is where isl's coalescing fails.
* :func:`maps_of`, :func:`sets_of`, :func:`single_map`: the pieces of a union, and its maps as one map;
  :func:`function_of`: a single-valued map as a function;
  :func:`set_named`: the set of one statement in a union; :func:`union_of`: pieces as one union.
* :func:`variable`, :func:`parameter`, :func:`with_params`: a dimension or a parameter as a function
  on a space (the parameter added where the space lacks it), so isl objects are built through the API
  rather than parsed from text.
* :func:`iterator_prefix`: a prefix for generated iterators that no name of the program has.
"""

from __future__ import annotations

import re
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


def out_of_operations(error: isl.Error) -> bool:
    """Whether ``error`` is isl's for a bound of :func:`bounded_operations` reached (isl reports it
    only in the message)."""
    return "maximal number of operations exceeded" in str(error)


def coalesced(relation):
    """``relation`` coalesced, or as it is where isl's coalescing fails.  Coalescing only simplifies, and
    isl has failed on some unions: "cannot relax redundant constraint" (differential programs 1602 and
    1603 of seed 6), "original tableau does not correspond to original basic map" (6945), an assertion
    in isl_convex_hull.c (6975); each region was left as written.  Every stage coalesces through this
    function.  A bound of :func:`bounded_operations` reached still raises: the caller's fallback for
    work past its bound applies."""
    try:
        return relation.coalesce()
    except isl.Error as error:
        if out_of_operations(error):
            raise
        return relation


def maps_of(umap: isl.UnionMap) -> list[isl.Map]:
    """The maps of ``umap``, one per space, in isl's order."""
    maps = umap.get_map_list()
    return [maps.get_at(k) for k in range(maps.n_map())]


def sets_of(uset: isl.UnionSet) -> list[isl.Set]:
    """The sets of ``uset``, one per space, in isl's order."""
    sets = uset.get_set_list()
    return [sets.get_at(k) for k in range(sets.n_set())]


def set_named(uset: isl.UnionSet, name: str) -> isl.Set:
    """The set of ``uset`` whose tuple is ``name`` (a statement's instances)."""
    for s in sets_of(uset):
        if s.get_tuple_name() == name:
            return s
    raise KeyError(name)


def union_of(pieces):
    """The union of ``pieces`` (isl unions of one kind, or sets or maps of one space); None for none."""
    result = None
    for piece in pieces:
        result = piece if result is None else result.union(piece)
    return result


def function_of(relation: isl.Map) -> isl.PwMultiAff:
    """The function a single-valued ``relation`` is, made disjunct by disjunct where it has several:
    isl's conversion of the whole relation took 35 s (and counted too few operations to stop at its
    bound) on a register tile's coordinates over a grid wrapped by 65,535 blocks, whose three
    disjuncts took 1.9 s one at a time (differential program 4590).  Where disjuncts overlap, they
    agree: the relation is a function, so the least value of the two is the value."""
    pieces = relation.get_basic_maps()
    if len(pieces) <= 1:
        return isl.PwMultiAff.from_map(relation)
    function = None
    for piece in pieces:
        part = isl.PwMultiAff.from_map(isl.Map.from_basic_map(piece))
        function = part if function is None else function.union_lexmin(part)
    return function


def common_piece(function: isl.PwAff | isl.PwMultiAff):
    """The affine expression every piece of ``function`` has, or None (none, or pieces that differ)."""
    pieces = []
    function.foreach_piece(lambda _, expression: pieces.append(expression))
    if pieces and all(expression.plain_is_equal(pieces[0]) for expression in pieces[1:]):
        return pieces[0]
    return None


def single_map(umap: isl.UnionMap) -> isl.Map | None:
    """The union of the maps of ``umap`` as one map (their spaces must agree); None when it has none."""
    maps = maps_of(umap)
    if not maps:
        return None
    result = maps[0]
    for m in maps[1:]:
        result = result.union(m)
    return result


def descendants(node):
    """``node`` (of a schedule tree or an AST) and every node below it, top down.  Work on them is done
    on the list, not in isl's callback: islpy reports an exception raised there (an isl operation past
    its bound) as a warning and ignores it, and isl went on from a broken state (differential program
    5378: past the bound inside ``strided_dimensions``'s visit, then "malloc_consolidate(): unaligned
    fastbin chunk detected" and an abort)."""
    out = []

    def collect(n) -> bool:
        out.append(n.copy())  # (isl lends the callback its node)
        return True

    node.foreach_descendant_top_down(collect)
    return out


def any_band(node: isl.ScheduleNode, test=lambda band: True) -> bool:
    """Whether a band node at or below ``node`` passes ``test`` (any band, by default)."""
    return any(n.get_type() == isl.schedule_node_type.band and test(n) for n in descendants(node))


def rewrite_bands(schedule: isl.Schedule, rewrite) -> isl.Schedule:
    """``schedule`` with each band node, from the root down, replaced by ``rewrite(node)`` (a node at
    the same position of the rewritten tree) where that is not None; the children of what stands there
    are visited next."""
    def walk(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == isl.schedule_node_type.band:
            node = rewrite(node) or node
        for k in range(node.n_children()):
            node = walk(node.child(k)).parent()
        return node

    root = schedule.get_root()
    if root.n_children() == 0:
        return schedule
    return walk(root.child(0)).get_schedule()


def permuted_range(umap: isl.UnionMap, order) -> isl.UnionMap:
    """``umap`` (whose range has one space) with its range dimension ``d`` taken from dimension
    ``order[d]``, for the leading ones; the dimensions past ``order`` keep their place."""
    space = isl.Set.from_union_set(umap.range()).get_space()
    identity = isl.MultiAff.identity(space.map_from_set())
    permutation = identity
    for d, source in enumerate(order):
        permutation = permutation.set_aff(d, identity.get_aff(source))
    return umap.apply_range(isl.UnionMap.from_map(isl.Map.from_multi_aff(permutation)))


def coordinates(domain: isl.Set, first: int, count: int) -> isl.Map:
    """``{ X[d_0 ..] -> [d_first .. d_{first+count-1}] }`` on ``domain``."""
    n = domain.dim(isl.dim_type.set)
    identity = isl.Map.identity(domain.get_space().map_from_set())
    projected = identity.project_out(isl.dim_type.out, first + count, n - first - count)
    projected = projected.project_out(isl.dim_type.out, 0, first)
    return projected.reset_tuple_id(isl.dim_type.out).intersect_domain(domain)


def range_dims(umap: isl.UnionMap, first: int, count: int) -> isl.UnionMap:
    """``umap`` with only its range dimensions ``first .. first + count - 1``."""
    pieces = []
    for m in maps_of(umap):
        n = m.dim(isl.dim_type.out)
        pieces.append(isl.UnionMap.from_map(
            m.project_out(isl.dim_type.out, first + count, n - first - count).project_out(isl.dim_type.out, 0, first)))
    return union_of(pieces) if pieces else umap


def with_params(space: isl.Space, names) -> isl.Space:
    """``space`` with those of the parameters ``names`` it lacks added after its own, in order."""
    for name in names:
        if space.find_dim_by_name(isl.dim_type.param, name) < 0:
            n = space.dim(isl.dim_type.param)
            space = space.add_dims(isl.dim_type.param, 1).set_dim_name(isl.dim_type.param, n, name)
    return space


def variable(space: isl.Space, kind, position: int) -> isl.PwAff:
    """Dimension ``position`` of ``kind`` (set or param) as a function on the set space ``space``."""
    return isl.PwAff.from_aff(isl.Aff.var_on_domain(isl.LocalSpace.from_space(space), kind, position))


def parameter(space: isl.Space, name: str) -> isl.PwAff:
    """The parameter ``name`` as a function on the set space ``space`` (with it added when missing)."""
    space = with_params(space, [name])
    return variable(space, isl.dim_type.param, space.find_dim_by_name(isl.dim_type.param, name))


def params_within(params: isl.Set, bounds: dict[str, tuple[int, int]]) -> isl.Set:
    """``params`` (a set of parameter values) with each parameter ``bounds`` names, that it has, within
    its interval ``(low, high)``."""
    local = isl.LocalSpace.from_space(params.get_space())
    for name, (low, high) in bounds.items():
        k = params.get_space().find_dim_by_name(isl.dim_type.param, name)
        if k < 0:
            continue
        value = isl.Aff.var_on_domain(local, isl.dim_type.param, k)
        for nonneg in (value.add_constant_val(isl.Val(str(-low), context=params.get_ctx())),
                       value.neg().add_constant_val(isl.Val(str(high), context=params.get_ctx()))):
            params = params.add_constraint(isl.Constraint.inequality_from_aff(nonneg))
    return params


def most_of(function: isl.PwAff, params: isl.Set) -> isl.Val:
    """The largest value of ``function`` (over the parameters) where they are in ``params``: infinity where
    it has none, NaN where ``params`` leaves it no value."""
    return function.intersect_params(params.align_params(function.get_space())).max_val()


def iterator_prefix(reserved: frozenset[str] | set[str], preferred: str = "c") -> str:
    """A prefix ``p`` such that no reserved name has the form ``p<digits>``."""
    for prefix in (preferred, f"pp_{preferred}", f"polypragma_{preferred}"):
        pattern = re.compile(re.escape(prefix) + r"\d+$")
        if not any(pattern.match(name) for name in reserved):
            return prefix
    k = 0
    while any(re.match(rf"polypragma{k}_c\d+$", name) for name in reserved):
        k += 1
    return f"polypragma{k}_c"
