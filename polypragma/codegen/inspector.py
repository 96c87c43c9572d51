"""The host's inspections (gpu/inspection.py) as C: before the copies, each walks the instances of the
statements whose subscripts on data reach a pointer and finds how many of its elements the buffer needs."""

from __future__ import annotations

import islpy as isl

from polypragma.codegen.ast_build import ast_builder
from polypragma.codegen.body import DeviceBodyPrinter
from polypragma.codegen.printer import CFamilyPrinter
from polypragma.gpu.data import DeviceArray
from polypragma.gpu.inspection import Inspection, ordered
from polypragma.gpu.region import GpuRegion
from polypragma.model import Statement


class _InspectionPrinter(CFamilyPrinter):
    """The loops over one statement's domain, its body the inspection's slice."""

    def __init__(self, region: GpuRegion, statement: Statement, body, arrays: dict[str, DeviceArray],
                 inspection: Inspection):
        super().__init__(region.scop.iterator_type, region.scop.signed_names)
        self.statement = statement
        self.body = body
        self.arrays = arrays
        self.inspection = inspection
        self.open_loops = 0

    def enter_for(self, n: isl.AstNode) -> None:
        self.open_loops += 1

    def leave_for(self, n: isl.AstNode) -> None:
        self.open_loops -= 1

    def before_for(self, n: isl.AstNode, depth: int) -> list[str]:
        """Each outermost loop in parallel where the file is built with OpenMP: its iterations only read, but
        for the extent and the flag, which are reductions (the body's locals are its own).  (Called once the
        loop's body is printed: the loops still open are those around it.)"""
        if self.open_loops:
            return []
        return ["#ifdef _OPENMP",
                f"{self.pad(depth)}#pragma omp parallel for reduction(max: {self.inspection.extent}) "
                f"reduction(|: {self.inspection.below})",
                "#endif"]

    def user(self, n: isl.AstNode, depth: int) -> list[str]:
        substitutions = self.substitutions(self.statement, n.user_get_expr())
        printer = DeviceBodyPrinter(substitutions, self.arrays, opencl=False)
        pad = self.pad(depth)
        declared = [f"{pad}{self.indent_unit}{ctype} {substitutions.get(name, name)};"
                    for name, ctype in self.statement.private_iterators]
        lines = printer.statement(self.body, len(pad) + (len(self.indent_unit) if declared else 0))
        return [f"{pad}{{", *declared, *lines, f"{pad}}}"] if declared else lines


def ordered_arrays(region: GpuRegion) -> list[DeviceArray]:
    """The arrays whose extents inspections find, each after those its inspection reads
    (gpu/data.py refuses a cycle)."""
    by_name = {a.name: a for a in region.arrays if a.inspection is not None}
    inspections, _ = ordered([a.inspection for a in by_name.values()])
    return [by_name[i.array] for i in inspections]


def inspection_lines(region: GpuRegion, array: DeviceArray, current: str | None) -> tuple[list[str], set[str]]:
    """The C lines declaring and setting ``array``'s inspected extent; ``current`` (a C function name) brings
    the host's copies of the arrays it reads up to date first (None: the caller's device buffers, which
    the host cannot read: the extent stays what the modelled subscripts need, which serves no buffer), and
    the helper macros its loops use."""
    inspection: Inspection = array.inspection
    same = next((a for a in region.arrays if a.inspection is not None and a.name < array.name
                 and _same(a.inspection, inspection)), None)
    if same is not None and current is not None:  # (val[j] where col[j] is inspected)
        return [f"  const size_t {inspection.extent} = {same.inspection.extent};  /* '{array.host_name}': as for "
                f"'{same.host_name}' */", f"  const int {inspection.below} = {same.inspection.below};"], set()
    if current is None:
        return [f"  const size_t {inspection.extent} = {inspection.start};  /* '{array.host_name}': the caller's "
                "buffer, whose elements the host cannot read (not inspected) */"], set()
    lines = [f"  size_t {inspection.extent} = {inspection.start};  /* '{array.host_name}': "
             f"{inspection.describe()} */",
             f"  int {inspection.below} = 0;"]
    by_name = {a.name: a for a in region.arrays}
    for name in inspection.reads:
        read = by_name[name]
        lines += [f"  if ({current}({read.host_name}, bytes_{read.name}, 0, polypragma_where) != 0)",
                  "    return POLYPRAGMA_STATUS(0);"]
    host_arrays = {a.name: a for a in region.arrays if a.linearise and not a.rows and not a.local}
    scop = region.scop
    helpers: set[str] = set()
    for statement, body in inspection.bodies:
        domain = statement.domain.intersect_params(scop.context)
        schedule = isl.Map.identity(domain.get_space().map_from_set()).intersect_domain(domain)
        schedule = schedule.reset_tuple_id(isl.dim_type.out)
        build = ast_builder(scop.context, region.names.host)
        ast = build.node_from_schedule_map(isl.UnionMap.from_map(schedule))
        printer = _InspectionPrinter(region, statement, body, host_arrays, inspection)
        lines += ["  {", *printer.node(ast, 2), "  }"]
        helpers |= printer.helpers_used
    return lines, helpers


def _same(one: Inspection, other: Inspection) -> bool:
    """Whether two inspections find the same extent (the same subscripts of the same statements)."""
    return one.start == other.start and len(one.bodies) == len(other.bodies) and all(
        a[0].name == b[0].name and _printed(a[1], one) == _printed(b[1], other)
        for a, b in zip(one.bodies, other.bodies))


def _printed(body, inspection: Inspection) -> str:
    text = "\n".join(DeviceBodyPrinter({}, {}, opencl=False).statement(body, 0))
    return text.replace(inspection.extent, "EXTENT").replace(inspection.below, "BELOW")
