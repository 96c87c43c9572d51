"""A schedule tree written as nested tuples, and grown into isl's.

The kernel's tree (:mod:`polypragma.codegen.kernel_tree`) is first a spec, so that its existential
variables can be bounded before isl builds anything, then grown under a leaf of a schedule::

    ("band", schedule, first, unroll, child[, apart])      a partial schedule; its first member at depth
                                                           ``first``; ``unroll``: True, or the members
                                                           to unroll; ``apart``: an :class:`Apart`, the
                                                           outer instances generated apart
    ("filter", instances, child)
    ("mark", payload, child)                               a mark named after ``payload``'s class,
                                                           carrying it
    ("sequence", [(instances, child), ...])

A ``child`` may be None (a leaf).
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polypragma.isl_helpers import coalesced, maps_of, sets_of


# the kinds of Apart: a register tile's full tiles, and a shared tile's full copies
FULL_TILES = "full tiles"
FULL_COPIES = "full copies"


@dataclass(frozen=True, eq=False)
class Apart:
    """The instances of a band's outer schedule dimensions in ``outer`` generated apart (isl's isolate
    option), so that isl drops the guards those dimensions imply; its loops there unrolled where
    ``unroll`` says (as a band's), and ``kind`` (FULL_TILES or FULL_COPIES) says which trees do it."""

    outer: isl.Set
    unroll: bool | list
    kind: str


def most_divs(pieces: isl.UnionSet | isl.UnionMap) -> int:
    """The most existential variables of a basic set or map of ``pieces``."""
    most = 0
    for piece in (maps_of(pieces) if isinstance(pieces, isl.UnionMap) else sets_of(pieces)):
        basic = piece.get_basic_map_list() if isinstance(piece, isl.Map) else piece.get_basic_set_list()
        for k in range(basic.n_basic_map() if isinstance(piece, isl.Map) else basic.n_basic_set()):
            most = max(most, basic.get_at(k).dim(isl.dim_type.div))
    return most


def path_divs(spec) -> int:
    """The most existential variables along a path from ``spec``'s node to a leaf (see
    :meth:`KernelTree.existentials <polypragma.codegen.kernel_tree.KernelTree.existentials>`)."""
    kind = spec[0]
    if kind == "band":
        child = spec[4]
        return most_divs(spec[1]) + (path_divs(child) if child is not None else 0)
    if kind == "filter":
        child = spec[2]
        return most_divs(spec[1]) + (path_divs(child) if child is not None else 0)
    if kind == "mark":
        return path_divs(spec[2])
    if kind == "sequence":
        return max((most_divs(uset) + (path_divs(child) if child is not None else 0) for uset, child in spec[1]),
                   default=0)
    raise ValueError(kind)


def _loop_type(depth: int, unrolled: bool, separate: frozenset):
    if unrolled:
        return isl.ast_loop_type.unroll
    return isl.ast_loop_type.default if depth in separate else isl.ast_loop_type.atomic


def _isolate(node: isl.ScheduleNode, apart: Apart, first: int, separate: frozenset) -> isl.ScheduleNode:
    """The band ``node`` with its instances ``apart`` generated apart."""
    outer, unroll = apart.outer, apart.unroll
    members = node.band_n_member()
    band = isl.Set.universe(outer.get_space().drop_dims(isl.dim_type.set, 0, outer.dim(isl.dim_type.set))
                            .add_dims(isl.dim_type.set, members))
    option = isl.Map.from_domain_and_range(outer, band.align_params(outer.get_space())).wrap()
    node = node.band_set_ast_build_options(isl.UnionSet.from_set(option.set_tuple_name("isolate")))
    for k in range(members):
        unrolled = unroll is True or (unroll and k in unroll)
        node = node.band_member_set_isolate_ast_loop_type(k, _loop_type(first + k, unrolled, separate))
    return node


def grow(node: isl.ScheduleNode, spec, separate: frozenset, isolate: frozenset) -> isl.ScheduleNode:
    """Insert ``spec`` above the leaf ``node``, its loops at the depths in ``separate`` in isl's
    default form, the instances its bands set apart generated apart where their kind is in
    ``isolate``; return the node where it starts."""
    kind = spec[0]
    ctx = node.get_ctx()
    if kind == "band":
        _, schedule, first, unroll, child = spec[:5]
        apart = spec[5] if len(spec) > 5 else None
        node = node.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(coalesced(schedule)))
        if apart is not None and apart.kind in isolate and not apart.outer.is_empty():
            # (setting the options resets the band's loop types: they are set after)
            node = _isolate(node, apart, first, separate)
        for k in range(node.band_n_member()):
            unrolled = unroll is True or (unroll and k in unroll)
            node = node.band_member_set_ast_loop_type(k, _loop_type(first + k, unrolled, separate))
        if child is not None:
            node = grow(node.child(0), child, separate, isolate).parent()
        return node
    if kind == "filter":
        _, uset, child = spec
        node = node.insert_filter(coalesced(uset))
        if child is not None:
            node = grow(node.child(0), child, separate, isolate).parent()
        return node
    if kind == "mark":
        _, payload, child = spec
        node = node.insert_mark(isl.Id(type(payload).__name__, user=payload, context=ctx))
        return grow(node.child(0), child, separate, isolate).parent()
    if kind == "sequence":
        _, items = spec
        filters = isl.UnionSetList.alloc(ctx, len(items))
        for uset, _ in items:
            filters = filters.add(uset)
        node = node.insert_sequence(filters)
        for k, (_, child) in enumerate(items):
            if child is not None:
                node = grow(node.child(k).child(0), child, separate, isolate).parent().parent()
        return node
    raise ValueError(kind)
