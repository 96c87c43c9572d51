"""Device data of a region: one buffer per array, and what crosses at entry and exit.

A buffer holds the array from element 0 on, in the host's row-major layout,
so it is copied with one transfer: inner extents come from the declaration
(or from delinearisation), the outermost from the declaration or, for a
pointer, from the largest element the region may touch.

Copy-in: arrays with live-in reads, and written arrays whose writes may not
cover the whole buffer (so the copy-out never overwrites host data with
garbage).  Copy-out: every written array.  Locals of the region live only on
the device.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polypragma.dependences import Dependences
from polypragma.diagnostics import Unsupported
from polypragma.model import Array, Scop, c_expression


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

    @property
    def scalar(self) -> bool:
        return self.rank == 0


def _c(pa: isl.PwAff) -> str:
    return c_expression(pa)  # plain C: host code has no min/max


def _box(array: Array, extents: list[isl.PwAff]) -> isl.Set:
    """``{ A[a] : 0 <= a_d < extent_d }``."""
    space = array.footprint.get_space()
    box = isl.Set.universe(space)
    local = isl.LocalSpace.from_space(space)
    zero = isl.PwAff.from_aff(isl.Aff.zero_on_domain(local))
    for d, extent in enumerate(extents):
        var = isl.PwAff.from_aff(isl.Aff.var_on_domain(local, isl.dim_type.set, d))
        lifted = extent.add_dims(isl.dim_type.in_, space.dim(isl.dim_type.set))
        lifted = lifted.set_tuple_id(isl.dim_type.in_, space.get_tuple_id(isl.dim_type.set)) \
            if space.has_tuple_id(isl.dim_type.set) else lifted
        box = box.intersect(var.ge_set(zero)).intersect(var.lt_set(lifted))
    return box


def device_arrays(scop: Scop, deps: Dependences) -> list[DeviceArray]:
    written = scop.may_writes
    must = scop.must_writes
    live_in = deps.live_in_data()
    result = []
    for array in scop.arrays:
        location = scop.region.location
        if array.region_level:
            raise Unsupported(f"declaration of '{array.c_name}' at the top level of the region", location,
                              "is not supported by the GPU targets; declare it before '#pragma scop'")
        space = array.footprint.get_space()
        footprint = array.footprint
        is_written = not written.intersect_range(isl.UnionSet.from_set(footprint)).is_empty()
        if array.rank == 0:
            extents: list[isl.PwAff] = []
            elements = "1"
        else:
            extents = []
            for d, extent in enumerate(array.extents):
                if extent is not None:
                    extents.append(extent)
                    continue
                if d > 0:
                    raise Unsupported(f"array '{array.c_name}' with unknown extent in dimension {d}", location,
                                      "is not supported by the GPU targets")
                if not footprint.is_bounded():
                    culprit = next((r.unmodelled for r in scop.references
                                    if r.array == array.name and r.unmodelled is not None), None)
                    if culprit is not None:  # say which subscript, where
                        raise Unsupported(culprit[0], culprit[2], f"{culprit[1]}: the elements of "
                                          f"'{array.c_name}' accessed cannot be bounded; not supported by the "
                                          "GPU targets")
                    raise Unsupported(f"elements of '{array.c_name}' accessed", location,
                                      "cannot be bounded (a subscript depends on data); not supported by the "
                                      "GPU targets")
                local_space = isl.LocalSpace.from_space(space)
                first = isl.PwAff.from_aff(isl.Aff.var_on_domain(local_space, isl.dim_type.set, 0))
                if not footprint.is_subset(first.ge_set(isl.PwAff.from_aff(isl.Aff.zero_on_domain(local_space)))):
                    raise Unsupported(f"negative subscripts of '{array.c_name}'", location,
                                      "are not supported by the GPU targets")
                extents.append(footprint.dim_max(0).add_constant_val(isl.Val.one(space.get_ctx())))
            elements = " * ".join(f"(size_t)({_c(e)})" for e in extents) or "1"
        inner = tuple(_c(e) for e in extents[1:])
        constant_elements = None
        if all(e.is_cst() for e in extents) and extents:
            values = [e.max_val() for e in extents]
            if all(v.is_int() for v in values):
                constant_elements = 1
                for v in values:
                    constant_elements *= max(int(v.to_python()), 0)
        local = array.kind == "local"
        data = isl.UnionSet.from_set(footprint)
        has_live_in = not live_in.intersect(data).is_empty()
        if array.rank and is_written and not has_live_in:
            covered = must.range().intersect(data)
            box = _box(array, extents)
            fully = box.is_subset(isl.Set.from_union_set(covered)) if not covered.is_empty() else False
        else:
            fully = False
        result.append(DeviceArray(
            name=array.name, host_name=array.c_name, element_type=array.element_type,
            device_type=array.resolved_type or array.element_type, rank=array.rank, inner_extents=inner,
            elements=elements, copy_in=not local and (has_live_in or (is_written and not fully)),
            copy_out=not local and is_written, written=is_written, local=local,
            linearise=array.rank >= 2 and not array.delinearised, live_in=has_live_in,
            constant_elements=constant_elements))
    return result
