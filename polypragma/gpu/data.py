"""Device data of a region: one buffer per array, and what crosses at entry and exit.

A buffer holds the array from element 0 on, in the host's row-major layout,
so it is copied with one transfer: inner extents come from the declaration
(or from delinearisation), the outermost from the declaration or, for a
pointer, from the largest element the region may touch.

Copy-in: arrays with live-in reads, and written arrays whose writes may not
cover the whole buffer (so the copy-out never overwrites host data with
garbage).  Copy-out: every written array.  Locals of the region live only on
the device, but for those of its top level, which the generated code declares
before the call (code after the region may read them).

The members of a struct variable are arrays of the model (``p__x`` for
``p[i].x``) but share one buffer on the device: the struct variable's, of its
struct type, copied as the host holds it (one transfer; kernels print the
access as written, and the layout is the host's, which CUDA and OpenCL on the
same host ABI share).  Its copy-in is unconditional, since a write of one
member never covers the others.

An array of rows through pointers (``double **A``, ``double *A[n]``, read
``A[i][j]``) has its rows wherever the host put them, of any lengths.  The
device holds a dense copy: the rows up to the last one the region touches,
each as wide as the widest part of a row it touches (isl's bounds on the
footprint), so that kernels index it as any two-dimensional array.  The host
copies it row by row (:class:`RowRanges`): of each row the region touches,
the elements from the first to the last it touches, no more, since a row of
the host may end right after them.  A written row comes back the same way,
its elements from the first to the last the region may write.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl
from pycparser import c_ast

from polypragma.dependences import Dependences
from polypragma.diagnostics import Location, Unsupported
from polypragma.gpu.inspection import Inspection, extent_parameter, inspection, ordered, outer_unmodelled, refusal
from polypragma.isl_helpers import coalesced
from polypragma.model import Array, Member, Scop, c_condition, c_expression


# the C variable the host code's loops over the rows of an array of rows through pointers run on, as the
# expressions of RowRanges name it
ROW = "polypragma_row"


@dataclass(frozen=True)
class RowRanges:
    """The part of each row of an array of rows through pointers that crosses between host and device, as C
    expressions over the parameters and the row ``polypragma_row`` (:data:`ROW`): the rows ``first`` to
    ``last`` for which ``condition`` holds (``None``: all of them), and of each its elements ``low`` to
    ``high``."""

    first: str
    last: str
    condition: str | None
    low: str
    high: str


@dataclass(frozen=True)
class DeviceArray:
    name: str  # model and kernel name
    host_name: str  # the C variable in host code
    element_type: str  # as written (host code)
    device_type: str  # typedefs resolved (kernel code)
    rank: int
    inner_extents: tuple[str, ...]  # C expressions, dimensions 1..rank-1
    elements: str  # C expression: the number of elements of the buffer
    copy_in: bool
    copy_out: bool
    written: bool
    local: bool  # lives on the device only
    linearise: bool  # subscripts in bodies are rewritten as one flat index
    live_in: bool = False  # values on entry may be read
    constant_elements: int | None = None  # the number of elements when it does not depend on parameters
    # a privatised temporary's copy (polypragma.privatise): each value is written and read by one thread
    # within one iteration of the mapped loops, so a copy in registers needs no copy in or out
    private_copy: bool = False
    # a member of a struct variable: the name of the buffer (the struct variable's DeviceArray) holding it,
    # and where in it; such an array has no buffer of its own and is not among GpuRegion.arrays
    buffer: str | None = None
    member: Member | None = None
    aggregate: bool = False  # the buffer of a struct variable whose members are arrays of the model
    # an array of rows through pointers (double **A): the host's row pointers are the function's argument, the
    # device holds a dense copy; what of each row crosses in (the whole footprint: the host copy of a kept
    # array holding a row is brought up to date, and its elements uploaded when copy_in) and out (the
    # elements of each row the region may write, when copy_out)
    rows_in: RowRanges | None = None
    rows_out: RowRanges | None = None
    # rows through a struct's pointer member: the fields from the struct to it (".a" for p[i].a[j], whose row r
    # is p[r].a; host_name is the struct variable's), "" for an array of rows (row r is A[r])
    row_member: str = ""
    # a pointer whose outermost subscripts read data (x[col[j]]): its extent is found on the host before each
    # call (elements then names the C variable the inspection sets)
    inspection: Inspection | None = None

    @property
    def rows(self) -> bool:
        """Whether the host holds the array as rows through pointers (copied row by row)."""
        return self.rows_in is not None

    def row_pointer(self, row: str) -> str:
        """The C expression of the host's pointer to row ``row`` (rows through pointers)."""
        return f"{self.host_name}[{row}]{self.row_member}"

    @property
    def shown(self) -> str:
        """The array as the host's messages name it (``A``, ``p[].a`` for rows through a struct's member)."""
        if not self.row_member:
            return self.host_name
        return self.host_name + ("[]" if self.member.rank else "") + self.row_member

    @property
    def parameter(self) -> bool:
        """Whether the host function takes the array as a parameter (not a local of the region, nor reached
        through its struct variable's)."""
        return not self.local and not self.row_member

    @property
    def scalar(self) -> bool:
        return self.rank == 0


