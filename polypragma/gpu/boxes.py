"""The box of a tile's elements: per dimension, a lower bound over the tile parameters and a constant
width (PPCG, TACO 2013, section 7.2), the shape of a shared-memory tile.  Found by isl, within a bound
of its own, and from the elements' simple hull past it.
"""

from __future__ import annotations

import islpy as isl

from polypragma.isl_helpers import bounded_operations, coalesced, parameter, single_map, variable, with_params

# isl operations the exact box of one group's tile may take (about 0.1-0.3 s), before the simple hull's
BOX_OPERATIONS = 100_000


def tile_box(tile_access: isl.UnionMap, names: tuple[str, ...]) -> tuple[list[isl.PwAff], list[int]] | None:
    """The smallest box holding the elements of one tile: offsets over the tile parameters, sizes;
    None when a size is not a constant, or isl finds none within its bounds.

    The exact bounds (dim_min/dim_max) come first: for most kernels they take milliseconds, but for
    a union of many pieces with existential variables (Gauss-Seidel's skewed, tiled accesses under a
    time loop) they took 11 s of seidel_2d's compilation, until the kernel's whole bound
    (memory.MAX_OPERATIONS) was spent and every array of the kernel left in global memory.  So they are
    first tried on a copy in a context of their own, within BOX_OPERATIONS (a bound of their own:
    the kernel's count cannot be read, and a reset would lose it), and computed here only when they
    fit in it (computed again: a copy parsed from text is equal but not the same expression, and
    the generated code would change).  Past the bound, each dimension takes the bounds of the
    elements' simple hull (one convex piece made of the pieces' own constraints, fast) where its
    width is a constant: the hull holds every element, so its lower bound is a lower bound of each
    and its width covers them all, but it may lose what the exact bounds see (a parity: a tile one
    element wider), hence second."""
    m = single_map(tile_access)
    if m is None:
        return None
    elements = _fixed_to_params(m, names).range()
    dims = elements.dim(isl.dim_type.set)
    exact = _exact_fits(elements)
    if exact is False:
        return None
    source = elements if exact else isl.Set.from_basic_set(elements.simple_hull())
    offsets, sizes = [], []
    for d in range(dims):
        try:
            found = _bounds(source, d)
        except isl.Error:
            # unbounded; unless the bound on isl's operations of kernel_memory is spent (then isl
            # refuses even a universe set), which kernel_memory handles
            isl.Set.universe(source.get_space())
            return None
        if found is None:
            return None
        offsets.append(one_piece(*found))
        sizes.append(found[1])
    return offsets, sizes


def one_piece(low: isl.PwAff, width: int, high: isl.PwAff) -> isl.PwAff:
    """``low``, the lower bound of one dimension of a tile's elements (``high`` the upper one), or where
    it has several pieces, the first of their expressions that is a lower bound everywhere and keeps
    the box's ``width``.  A triangular domain's tile starts where the triangle does (``max(64 k1 + 1, 32 k0 +
    1)`` for correlation's ``j > i``), while the tile's box, a constant width, starts at the tile's
    own origin just as well: with one expression the copies' indices are simpler, and a register
    tile's points padded to the whole tile (polypragma.codegen.padded_tiles) stay inside the shared
    tile, where with the triangle's start the diagonal tiles' padded points fell before it."""
    if low.n_piece() < 2:
        return low
    domain = low.domain()
    for _, aff in low.get_pieces():
        start = isl.PwAff.from_aff(aff).intersect_domain(domain)
        if low.sub(start).min_val().is_neg():
            continue
        span = high.sub(start).max_val()
        if span.is_int() and int(span.to_python()) + 1 <= width:
            return start
    return low


def _exact_fits(elements: isl.Set) -> bool | None:
    """True when the exact bounds of ``elements`` have constant sizes, False when a size is not a
    constant; None when isl does not tell within BOX_OPERATIONS (or the set is unbounded: the
    hull, unbounded too, then says so)."""
    own = _box_context()
    with bounded_operations(own, BOX_OPERATIONS):
        try:
            copy = isl.Set(str(elements), context=own)
            return all(_bounds(copy, d) is not None for d in range(copy.dim(isl.dim_type.set)))
        except isl.Error:
            return None


def _bounds(elements: isl.Set, d: int) -> tuple[isl.PwAff, int, isl.PwAff] | None:
    """The lower bound of dimension ``d`` of ``elements``, its extent and its upper bound; None when the
    extent is not a constant.  Raises isl.Error where the set is unbounded."""
    low = coalesced(elements.dim_min(d))
    high = elements.dim_max(d)
    # the extent from coalesced bounds: one of a random program's tiles (differential program 3580,
    # --grid-size 2) had bounds of 8 and 23 pieces, whose difference has 89 and took isl 9.5 s to
    # build and maximise; from the coalesced bounds, 1.5 s.  The bounds returned stay as they were
    width = coalesced(coalesced(high).sub(low)).max_val()
    if not width.is_int():
        return None
    return low, int(width.to_python()) + 1, high


_BOX_CONTEXT: list[isl.Context] = []


def _box_context() -> isl.Context:
    """The context tile_box computes exact bounds in: its own, so that their bound on isl's operations
    (BOX_OPERATIONS) is apart from the kernel's (memory.MAX_OPERATIONS), whose count it would reset."""
    if not _BOX_CONTEXT:
        _BOX_CONTEXT.append(isl.Context())
    return _BOX_CONTEXT[0]


def _fixed_to_params(space_map: isl.Map, names: tuple[str, ...]) -> isl.Map:
    """``space_map`` ({ [g..] -> X }) with its input dimensions equal to new parameters ``names``."""
    n = space_map.dim(isl.dim_type.in_)
    if not n:
        return space_map
    space = with_params(space_map.get_space().domain(), names[:n])
    fixed = isl.Set.universe(space)
    for k in range(n):
        fixed = fixed.intersect(variable(space, isl.dim_type.set, k).eq_set(parameter(space, names[k])))
    return space_map.intersect_domain(fixed)
