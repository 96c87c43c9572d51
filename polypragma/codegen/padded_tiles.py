"""Partial register tiles computed whole: a kernel's computations padded to the full mapped tile.

A thread of a register tile runs its points of the mapped loops innermost, unrolled.  Where a tile
is partial (the array's last rows or columns), each unrolled point needs its own guard, and a tiled
loop inside the points tests them at every step; isl's isolate option takes the full tiles apart
from the partial ones at twice the AST's cost (gemm's kernel: 1.1 million isl operations without,
2.1 million with).  Instead, where it is safe, the computations' instances are padded: each one
stands for the whole box of the mapped tile along the mapped points, the other coordinates (the
tiles, the deeper loops) kept, so that every tile is full and no point has a guard.  The copies
between registers, shared memory and global memory keep the real instances: only values in registers
and shared memory are computed for nothing.

Safe means, checked by isl on the functions the AST uses (:func:`unsafe`):

* a padded statement is an assignment of plain arithmetic (``+ - *``, constants, loop iterators,
  read-only scalars) on floating-point elements of promoted groups only: an extra instance touches
  no global memory, divides nothing by zero and branches on nothing it computed;
* every promoted index of an extra instance is inside its shared tile or register array;
* what an extra instance writes, no real instance of the same mapped tile reads or writes (the same
  register of the same thread, the same element of a shared tile); the copies move only what real
  instances access.

Safety is checked statement by statement.  A statement outside the deepest loops (fewer loops around
it) may keep its real instances, each with its guard: it runs once for a whole run of the deepest
loops (a product's store of its local sum to global memory, at the last step of k), so its guards
cost little, and the deepest statements run unguarded.  Where a deepest statement is not safe, no
statement is padded, and the kernel is built as before (its full tiles apart).  PPCG generates
partial tiles with guards; padding a tile's computations is the way hand-written matrix-product
kernels avoid them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import islpy as isl
from pycparser import c_ast

from polypragma.gpu.memory import Placement
from polypragma.isl_helpers import coalesced, function_of, maps_of, set_named, sets_of

if TYPE_CHECKING:
    from polypragma.codegen.kernel_tree import KernelTree

FLOATING = frozenset({"float", "double"})
ASSIGNMENTS = frozenset({"=", "+=", "-=", "*="})
OPERATORS = frozenset({"+", "-", "*"})


def candidate(domain: isl.UnionSet, to_tiles: isl.UnionMap, to_points: isl.UnionMap, mapped: int,
              tile_sizes) -> dict[str, tuple[isl.Set, isl.Map, isl.Map]]:
    """By statement name, (instances, their tiles, their points) with the statement's instances padded to
    the box of the mapped tile along the first ``mapped`` points, the other tile and point coordinates
    those of a real instance; a statement whose schedule, taken off the domain (isl's gist), is not
    one-to-one is not in it."""
    tiles = isl.Set.from_union_set(to_tiles.range()).dim(isl.dim_type.set)
    points_by_name = {m.get_tuple_name(isl.dim_type.in_): m for m in maps_of(to_points)}
    out = {}
    for tiled in maps_of(to_tiles):
        name = tiled.get_tuple_name(isl.dim_type.in_)
        real = tiled.domain()
        pointed = points_by_name.get(name)
        if pointed is None:
            continue
        tile_of = tiled.gist_domain(real)
        point_of = pointed.gist_domain(real)
        both = tile_of.flat_range_product(point_of)
        if not both.is_single_valued():
            continue
        image = both.intersect_domain(real).range()
        box = image.project_out(isl.dim_type.set, tiles, mapped).insert_dims(isl.dim_type.set, tiles, mapped)
        for d in range(mapped):
            box = box.lower_bound_val(isl.dim_type.set, tiles + d, isl.Val(0, context=box.get_ctx()))
            box = box.upper_bound_val(isl.dim_type.set, tiles + d, isl.Val(tile_sizes[d] - 1, context=box.get_ctx()))
        # (a preimage by the function, not the relation's domain: isl then cancels the divisions of
        # a tile and its point, 32 floor(k/32) + (k mod 32) = k, and the set stays as simple as the domain)
        instances = coalesced(box.preimage_pw_multi_aff(function_of(both)))
        if not real.is_subset(instances) or not both.intersect_domain(instances).is_injective():
            continue
        out[name] = (instances, tile_of.intersect_domain(instances), point_of.intersect_domain(instances))
    return out


def deepest(domain: isl.UnionSet) -> frozenset[str]:
    """The statements of ``domain`` with the most loops around them: those whose guards the steps of
    the loops inside a register tile's points would test (the others run once for a whole run of
    the deepest loops, like a product's reset and store beside its sum's loop)."""
    loops = {s.get_tuple_name(): s.dim(isl.dim_type.set) for s in sets_of(domain)}
    most = max(loops.values(), default=0)
    return frozenset(name for name, n in loops.items() if n == most)


def unsafe(tree: KernelTree, padded: frozenset[str]) -> frozenset[str]:
    """Those of the statements ``padded`` (in ``tree.computed``) whose padding is not safe (see the
    module's docstring): what an extra instance of one writes is checked against the real instances
    of every statement."""
    scop, kernel = tree.scop, tree.kernel
    written = {name for a in scop.written_arrays() for name in (a.name, a.c_name or a.name)}
    threads = tree.threads()
    context = kernel.context
    keys_written, keys_real = [], []
    out = set()
    for instances in sets_of(tree.computed):
        name = instances.get_tuple_name()
        real = set_named(tree.domain, name)
        references = tree.references(name)
        for ref, group, index in references:
            if group is not None:
                keys_real.append((group, _key(tree, group, index, name).intersect_domain(real)))
        if name not in padded:
            continue
        if not _safe_alone(tree, name, instances, references, written, threads, context):
            out.add(name)
            continue
        for ref, group, index in references:
            if group is not None and ref.is_write:
                keys_written.append((name, group, _key(tree, group, index, name).intersect_domain(
                    instances.subtract(real))))
    for name, group, extra in keys_written:
        if name not in out and any(other is group and not _images(extra).intersect(_images(key)).is_empty()
                                   for other, key in keys_real):
            out.add(name)
    return frozenset(out)


def _safe_alone(tree: KernelTree, name: str, instances: isl.Set, references, written: set, threads: isl.UnionSet,
                context: isl.Set) -> bool:
    """Whether the padded ``instances`` of statement ``name`` are plain arithmetic on promoted floating-point
    elements, every index inside its tile or register array."""
    scop = tree.scop
    statement = next(s for s in scop.statements if s.name == name)
    promoted = {id(ref.node) for ref, group, _ in references if group is not None}
    if not _plain(statement.body, promoted, written, top=True):
        return False
    for ref in scop.references:
        if ref.statement == name and (isinstance(ref.node, c_ast.ArrayRef) and id(ref.node) not in promoted
                                      or ref.is_write and not isinstance(ref.node, c_ast.ArrayRef)):
            return False
    running = instances.intersect(set_named(threads, name))
    running = running.intersect_params(context.align_params(running.get_space()))
    for ref, group, index in references:
        if group is None:
            continue
        if group.array.device_type not in FLOATING:
            return False
        extents = group.shape() if group.placement is Placement.SHARED else group.counts
        if not _inside(index, running, extents):
            return False
    return True


def _plain(node: c_ast.Node, promoted: set, written: set, top: bool = False) -> bool:
    """Whether ``node`` is plain arithmetic on promoted elements (an assignment to one at the top)."""
    if top:
        return (isinstance(node, c_ast.Assignment) and node.op in ASSIGNMENTS
                and isinstance(node.lvalue, c_ast.ArrayRef) and id(node.lvalue) in promoted
                and _plain(node.rvalue, promoted, written))
    if isinstance(node, c_ast.ArrayRef):
        return id(node) in promoted
    if isinstance(node, c_ast.Constant):
        return True
    if isinstance(node, c_ast.ID):
        return node.name not in written
    if isinstance(node, c_ast.BinaryOp):
        return node.op in OPERATORS and _plain(node.left, promoted, written) and _plain(node.right, promoted, written)
    if isinstance(node, c_ast.UnaryOp):
        return node.op in ("-", "+") and _plain(node.expr, promoted, written)
    return False


def _inside(index: isl.PwMultiAff, running: isl.Set, extents) -> bool:
    """Whether ``index`` is within ``[0, extent)`` along each dimension on all of ``running``.  Each
    dimension's graph on ``running`` is checked against the box (isl computing the sets where the
    function is below 0 and at or past the extent took 0.5 s a call on control_flow.c's register
    tiles, the graph 3 ms)."""
    for d, extent in enumerate(extents):
        pa = index.get_pw_aff(d)
        on = running.align_params(pa.get_domain_space())
        pa = pa.align_params(on.get_space())
        if not on.is_subset(pa.domain()):
            return False
        graph = isl.Map.from_pw_aff(pa.intersect_domain(on))
        ctx = on.get_ctx()
        box = isl.Set.universe(graph.get_space().range()) \
            .lower_bound_val(isl.dim_type.set, 0, isl.Val(0, context=ctx)) \
            .upper_bound_val(isl.dim_type.set, 0, isl.Val(extent - 1, context=ctx))
        if not graph.subtract_range(box).is_empty():
            return False
    return True


def _key(tree: KernelTree, group, index: isl.PwMultiAff, name: str) -> isl.Map:
    """``{ S[i] -> [mapped tile, place] }``: what identifies the storage an instance's reference uses
    within a mapped tile: the element of the shared tile, or (registers) the point, which fixes the
    thread and its register."""
    mapped = tree.tiling.mapped
    tiles = next(m for m in maps_of(tree.computed_tiles) if m.get_tuple_name(isl.dim_type.in_) == name)
    tiles = tiles.project_out(isl.dim_type.out, mapped, tiles.dim(isl.dim_type.out) - mapped)
    if group.placement is Placement.SHARED:
        place = isl.Map.from_pw_multi_aff(index)
    else:
        place = next(m for m in maps_of(tree.computed_points) if m.get_tuple_name(isl.dim_type.in_) == name)
        place = place.project_out(isl.dim_type.out, mapped, place.dim(isl.dim_type.out) - mapped)
    tiles = tiles.reset_tuple_id(isl.dim_type.out)
    place = place.reset_tuple_id(isl.dim_type.out).align_params(tiles.get_space())
    tiles = tiles.align_params(place.get_space())
    return tiles.flat_range_product(place)


def _images(key: isl.Map) -> isl.Set:
    return key.range().reset_tuple_id()