def referenced_array(node: c_ast.Node) -> str | None:
    """The name of the array of the model a reference names: ``A`` for ``A[i][j]``, ``p__x`` for
    ``p[i].x`` (the model's name of a member, see frontend/accesses.py), ``q`` for the whole struct
    ``q[i]`` (which the model reads as a reference to each of its members)."""
    fields = []
    while isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)):
        if isinstance(node, c_ast.StructRef):
            fields.insert(0, node.field.name)
        node = node.name
    return "__".join([node.name] + fields) if isinstance(node, c_ast.ID) else None


def _c(pa: isl.PwAff, names: dict[str, str]) -> str:
    return c_expression(pa, names)  # plain C: host code has no min/max


def _box(array: Array, extents: list[isl.PwAff | None]) -> isl.Set:
    """``{ A[a] : 0 <= a_d < extent_d }`` (no bound in a dimension whose extent is None)."""
    space = array.footprint.get_space()
    box = isl.Set.universe(space)
    local = isl.LocalSpace.from_space(space)
    zero = isl.PwAff.from_aff(isl.Aff.zero_on_domain(local))
    for d, extent in enumerate(extents):
        if extent is None:
            continue
        var = isl.PwAff.from_aff(isl.Aff.var_on_domain(local, isl.dim_type.set, d))
        lifted = extent.add_dims(isl.dim_type.in_, space.dim(isl.dim_type.set))
        lifted = lifted.set_tuple_id(isl.dim_type.in_, space.get_tuple_id(isl.dim_type.set)) \
            if space.has_tuple_id(isl.dim_type.set) else lifted
        box = box.intersect(var.ge_set(zero)).intersect(var.lt_set(lifted))
    return box


def _flat_elements(array: Array, extents: list[isl.PwAff], scop: Scop) -> str | None:
    """How many elements of a delinearised flat array (``A[i * lda + p]`` as ``A[i][p]``) the buffer holds
    where its last row is not whole: up to the last element the region may touch, no further (the last row,
    ``p < k <= lda``, may end before its extent, and the host's array with it: a submatrix's last row).
    ``0`` where none is; None where the last row is whole (the box of the extents)."""
    footprint = array.footprint
    names = scop.signed_names
    box = _box(array, extents).intersect_params(footprint.params())
    if footprint.is_empty() or box.lexmax().is_equal(footprint.lexmax()):
        return None
    last = footprint.lexmax_pw_multi_aff()
    ends = [last.get_pw_aff(d) for d in range(array.rank)]
    ends[-1] = ends[-1].add_constant_val(isl.Val.one(footprint.get_ctx()))
    zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(ends[0].get_domain_space()))
    # 0 where nothing is touched; the host function runs where the context holds (Scop.assumed checked)
    ends = [c_expression(e.union_add(zero), names, scop.context) for e in ends]
    text = f"(size_t)({ends[0]})"
    for d in range(1, array.rank):
        text = f"({text} * (size_t)({_c(extents[d], names)}) + (size_t)({ends[d]}))"
    return text


def _extents(array: Array, scop: Scop) -> tuple[list[isl.PwAff], Inspection | None]:
    """The extent of each dimension of ``array``'s buffer: declared, or for the outermost dimension of a
    pointer, one past the largest element the region may touch (found on the host before each call where
    subscripts on data reach it: the inspection)."""
    location = scop.region.location
    space = array.footprint.get_space()
    footprint = array.footprint
    extents: list[isl.PwAff] = []
    inspected = None
    for d, extent in enumerate(array.extents):
        if extent is not None:
            extents.append(extent)
            continue
        if d > 0:
            if all(e is None for e in array.extents[1:d + 1]) and not array.delinearised:
                # double ***A (two-dimensional ones are copied row by row, see _rows): each row is a block of
                # its own, wherever the host put it (said at the first access)
                raise Unsupported(f"array '{array.c_name}' of rows through pointers", _first_access(array, scop),
                                  f"with {array.rank} dimensions is not supported by the GPU targets (those of two, "
                                  "'double **A', are copied row by row; pass a pointer to arrays, "
                                  "'double (*A)[m][k]', or a flat array)")
            raise Unsupported(f"array '{array.c_name}' with unknown extent in dimension {d}", location,
                              "is not supported by the GPU targets")
        if array.rank > 1 and all(e is not None for e in array.extents[1:]):
            # a subscript on data of an inner dimension stays within its declared extent (A[i][col[j]] with
            # double (*A)[m]), as in an array whose extents are all declared
            footprint = footprint.intersect(_box(array, [None, *array.extents[1:]]))
        if not footprint.is_bounded():
            inspected = inspection(array, scop)
        if inspected is not None:
            extents.append(extent_parameter(inspected, space))
            continue
        _check_bounded(array, scop, (0,), footprint)
        extents.append(_or_zero(footprint.dim_max(0).add_constant_val(isl.Val.one(space.get_ctx()))))
    return extents, inspected


