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

Safe means, checked by isl on the functions the AST uses (:func:`safe`):

* every statement is an assignment of plain arithmetic (``+ - *``, constants, loop iterators,
  read-only scalars) on floating-point elements of promoted groups only: an extra instance touches
  no global memory, divides nothing by zero and branches on nothing it computed;
* every promoted index of an extra instance is inside its shared tile or register array;
* what an extra instance writes, no real instance of the same mapped tile reads or writes (the same
  register of the same thread, the same element of a shared tile); the copies move only what real
  instances access.

Where any of it fails, the kernel is built as before (its full tiles apart).  PPCG generates
partial tiles with guards; padding a tile's computations is the way hand-written matrix-product
kernels avoid them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import islpy as isl
from pycparser import c_ast

from polypragma.gpu.memory import Placement
from polypragma.isl_helpers import maps_of, set_named, sets_of, union_of

if TYPE_CHECKING:
    from polypragma.codegen.kernel_ast import KernelTree

FLOATING = frozenset({"float", "double"})
ASSIGNMENTS = frozenset({"=", "+=", "-=", "*="})
OPERATORS = frozenset({"+", "-", "*"})


def candidate(domain: isl.UnionSet, to_tiles: isl.UnionMap, to_points: isl.UnionMap, mapped: int,
              tile_sizes) -> tuple[isl.UnionSet, isl.UnionMap, isl.UnionMap] | None:
    """(instances, their tiles, their points) with each statement's instances padded to the box of
    the mapped tile along the first ``mapped`` points, the other tile and point coordinates those of
    a real instance; None where the schedule, taken off the domain (isl's gist), is not one-to-one."""
    tiles = isl.Set.from_union_set(to_tiles.range()).dim(isl.dim_type.set)
    points_by_name = {m.get_tuple_name(isl.dim_type.in_): m for m in maps_of(to_points)}
    padded, padded_tiles, padded_points = [], [], []
    for tiled in maps_of(to_tiles):
        name = tiled.get_tuple_name(isl.dim_type.in_)
        real = tiled.domain()
        pointed = points_by_name.get(name)
        if pointed is None:
            return None
        tile_of = tiled.gist_domain(real)
        point_of = pointed.gist_domain(real)
        both = tile_of.flat_range_product(point_of)
        if not both.is_single_valued():
            return None
        image = both.intersect_domain(real).range()
        box = image.project_out(isl.dim_type.set, tiles, mapped).insert_dims(isl.dim_type.set, tiles, mapped)
        for d in range(mapped):
            box = box.lower_bound_val(isl.dim_type.set, tiles + d, isl.Val(0, context=box.get_ctx()))
            box = box.upper_bound_val(isl.dim_type.set, tiles + d, isl.Val(tile_sizes[d] - 1, context=box.get_ctx()))
        # (a preimage by the function, not the relation's domain: isl then cancels the divisions of
        # a tile and its point, 32 floor(k/32) + (k mod 32) = k, and the set stays as simple as the domain)
        instances = box.preimage_pw_multi_aff(isl.PwMultiAff.from_map(both)).coalesce()
        if not real.is_subset(instances) or not both.intersect_domain(instances).is_injective():
            return None
        padded.append(isl.UnionSet.from_set(instances))
        padded_tiles.append(isl.UnionMap.from_map(tile_of.intersect_domain(instances)))
        padded_points.append(isl.UnionMap.from_map(point_of.intersect_domain(instances)))
    if not padded or len(padded) != len(maps_of(to_points)):
        return None
    return union_of(padded), union_of(padded_tiles).coalesce(), union_of(padded_points).coalesce()


def safe(tree: KernelTree) -> bool:
    """Whether ``tree``'s padded computations (``tree.computed``) are safe (see the module's docstring)."""
    scop, kernel = tree.scop, tree.kernel
    written = {name for a in scop.written_arrays() for name in (a.name, a.c_name or a.name)}
    threads = tree.threads()
    context = kernel.context
    keys_written, keys_real = [], []
    for padded in sets_of(tree.computed):
        name = padded.get_tuple_name()
        statement = next(s for s in scop.statements if s.name == name)
        real = set_named(tree.domain, name)
        references = tree.references(name)
        promoted = {id(ref.node) for ref, group, _ in references if group is not None}
        if not _plain(statement.body, promoted, written, top=True):
            return False
        for ref in scop.references:
            if ref.statement == name and (isinstance(ref.node, c_ast.ArrayRef) and id(ref.node) not in promoted
                                          or ref.is_write and not isinstance(ref.node, c_ast.ArrayRef)):
                return False
        running = padded.intersect(set_named(threads, name))
        running = running.intersect_params(context.align_params(running.get_space()))
        for ref, group, index in references:
            if group is None:
                continue
            if group.array.device_type not in FLOATING:
                return False
            extents = group.sizes if group.placement is Placement.SHARED else group.counts
            if not _inside(index, running, extents):
                return False
            key = _key(tree, group, index, name)
            keys_real.append((group, key.intersect_domain(real)))
            if ref.is_write:
                keys_written.append((group, key.intersect_domain(padded.subtract(real))))
    for group, extra in keys_written:
        for other, key in keys_real:
            if other is group and not _images(extra).intersect(_images(key)).is_empty():
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
    """Whether ``index`` is within ``[0, extent)`` along each dimension on all of ``running``."""
    for d, extent in enumerate(extents):
        pa = index.get_pw_aff(d)
        on = running.align_params(pa.get_domain_space())
        pa = pa.align_params(on.get_space())
        if not on.is_subset(pa.domain()):
            return False
        pa = pa.intersect_domain(on)
        zero = isl.PwAff.val_on_domain(on, isl.Val(0, context=on.get_ctx()))
        bound = isl.PwAff.val_on_domain(on, isl.Val(extent, context=on.get_ctx()))
        outside = pa.lt_set(zero).union(pa.ge_set(bound))
        if not outside.is_empty():
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
