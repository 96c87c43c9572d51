"""From the accesses of all statements to arrays and access relations.

Building the relations waits until the whole region is seen, because
delinearising a flat pointer (``A[i*n + j]`` read as ``A[i][j]`` with inner
extent ``n``) must agree across all the accesses to that array: an access
that does not fit the common view, or leaves its row, makes the array stay
one-dimensional, and such accesses touch the whole array.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import islpy as isl
from pycparser import c_ast

from polypragma.frontend.accesses import AccessRecord
from polypragma.frontend.affine import AffineBuilder, Polynomial, polynomial
from polypragma.frontend.c_tree import text
from polypragma.diagnostics import Location
from polypragma.isl_helpers import coalesced
from polypragma.model import Array, Reference, Variable


def _linear_pwaff(poly: Polynomial, builder: AffineBuilder) -> isl.PwAff | None:
    """A polynomial of degree at most one as a PwAff, or None."""
    result = builder.constant(0)
    for monomial, coefficient in sorted(poly.items()):
        if len(monomial) == 0:
            term = builder.constant(coefficient)
        elif len(monomial) == 1:
            meaning = builder.resolve(monomial[0])
            if meaning is None or meaning[0] not in ("dim", "param"):
                return None
            var = builder.dim(meaning[1]) if meaning[0] == "dim" else builder.param(meaning[1])
            term = var.mul(builder.constant(coefficient))
        else:
            return None
        result = result.add(term)
    return result


def _split_sizes(poly: Polynomial, is_param: Callable[[str], bool]) -> list[str] | None:
    """The inner extents (outermost first) that delinearise ``poly``, or None."""
    sizes: list[str] = []
    current = dict(poly)
    while any(len(m) >= 2 for m in current):
        nonlinear = [set(m) for m in current if len(m) >= 2]
        common = {p for p in set.intersection(*nonlinear) if is_param(p)}
        if len(common) != 1:
            return None
        (size,) = common
        sizes.insert(0, size)
        current = {_without(m, size): c for m, c in current.items() if size in m}
    return sizes


def _without(monomial: tuple[str, ...], name: str) -> tuple[str, ...]:
    items = list(monomial)
    items.remove(name)
    return tuple(items)


def _decompose(poly: Polynomial, sizes: list[str]) -> list[Polynomial]:
    components: list[Polynomial] = []
    current = dict(poly)
    for size in reversed(sizes):
        inner = {m: c for m, c in current.items() if size not in m}
        current = {_without(m, size): c for m, c in current.items() if size in m}
        components.insert(0, inner)
    components.insert(0, current)
    return components


@dataclass
class ArrayShape:
    rank: int
    sizes: list[str] = field(default_factory=list)  # parameters of the inner extents if delinearised
    delinearised: bool = False
    # the parameters for which the delinearised view holds (every inner subscript within its extent), where
    # it does not hold for all of them: the generated code runs only there (a check at run time, as Polly's
    # assumptions), the original loops elsewhere; None: the view holds for all
    assumed: isl.Set | None = None


def delinearise(records: list[AccessRecord], rank: int) -> tuple[ArrayShape, list[list[isl.PwAff | None]]]:
    """Decide the shape of one array from all its accesses.

    Returns the shape and, per record, the subscripts as PwAffs (None where
    the access must be taken as touching the whole array).
    """
    plain = [[s.affine for s in r.subscripts] for r in records]
    if rank != 1 or all(all(s is not None for s in subs) for subs in plain):
        return ArrayShape(rank), plain
    candidates = [r.subscripts[0].poly for r in records if r.subscripts[0].affine is None and r.subscripts[0].poly]
    sizes = None
    if candidates:
        first = records[[r.subscripts[0].affine is None and bool(r.subscripts[0].poly) for r in records].index(True)]

        def is_param(name: str) -> bool:
            meaning = first.builder.resolve(name)
            return meaning is not None and meaning[0] == "param"

        sizes = _split_sizes(candidates[0], is_param)
    if sizes:
        views: list[list[isl.PwAff | None]] = []
        ok = True
        assumed = None
        for r in records:
            sub = r.subscripts[0]
            poly = sub.poly
            if poly is None and sub.affine is not None:
                def is_symbol(name: str, b=r.builder) -> bool:
                    m = b.resolve(name)
                    return m is not None and m[0] in ("dim", "param")
                poly = polynomial(sub.node, is_symbol)
            if poly is None:
                ok = False
                break
            fitted = _within_extents(_decompose(poly, sizes), sizes, r)
            if fitted is None:
                ok = False
                break
            parts, needs = fitted
            views.append(parts)
            if needs is not None:
                assumed = needs if assumed is None else assumed.intersect(needs)
        if ok and assumed is not None:
            assumed = coalesced(assumed)
            # each access still runs for some parameters where the view holds (else the generated code
            # would never run: the view is of no use)
            ok = all(not r.domain.intersect_params(assumed).is_empty() for r in records)
        if ok:
            return ArrayShape(1 + len(sizes), list(sizes), True, assumed), views
    return ArrayShape(1), plain


def _within_extents(components: list[Polynomial], sizes: list[str],
                    record: AccessRecord) -> tuple[list[isl.PwAff], isl.Set | None] | None:
    """The subscripts of ``components`` (outermost first), each inner one within its extent on the
    record's domain, and the parameters for which that holds where it does not hold for all (None then);
    None where no parameters give it.  An inner component below 0 borrows one extent from the component
    outside it: ``i * n + n - 1`` is ``(i + 1) * n - 1`` as written, and ``[i][n - 1]`` in bounds.  A
    component within its extent only for some parameters needs them: ``A[i * lda + p]`` with ``p < k`` is
    ``A[i][p]`` where ``k <= lda``, and ``x[i * m]`` is ``x[i][0]`` where ``m >= 1`` (or no ``i`` runs); not
    where the extent also bounds the loops around the access."""
    components = [dict(c) for c in components]
    builder = record.builder
    assumed = None
    for level in range(len(sizes), 0, -1):  # innermost first: a borrow changes a component not yet checked
        size = sizes[level - 1]
        meaning = builder.resolve(size)
        if meaning is None or meaning[0] != "param":
            return None
        bound = builder.param(meaning[1])
        options = []  # (borrow, the parameters for which the component is in its row)
        for borrow in (False, True):
            component = dict(components[level])
            if borrow:
                component[(size,)] = component.get((size,), 0) + 1
            part = _linear_pwaff(component, builder)
            if part is None:
                continue
            outside = record.domain.subtract(part.ge_set(builder.constant(0)).intersect(part.lt_set(bound)))
            if outside.is_empty():
                options = [(borrow, None)]
                break
            # a size that also bounds the loops around the access (a band's rows, Ab[i * (2 * bw + 1) + j - i +
            # bw] read as rows of bw, j up to i + bw) would be assumed past them, where the loops barely run
            position = record.domain.get_space().find_dim_by_name(isl.dim_type.param, size)
            if position >= 0 and record.domain.involves_dims(isl.dim_type.param, position, 1):
                continue
            # where the access runs at all (elsewhere any parameters do): the simplest condition
            runs = record.domain.params()
            holds = coalesced(outside.params().complement().gist(runs))
            if not runs.intersect(holds).is_empty():
                options.append((borrow, holds))
        if not options:
            return None
        borrow, holds = options[0]
        if borrow:
            components[level][(size,)] = components[level].get((size,), 0) + 1
            components[level - 1][()] = components[level - 1].get((), 0) - 1
        if holds is not None:
            assumed = holds if assumed is None else assumed.intersect(holds)
    parts = [_linear_pwaff(c, builder) for c in components]
    if any(p is None for p in parts):
        return None
    return parts, assumed


def access_relation(record: AccessRecord, subscripts: list[isl.PwAff | None], rank: int) -> isl.Map:
    """``{ S[i..] -> A[a..] }`` for one access, restricted to the statement domain.

    A None subscript makes the access cover that whole dimension.
    """
    domain = record.domain
    if rank == 0:
        relation = isl.Map.from_domain(domain)
    else:
        relation = None
        for sub in subscripts:
            if sub is None:
                piece = isl.Map.universe(isl.Map.from_pw_aff(record.builder.constant(0)).get_space())
            else:
                piece = isl.Map.from_pw_aff(sub)
            relation = piece if relation is None else relation.flat_range_product(piece)
        assert relation is not None
        relation = relation.intersect_domain(domain)
    relation = relation.set_tuple_name(isl.dim_type.in_, record.statement)
    return relation.set_tuple_name(isl.dim_type.out, record.name)


def _unmodelled(record: AccessRecord, subscripts: list[isl.PwAff | None]) -> tuple[str, str, Location]:
    """What a diagnostic says of an access whose subscripts are not all modelled."""
    k = next(k for k, s in enumerate(subscripts) if s is None)
    node = record.subscripts[k].node if k < len(record.subscripts) else record.node
    if len(subscripts) != len(record.subscripts):  # a flat access that did not fit the delinearised view
        node = record.subscripts[0].node

    def reads_data(n) -> bool:
        if isinstance(n, (c_ast.ArrayRef, c_ast.FuncCall, c_ast.StructRef)):
            return True
        if isinstance(n, c_ast.ID):
            meaning = record.builder.resolve(n.name)
            return meaning is None
        return any(reads_data(child) for _, child in n.children())

    why = "depends on data" if reads_data(node) else "is not affine"
    coord = node.coord
    location = Location(str(coord.file), coord.line, coord.column or 1) if coord is not None else None
    return f"subscript '{text(node)}' of '{record.variable.name}'", why, location


def build_arrays(records: list[AccessRecord],
                 extents_of: Callable[[Variable, ArrayShape], list[isl.PwAff | None]],
                 region_level: Callable[[Variable], bool]):
    """The arrays of a region, per statement name its reads, must-writes and may-writes, its
    references, and the parameters for which the delinearised views hold (None: for all) with the names
    of the arrays whose views need them.

    A write is a must-write only when it is certain (not under a condition on
    data) and exact (every subscript known).
    """
    by_array: dict[str, list[AccessRecord]] = {}
    for record in records:
        by_array.setdefault(record.name, []).append(record)
    reads: dict[str, isl.UnionMap] = {}
    must: dict[str, isl.UnionMap] = {}
    may: dict[str, isl.UnionMap] = {}
    arrays: list[Array] = []
    references: list[Reference] = []
    assumed = None
    assuming: list[str] = []  # the arrays whose views need it
    for array_name in sorted(by_array):
        group = by_array[array_name]
        variable = group[0].variable
        shape, views = delinearise(group, variable.ctype.rank)
        if shape.assumed is not None:
            assumed = shape.assumed if assumed is None else assumed.intersect(shape.assumed)
            assuming.append(variable.name)
        footprint = None
        for record, subscripts in zip(group, views):
            relation = access_relation(record, subscripts, shape.rank)
            exact = all(s is not None for s in subscripts)
            footprint = relation.range() if footprint is None else footprint.union(relation.range())
            target = reads if not record.is_write else (must if record.must and exact else may)
            piece = isl.UnionMap.from_map(relation)
            target[record.statement] = target[record.statement].union(piece) if record.statement in target else piece
            references.append(Reference(record.statement, array_name, record.node, record.is_write,
                                        record.must and exact, exact, relation,
                                        None if exact else _unmodelled(record, subscripts)))
        assert footprint is not None
        kind = ("local" if variable.declared_in_region else
                "scalar" if variable.ctype.rank == 0 else
                "pointer" if variable.ctype.pointer_depth else "array")
        arrays.append(Array(array_name, variable.ctype.base, shape.rank, tuple(extents_of(variable, shape)),
                            coalesced(footprint), kind, shape.delinearised,
                            resolved_type=variable.ctype.resolved or variable.ctype.base, c_name=variable.name,
                            region_level=region_level(variable), member=variable.member))
    return arrays, reads, must, may, references, (assumed, tuple(assuming))