def _or_zero(extent: isl.PwAff) -> isl.PwAff:
    """An extent found from a footprint as a size: 0 where the region touches nothing.  isl's maximum is
    undefined there (its expression may say anything: n % 2 + n - 1 is -1 at n = 0), and the host's copies
    use the size: a copy-out of an array not copied in must then copy nothing (a time loop of no steps)."""
    none = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(extent.get_space().params()))
    return coalesced(extent.union_max(none))


def _check_bounded(array: Array, scop: Scop, dims: tuple[int, ...], footprint: isl.Set | None = None) -> None:
    """Refuse ``array`` unless the region's footprint in it (``footprint``, the array's unless given) is
    bounded, with no negative subscript in dimensions ``dims`` (those whose extent comes from the footprint)."""
    footprint = array.footprint if footprint is None else footprint
    if not footprint.is_bounded():
        # (a pointer: its declaration with an extent bounds it, as 'double x[n]' in the parameters)
        hint = f" (declare how many elements it has: '{array.element_type} {array.c_name}[size]' with size " \
            "a parameter of the function or a constant)" if array.extents[0] is None else ""
        culprit = next((r.unmodelled for r in scop.references
                        if r.array == array.name and r.unmodelled is not None), None)
        if culprit is not None:  # say which subscript, where
            raise Unsupported(culprit[0], culprit[2], f"{culprit[1]}: the elements of "
                              f"'{array.c_name}' accessed cannot be bounded; not supported by the "
                              f"GPU targets{hint}")
        raise Unsupported(f"elements of '{array.c_name}' accessed", scop.region.location,
                          "cannot be bounded (a subscript depends on data); not supported by the "
                          f"GPU targets{hint}")
    local_space = isl.LocalSpace.from_space(footprint.get_space())
    zero = isl.PwAff.from_aff(isl.Aff.zero_on_domain(local_space))
    for d in dims:
        var = isl.PwAff.from_aff(isl.Aff.var_on_domain(local_space, isl.dim_type.set, d))
        if not footprint.is_subset(var.ge_set(zero)):
            raise Unsupported(f"negative subscripts of '{array.c_name}'", scop.region.location,
                              "are not supported by the GPU targets")


def _rows(array: Array, scop: Scop, written: isl.UnionMap,
          must: isl.UnionMap) -> tuple[list[isl.PwAff], list[isl.PwAff], RowRanges, RowRanges | None, bool]:
    """An array of rows through pointers: the extents of its dense copy on the device (the rows up to the
    last one touched, each as wide as the widest part touched), as the buffer's size (0 where nothing is
    touched) and as kernels and row copies index it (only where something is), what of each row crosses in
    and out, and whether the region certainly writes every element it copies out (then nothing need be
    copied in for the writes' sake).  A one-dimensional array (a struct's pointer member, ``v.a[i]``) is one
    row, row 0."""
    _check_bounded(array, scop, tuple(range(array.rank)))
    target = isl.UnionSet.from_set(array.footprint)

    def own(elements: isl.UnionSet) -> isl.Set:  # as a set of rows (a one-dimensional array: row 0)
        found = isl.Set.from_union_set(elements).intersect_params(scop.context)
        if array.rank == 2:
            return found
        return coalesced(found.apply(_on(found, "{ [c] -> [0, c] }").reset_tuple_id(isl.dim_type.out)))

    footprint = own(target)
    one = isl.Val.one(footprint.get_ctx())
    indexed = [coalesced(footprint.dim_max(d).add_constant_val(one)) for d in (0, 1)][2 - array.rank:]
    extents = [_or_zero(e) for e in indexed]
    names = scop.signed_names
    rows_in = _row_ranges(_row_hull(footprint), scop.context, names)
    out = written.intersect_range(target).range()
    if out.is_empty():
        return extents, indexed, rows_in, None, False
    out_hull = _row_hull(own(out))
    covered = must.range().intersect(target)
    fully = not covered.is_empty() and out_hull.is_subset(own(covered))
    return extents, indexed, rows_in, _row_ranges(out_hull, scop.context, names), fully


def _first_access(array: Array, scop: Scop) -> Location:
    """Where the region first accesses ``array`` (the region's start when no access says)."""
    node = next((r.node for r in scop.references if r.array == array.name and r.node.coord), None)
    if node is None:
        return scop.region.location
    return Location(scop.region.file, node.coord.line, node.coord.column or 1)


def _is_rows(array: Array) -> bool:
    """Whether ``array`` is two-dimensional with its rows through pointers (``double **A``, ``double *A[n]``),
    or the elements a struct's pointer member points to, of one struct (``p->a[i]``, ``v.a[i]``) or of each
    of an array of them (``p[i].a[j]``)."""
    if array.member is not None:
        return array.member.pointer and array.rank <= 2 and all(count == 0 for _, count in array.member.path[:-1])
    return (array.rank == 2 and array.extents[1] is None and not array.delinearised
            and array.kind != "local")


def _on(elements: isl.Set, relation: str) -> isl.Map:
    """``relation`` (isl's notation, no tuple names) between elements of the space of ``elements``."""
    relation = isl.Map(relation)
    if not elements.has_tuple_id():
        return relation
    identity = elements.get_tuple_id()
    return relation.set_tuple_id(isl.dim_type.in_, identity).set_tuple_id(isl.dim_type.out, identity)


def _row_hull(elements: isl.Set) -> isl.Set:
    """Of each row of ``elements`` (a set of a two-dimensional array), every element from the first to the
    last: ``{ A[r, c] : A[r, c1] and A[r, c2] in elements for some c1 <= c <= c2 }``."""
    after = _on(elements, "{ [r, c] -> [r, d] : d >= c }")
    return coalesced(elements.apply(after).intersect(elements.apply(after.reverse())))


def _row_ranges(hull: isl.Set, context: isl.Set, names: dict[str, str]) -> RowRanges:
    """The rows of ``hull`` (a set of a two-dimensional array, an interval in each row) and the interval of
    each, as C expressions (the row named :data:`ROW`)."""
    rows = hull.project_out(isl.dim_type.set, 1, 1)
    after = _on(rows, "{ [r] -> [s] : s >= r }")
    span = rows.apply(after).intersect(rows.apply(after.reverse()))  # every row from the first to the last
    n = hull.dim(isl.dim_type.param)

    def on_row(elements: isl.Set) -> isl.Set:  # the row as a parameter
        moved = elements.move_dims(isl.dim_type.param, n, isl.dim_type.set, 0, 1)
        return moved.set_dim_name(isl.dim_type.param, n, ROW)

    per_row = on_row(hull)  # of each row taken, its interval: PwAffs over the parameters
    taken = per_row.params()
    between = on_row(span).params().intersect_params(context)
    condition = None if between.is_subset(taken) else c_condition(taken, between, names)
    where = taken.intersect_params(context)
    return RowRanges(first=c_expression(rows.dim_min(0), names, context),
                     last=c_expression(rows.dim_max(0), names, context), condition=condition,
                     low=c_expression(per_row.dim_min(0), names, where),
                     high=c_expression(per_row.dim_max(0), names, where))


def _constant_elements(extents: list[isl.PwAff]) -> int | None:
    if all(e.is_cst() for e in extents) and extents:
        values = [e.max_val() for e in extents]
        if all(v.is_int() for v in values):
            count = 1
            for v in values:
                count *= max(int(v.to_python()), 0)
            return count
    return None


def device_arrays(scop: Scop, deps: Dependences) -> list[DeviceArray]:
    """The device arrays of ``scop``: the buffers, then the members of struct variables (which live in
    their struct variable's buffer)."""
    written = scop.may_writes
    must = scop.must_writes
    written_names = {a.name for a in scop.written_arrays()}
    live_in = deps.live_in_data()
    result = []
    members: dict[str, list[tuple[DeviceArray, list[isl.PwAff]]]] = {}
    for array in scop.arrays:
        footprint = array.footprint
        is_written = array.name in written_names
        rows_in = rows_out = inspected = None
        if array.member is not None and array.member.pointer and not _is_rows(array):
            raise Unsupported("struct member access", _first_access(array, scop),
                              f"is not supported by the GPU targets: member '{array.member.path[-1][0]}' is a "
                              "pointer reached through subscripted members or with more than one subscript of its "
                              "struct variable, and a copy of the struct on the device would hold a host address")
        if _is_rows(array):
            extents, indexed, rows_in, rows_out, fully = _rows(array, scop, written, must)
        else:
            extents, inspected = _extents(array, scop) if array.rank else ([], None)
            indexed = extents
        elements = (_flat_elements(array, extents, scop) if array.delinearised else None) or \
            " * ".join(f"(size_t)({_c(e, scop.signed_names)})" for e in extents) or "1"
        inner = tuple(_c(e, scop.signed_names) for e in indexed[1:])
        # a local of the region's top level is declared before the call (code after the region sees it):
        # a host array like any other
        local = array.kind == "local" and not array.region_level
        data = isl.UnionSet.from_set(footprint)
        has_live_in = not live_in.intersect(data).is_empty()
        if rows_in is None:  # (rows: fully says whether the region writes all it copies out)
            fully = False
            if array.rank and is_written and not has_live_in:
                covered = must.range().intersect(data)
                box = _box(array, extents)
                fully = box.is_subset(isl.Set.from_union_set(covered)) if not covered.is_empty() else False
        device = DeviceArray(
            name=array.name, host_name=array.c_name, element_type=array.element_type,
            device_type=array.resolved_type or array.element_type, rank=array.rank, inner_extents=inner,
            elements=elements, copy_in=not local and (has_live_in or (is_written and not fully)),
            copy_out=not local and is_written, written=is_written, local=local,
            linearise=array.rank >= 2 and not array.delinearised, live_in=has_live_in,
            constant_elements=_constant_elements(extents), rows_in=rows_in, rows_out=rows_out, inspection=inspected)
        if array.member is not None and array.member.pointer:
            # a buffer of its own, its rows' pointers read from the host's structs (p[r].a): the host function
            # takes the struct variable (GpuRegion.signature_parameters), which needs no buffer for this member
            path = "".join(f".{field}" for field, _ in array.member.path)
            result.append(replace(device, member=array.member, host_name=array.member.struct, row_member=path))
        elif array.member is not None:
            device = replace(device, buffer=array.member.struct, member=array.member, host_name=array.member.struct)
            members.setdefault(array.member.struct, []).append((device, extents))
        else:
            result.append(device)
    _check_inspections(result, scop)
    buffers = [_struct_buffer(struct, parts, scop.signed_names) for struct, parts in sorted(members.items())]
    taken = {a.name for a in result}
    for buffer in buffers:
        if buffer.name in taken:  # (the model names members p__x: a clash would be a bug)
            raise AssertionError(f"struct buffer '{buffer.name}' clashes with an array of the model")
    return result + buffers + [m for struct, parts in sorted(members.items()) for m, _ in parts]


def _check_inspections(arrays: list[DeviceArray], scop: Scop) -> None:
    """Refuse inspections that read each other's arrays in a cycle (each needs the other's extent first to
    bring its host copy up to date: ``x[x[i]]``, a linked list)."""
    inspections = [a.inspection for a in arrays if a.inspection is not None]
    _, cycle = ordered(inspections)
    if cycle is not None:
        array = next(x for x in scop.arrays if x.name == cycle.array)
        reference = next(r for r in scop.references if r.array == cycle.array and outer_unmodelled(r))
        needs = ", ".join(f"'{r}'" for r in sorted(set(cycle.reads) & {i.array for i in inspections}))
        raise refusal(array, reference, scop, f"finding them reads {needs}, whose extent must be found first: "
                      "a cycle")


def _struct_buffer(struct: str, parts: list[tuple[DeviceArray, list[isl.PwAff]]],
                   names: dict[str, str]) -> DeviceArray:
    """The buffer of struct variable ``struct`` whose members ``parts`` the region accesses: as many
    structs as the members' outer dimensions reach (the largest where the declaration does not say)."""
    member = parts[0][0].member
    extents: list[isl.PwAff] = []
    for d in range(member.rank):
        extent = parts[0][1][d]
        for _, other in parts[1:]:
            extent = extent.max(other[d])
        extents.append(coalesced(extent))
    written = any(p.written for p, _ in parts)
    return DeviceArray(
        name=struct, host_name=struct, element_type=member.type, device_type=member.type, rank=member.rank,
        inner_extents=tuple(_c(e, names) for e in extents[1:]),
        elements=" * ".join(f"(size_t)({_c(e, names)})" for e in extents) or "1",
        copy_in=True, copy_out=written, written=written, local=False, linearise=member.rank >= 2,
        live_in=any(p.live_in for p, _ in parts), constant_elements=_constant_elements(extents), aggregate=True)
