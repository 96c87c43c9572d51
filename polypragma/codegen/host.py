"""The host side of the GPU targets, written once for CUDA and OpenCL.

Per region, one host function returns 0 after running the region on the
device, or 1 when no device is used (the caller then runs the original loops).
Its skeleton is the same for every target (as PPCG's host tree is, with the
targets printing only its leaves):

* the device is set up once per process (``POLYPRAGMA_DEVICE=cpu`` skips it,
  ``POLYPRAGMA_DEVICE=gpu`` makes a missing device fatal);
* every declaration comes first (C++ forbids a jump over one); two arrays that
  overlap in memory, one written, send the region to its original loops;
  then each array is bound (host_data.py: in place in a data scope's device
  copy, else a buffer of the pool, or the host array itself where the device
  reaches it), filled, the host loops run with the kernel launches, the device
  is synchronised, the results copied out and the buffers given back to the pool;
  an array of rows through pointers (gpu/data.py) is a buffer of the pool filled
  and emptied through one host buffer laid out as it (one copy each way), packed
  and unpacked in loops over the rows its ``RowRanges`` give, the rows' overlaps
  with each other and with the other arrays checked first;
* every API call is checked; a failure names the call, the region's file and
  line and the error, and jumps to the release of what was bound.  The
  phase decides what it means: before the copy-out the caller falls back to
  the original loops (unless ``POLYPRAGMA_DEVICE=gpu``) after the data layer
  has brought every array's host copy up to date, during it the program stops
  (the host arrays may be partly overwritten), after it the region is done.
  A failed release is reported too.  ``POLYPRAGMA_INJECT_FAILURE=N`` makes
  the N-th checked call fail, for tests.
* a library built for the Python API (``-DPOLYPRAGMA_LIBRARY``) never exits: what
  would stop a program is recorded for the caller instead (see the prelude).

A :class:`HostSyntax` subclass per target spells the calls: launches,
synchronisation, constant memory, the device pointer of a binding, and the
target's own extras at fixed points of the skeleton (CUDA's texture objects and
profiling events); the buffers and copies are the target's primitives under the
data layer.  :func:`runtime` gives the C prelude both targets share: the
device-mode parser, the phases, the failure handler and the check macro.
"""

from __future__ import annotations

from string import Template

import islpy as isl

from polypragma.codegen.ast_build import CallbackFailures, ast_builder
from polypragma.codegen.body import ASSERT_FLAG
from polypragma.codegen.gpu import kernel_arrays, kernel_checks, kernel_scalar_params
from polypragma.codegen.inspector import inspection_lines, ordered_arrays
from polypragma.codegen.overflow import LARGEST
from polypragma.codegen.printer import CFamilyPrinter
from polypragma.gpu.data import ROW, DeviceArray, RowRanges
from polypragma.gpu.mapping import Kernel, kernel_mark
from polypragma.gpu.region import GpuRegion

# the points of the skeleton where a target may add lines (see HostSyntax.at)
POINTS = ("start", "allocated", "copied in", "launched", "done", "release", "released")


class HostSyntax:
    """How a GPU target spells the host side; subclasses per target.

    Runtime names are ``polypragma_<prefix>_fail<suffix>``, ``POLYPRAGMA_<PREFIX>_CHECK<suffix>`` and
    ``polypragma_<prefix>_setup<suffix>``; the suffix keeps the static functions of two generated files
    apart when one file includes the other.
    """

    prefix = ""  # "cuda", "cl"
    storage = ""  # of the host function: 'extern "C" ' or 'static '
    error_type = ""  # the API's status type
    success = ""  # its success value
    error_format = ""  # printf text after "CALL failed", with one conversion for error_value
    error_value = ""  # C expression of the variable 'error' for that conversion
    injected_error = ""  # the status a failure injected by POLYPRAGMA_INJECT_FAILURE returns
    constant_symbols = False  # constant memory is a symbol of the file, filled from the host (CUDA)

    def __init__(self, suffix: str = ""):
        self.suffix = suffix

    @property
    def fail(self) -> str:
        return f"polypragma_{self.prefix}_fail{self.suffix}"

    @property
    def check(self) -> str:
        return f"POLYPRAGMA_{self.prefix.upper()}_CHECK{self.suffix}"

    @property
    def setup(self) -> str:
        return f"polypragma_{self.prefix}_setup{self.suffix}"

    def checked(self, call: str) -> str:
        return f"{self.check}({call});"

    def released(self, call: str, condition: str, loop: str = "if") -> list[str]:
        """``call`` releasing something while ``condition`` holds (``loop``: "if" or "while"), in the
        release section: a failure is reported, and decides the status when nothing failed before."""
        return [f"  {loop} ({condition}) {{",
                f"    const {self.error_type} error = {call};",
                f"    if (error != {self.success} && polypragma_status == 0)",
                f'      polypragma_status = {self.fail}("{call}", error, polypragma_where, polypragma_phase);',
                "  }"]

    # -- hooks -------------------------------------------------------------------------
    def buffer_type(self, array: DeviceArray) -> str:
        """The type of ``dev_<array>``, with the space before the name when it needs one."""
        raise NotImplementedError

    def declarations(self, region: GpuRegion) -> list[str]:
        """The target's own variables of the host function (after the buffers')."""
        return []

    def device_pointer(self, array: DeviceArray) -> str:
        """The value of ``dev_<array>`` from its binding ``bind_<array>`` (see host_data.py)."""
        raise NotImplementedError

    def in_place_alignment(self, region: GpuRegion, array: DeviceArray) -> str:
        """The alignment in bytes the array's offset must have to be used in place in a data scope's
        buffer ("0": only at offset 0)."""
        raise NotImplementedError

    def direct(self, region: GpuRegion, array: DeviceArray) -> bool:
        """Whether the kernels may reach the host array in place where the device can (host_data.py)."""
        return False

    def copy_to_constant(self, region: GpuRegion, array: DeviceArray) -> str:
        """The call copying ``array`` from the host to constant memory (a target that has it)."""
        raise NotImplementedError

    def copy_in_from_device(self, region: GpuRegion, array: DeviceArray) -> str:
        """The call copying the caller's device buffer ``dev_<array>`` to constant memory (for
        ``host_function(caller_buffers=True)``)."""
        raise NotImplementedError

    def caller_buffer(self, array: DeviceArray) -> str:
        """The value of ``dev_<array>`` from the parameter through which the caller passes its own device
        buffer (``host_function(caller_buffers=True)``): a device pointer (CUDA), a cl_mem (OpenCL)."""
        return f"({array.device_type} *){array.host_name}"

    def synchronise(self) -> str:
        """The call waiting for every launch to finish, before the copy-out."""
        raise NotImplementedError

    def kernel_argument(self, region: GpuRegion, kernel: Kernel, array: DeviceArray) -> tuple[str, str] | None:
        """(C type, value) of the launch argument passing ``array``; None: the kernel reaches it otherwise.
        Must match the kernel's parameters (GpuSyntax.array_param)."""
        raise NotImplementedError

    def flag_argument(self, name: str) -> tuple[str, str]:
        """(C type, value) of the launch argument passing the buffer ``name`` (a ``void *`` of the data layer)
        to a kernel's flag parameter (GpuSyntax.flag_param)."""
        raise NotImplementedError

    def launch(self, region: GpuRegion, kernel: Kernel, arguments: list[tuple[str, str]], grid: list[str],
               block: list[str], pad: str) -> list[str]:
        """A checked launch of ``kernel``; ``grid`` (tile counts, at least 1) and ``block`` (threads) are
        per launch dimension, x first."""
        raise NotImplementedError

    def at(self, region: GpuRegion, point: str) -> list[str]:
        """The target's own lines at one of ``POINTS`` of the skeleton."""
        return []


def _index_range_check(region: GpuRegion, caller_buffers: bool) -> list[str]:
    """The check that no array whose extents are parameters has more elements than the kernels' flat
    indices count in the iterators' type (an array of constant size beyond it has them computed in the
    wider type: gpu.py's flat_index): past it, the original loops run (an error where the caller's buffers
    are used, which cannot fall back)."""
    largest = LARGEST.get(region.scop.iterator_type, LARGEST["int"])
    arrays = [a for a in region.arrays if a.rank > 1 and a.constant_elements is None and a.member is None]
    if largest > LARGEST["int"] or not arrays:
        return []
    lines = ["  {  /* more elements than the kernels' int indices count: the original loops */",
             "    static int said = 0;"]
    for a in arrays:
        lines += [f"    if ((size_t)({a.elements}) > (size_t){largest}) {{",
                  "      if (!said)",
                  f'        POLYPRAGMA_REPORT("polypragma: %s: array \'{a.shown}\' has %zu elements, more than the '
                  f"kernels' int indices reach{'' if caller_buffers else '; running the original loops'}\\n\", "
                  f"polypragma_where, (size_t)({a.elements}));",
                  "      said = 1;",
                  "      polypragma_status = 1;",
                  "      goto polypragma_release;",
                  "    }"]
    return lines + ["  }"]


def _assumption_check(region: GpuRegion, syntax: HostSyntax, caller_buffers: bool) -> list[str]:
    """The check that the parameters are among those the region's model holds for (Scop.assumed: flat
    subscripts read as rows where the rows do not overlap)."""
    condition = region.scop.assumed_condition()
    if condition is None:
        return []
    return _original_where(region, syntax, f"!({condition})", "outside the parameters the kernels are for",
                           f"the kernels are for parameters where {_in_format(condition)}, which do not hold",
                           caller_buffers)


def _negative_check(region: GpuRegion, inspected: list[DeviceArray], syntax: HostSyntax) -> list[str]:
    """The check that no inspection found a negative subscript (the region reads before the pointer)."""
    lines = []
    for a in inspected:
        lines += _original_where(region, syntax, a.inspection.below, f"before the start of '{a.host_name}'",
                                 f"a subscript of '{a.host_name}' is negative "
                                 f"({_in_format(', '.join(a.inspection.subscripts))})", False)
    return lines


def _original_where(region: GpuRegion, syntax: HostSyntax, condition: str, comment: str, message: str,
                    caller_buffers: bool) -> list[str]:
    """Where ``condition`` holds, the original loops run, once saying ``message``, after every array a data
    scope keeps is brought to the host, since the model bounds none of their accesses there (an error where
    the caller's buffers are used, which cannot fall back)."""
    written = int(any(a.written for a in region.arrays if not a.local))
    lines = [f"  if ({condition}) {{  /* {comment}: the original loops */",
             "    static int said = 0;",
             "    if (!said)",
             f'      POLYPRAGMA_REPORT("polypragma: %s: {message}'
             f"{'' if caller_buffers else '; running the original loops'}\\n\", polypragma_where);",
             "    said = 1;"]
    if not caller_buffers:
        lines += [f"    if (polypragma_every_current{syntax.suffix}({written}, polypragma_where) != 0)",
                  "      return POLYPRAGMA_STATUS(0);"]
    return lines + ["    return POLYPRAGMA_STATUS(1);", "  }"]


def host_function(region: GpuRegion, syntax: HostSyntax, source: str,
                  caller_buffers: bool = False) -> tuple[list[str], set[str]]:
    """The function running ``region`` on the device, and the helper macros its host loops use.

    Each array of the host gets a binding (host_data.py): in place in a data scope's device copy when
    one holds it, else a buffer of the pool, filled from the host and emptied back to it.

    With ``caller_buffers``, the function ``<function>_device`` of the same parameters, whose arrays
    are device buffers of the caller (the Python API's device arrays, used in place): only the
    region's local arrays are allocated and released, nothing crosses to or from the host, and a
    failure cannot fall back (the caller's data is on the device), so any status but 0 is an error."""
    def owned(a: DeviceArray) -> bool:
        return not caller_buffers or a.local

    def bound(a: DeviceArray) -> bool:  # a buffer of its own (not constant memory)
        return owned(a) and (a.name not in region.constant or not syntax.constant_symbols)

    def host(a: DeviceArray) -> str:  # (rows through pointers cross packed, below)
        return "NULL" if a.local or a.rows else a.host_name

    def rows(a: DeviceArray, ranges: RowRanges, call, pad: str = "  ") -> list[str]:
        """``call(row, first, last)``, C lines, for each row of ``ranges`` of array ``a`` of rows through pointers."""
        return _row_loop(ranges, lambda first, last: call(a.row_pointer(ROW), first, last), pad)

    def row_size(a: DeviceArray) -> str:
        return f"sizeof({a.device_type})"

    def pack_width(a: DeviceArray) -> str:  # a row of the pack: the dense copy's, or all of a single row's
        return a.inner_extents[0] if a.inner_extents else f"({a.elements})"

    def rows_bytes(a: DeviceArray, ranges: RowRanges | None) -> str:
        if ranges is None:
            return "0"
        return f"polypragma_rows_bytes{syntax.suffix}({ranges.first}, {ranges.last}, {pack_width(a)}, {row_size(a)})"

    def rows_cross(a: DeviceArray, ranges: RowRanges, into: bool) -> str:
        return (f"polypragma_rows_cross{syntax.suffix}(bind_{a.name}.buffer, pack_{a.name}, {ranges.first}, "
                f"{ranges.last}, {pack_width(a)}, {row_size(a)}, bytes_{a.name}, {int(into)}, \"{a.shown}\", "
                "polypragma_where)")

    where = where_literal(region, source)
    params = ", ".join(f"{t} {n}" for t, n in region.signature_parameters()) or "void"
    name = region.function + ("_device" if caller_buffers else "")
    binding = f"polypragma_binding{syntax.suffix}"
    lines = [f"{syntax.storage}int {name}({params})", "{",
             f"  const char *const polypragma_where = {where};"]
    for a in region.arrays:
        if a.inspection is None:
            lines.append(f"  const size_t bytes_{a.name} = {a.elements} * sizeof({a.device_type});")
    visible = [a for a in region.arrays if not a.local]
    lines += _assumption_check(region, syntax, caller_buffers)
    inspected = ordered_arrays(region)
    helpers: set[str] = set()
    for a in inspected:  # (each after those its inspection reads)
        found, used = inspection_lines(region, a, None if caller_buffers else f"polypragma_host_current{syntax.suffix}")
        lines += found + [f"  const size_t bytes_{a.name} = {a.elements} * sizeof({a.device_type});"]
        helpers |= used
    if inspected and not caller_buffers:
        lines += _negative_check(region, inspected, syntax)
    lines.append(f"  if ({syntax.setup}(polypragma_where) != 0) {{")
    if not caller_buffers:  # a data scope's device copies are brought to the host for the original loops
        for a in visible:
            if a.rows:
                lines += rows(a, a.rows_in, lambda row, first, last, a=a: [
                    f"if (polypragma_row_current{syntax.suffix}({row}, {first}, {last}, {row_size(a)}, "
                    f"{int(a.written)}, polypragma_where) != 0)", "  return POLYPRAGMA_STATUS(0);"], "    ")
            else:
                lines.append(f"    if (polypragma_host_current{syntax.suffix}({a.host_name}, bytes_{a.name}, "
                             f"{int(a.written)}, polypragma_where) != 0)\n      return POLYPRAGMA_STATUS(0);")
    lines += ["    return POLYPRAGMA_STATUS(1);", "  }",
              "  int polypragma_status = 0;",
              "  int polypragma_phase = POLYPRAGMA_BEFORE_COPY_OUT;",
]
    tracked = any(bound(a) for a in region.arrays)  # whether a failure must know if a kernel ran
    if tracked:
        lines.append("  int polypragma_launched = 0;  /* a kernel ran: data used in place may be partly written */")
    checks = any(kernel_checks(region, k) for k in region.mapping.kernels)
    flag = f'sizeof(int), "{ASSERT_FLAG}", polypragma_where, POLYPRAGMA_BEFORE_COPY_OUT'
    if checks:
        lines.append(f"  void *{ASSERT_FLAG} = NULL;  /* set by a kernel whose assert fails */")
    for a in region.arrays:
        if bound(a):
            lines += [f"  {binding} bind_{a.name} = {{0}};", f"  {syntax.buffer_type(a)}dev_{a.name} = NULL;"]
            if a.rows:  # the rows' host buffer, laid out as their dense device copy
                lines += [f"  char *pack_{a.name} = NULL;", f"  size_t pack_{a.name}_bytes = 0;"]
        elif not owned(a):  # the caller's buffer: its size may serve a constant copy or a texture only
            lines += [f"  {syntax.buffer_type(a)}dev_{a.name} = {syntax.caller_buffer(a)};",
                      f"  (void)bytes_{a.name};"]
    lines += syntax.declarations(region)
    lines += syntax.at(region, "start")
    # the arguments against each other in host memory, one written (the same array twice, f(x, x + 1), a row
    # that is another argument's memory, rows that alias each other): the original loops
    arrays = [a for a in visible if a.rank > 0 and not a.rows]
    row_arrays = [a for a in visible if a.rows]
    lines += _index_range_check(region, caller_buffers)
    if not caller_buffers and any(a.written for a in arrays + row_arrays) and (len(arrays) > 1 or row_arrays):
        lines += ["  {  /* arguments overlapping in memory, one written: the original loops */",
                  "    static int said[4] = {0};",
                  f"    polypragma_spans{syntax.suffix} spans = {{0}};"]
        lines += [f"    polypragma_span_array{syntax.suffix}(&spans, {a.host_name}, bytes_{a.name}, {int(a.written)}, "
                  f"\"{a.host_name}\");" for a in arrays]
        for r in row_arrays:
            lines += rows(r, r.rows_in, lambda row, first, last, r=r: [
                f"polypragma_span_add{syntax.suffix}(&spans, {row}, {first}, {last}, {row_size(r)}, {int(r.written)}, 1, "
                f"\"{r.shown}\");"], "    ")
        lines += [f"    if (polypragma_spans_overlap{syntax.suffix}(&spans, polypragma_where, said)) {{",
                  "      polypragma_status = 1;",
                  "      goto polypragma_release;",
                  "    }",
                  "  }"]
    for a in region.arrays:
        if bound(a):
            lines += [f"  POLYPRAGMA_DATA_STEP(polypragma_bind{syntax.suffix}(&bind_{a.name}, {host(a)}, bytes_{a.name}, "
                      f"{int(a.copy_in and not a.rows)}, {'0' if a.rows else syntax.in_place_alignment(region, a)}, "
                      f"{int(syntax.direct(region, a) and not a.rows)}, {int(a.rank > 0 and not a.rows)}, "
                      f"\"{a.shown}\", polypragma_where));",
                      f"  dev_{a.name} = {syntax.device_pointer(a)};"]
    lines += syntax.at(region, "allocated")
    for a in region.arrays:
        if not owned(a) and a.name in region.constant and syntax.constant_symbols:
            lines += [f"  if (bytes_{a.name} > 0)", f"    {syntax.checked(syntax.copy_in_from_device(region, a))}"]
        elif owned(a) and not bound(a):  # constant memory: from the host, whose copy must be current
            lines += [f"  POLYPRAGMA_DATA_STEP(polypragma_host_current{syntax.suffix}({a.host_name}, bytes_{a.name}, 0, "
                      "polypragma_where));",
                      f"  if (bytes_{a.name} > 0)", f"    {syntax.checked(syntax.copy_to_constant(region, a))}"]
        elif bound(a) and a.rows:  # packed as the dense copy, then in one copy
            lines.append(f"  POLYPRAGMA_DATA_STEP(polypragma_pack_reserve{syntax.suffix}(&pack_{a.name}, "
                         f"&pack_{a.name}_bytes, {rows_bytes(a, a.rows_in)}, {rows_bytes(a, a.rows_out)}, "
                         f"\"{a.shown}\", polypragma_where));")
            lines += rows(a, a.rows_in, lambda row, first, last, a=a: [
                f"POLYPRAGMA_DATA_STEP(polypragma_row_pack{syntax.suffix}(pack_{a.name}, {row}, "
                f"{ROW} - ({a.rows_in.first}), {first}, {last}, {pack_width(a)}, {row_size(a)}, {int(a.copy_in)}, "
                "polypragma_where));"])
            if a.copy_in:
                lines.append(f"  POLYPRAGMA_DATA_STEP({rows_cross(a, a.rows_in, True)});")
        elif bound(a):
            lines.append(f"  POLYPRAGMA_DATA_STEP(polypragma_fill{syntax.suffix}(&bind_{a.name}, {host(a)}, "
                         f"\"{a.host_name}\", polypragma_where));")
    if checks:
        lines += [f"  POLYPRAGMA_DATA_STEP(polypragma_buffer_get{syntax.suffix}(&{ASSERT_FLAG}, {flag}));",
                  "  {",
                  "    const int zero = 0;",
                  f"    POLYPRAGMA_DATA_STEP(polypragma_upload{syntax.suffix}({ASSERT_FLAG}, 0, &zero, {flag}));",
                  "  }"]
    lines += syntax.at(region, "copied in")
    printer = HostPrinter(region, lambda kernel, hosts, counts, depth:
                          _launch(region, syntax, kernel, hosts, counts, depth, tracked))
    lines += printer.node(host_ast(region), 1)
    lines += syntax.at(region, "launched")
    lines.append(f"  {syntax.checked(syntax.synchronise())}")
    if checks:  # (under NDEBUG the original loops assert nothing either)
        lines += ["#ifndef NDEBUG",
                  "  {  /* an assert failed in a kernel: the original loops run, and theirs stops the program */",
                  "    int failed = 0;",
                  f"    POLYPRAGMA_DATA_STEP(polypragma_download{syntax.suffix}(&failed, {ASSERT_FLAG}, 0, {flag}));",
                  "    if (failed) {",
                  '      POLYPRAGMA_REPORT("polypragma: %s: an assert failed in a kernel'
                  + ('' if caller_buffers else '; running the original loops') + '\\n", polypragma_where);',
                  "      polypragma_status = 1;",
                  "      goto polypragma_release;",
                  "    }",
                  "  }",
                  "#endif"]
    lines.append("  polypragma_phase = POLYPRAGMA_COPYING_OUT;")
    for a in region.arrays:
        if bound(a) and a.rows:
            if a.copy_out:  # the rows written, in one copy from the dense copy, then row by row out of the pack
                lines.append(f"  POLYPRAGMA_DATA_STEP({rows_cross(a, a.rows_out, False)});")
                lines += rows(a, a.rows_out, lambda row, first, last, a=a: [
                    f"polypragma_row_unpack{syntax.suffix}({row}, pack_{a.name}, {ROW} - ({a.rows_out.first}), "
                    f"{first}, {last}, {pack_width(a)}, {row_size(a)}, polypragma_where);"])
        elif bound(a) and not a.local:
            lines.append(f"  POLYPRAGMA_DATA_STEP(polypragma_finish{syntax.suffix}(&bind_{a.name}, {a.host_name}, "
                         f"{int(a.written)}, {int(a.copy_out)}, \"{a.host_name}\", polypragma_where));")
    lines.append("  polypragma_phase = POLYPRAGMA_DONE;")
    lines += syntax.at(region, "done")
    lines.append("polypragma_release:")
    lines += syntax.at(region, "release")
    if checks:
        lines += [f"  if ({ASSERT_FLAG} != NULL) {{",
                  f"    const int status = polypragma_buffer_put{syntax.suffix}({ASSERT_FLAG}, {flag});",
                  "    if (status != 0 && polypragma_status == 0)",
                  "      polypragma_status = status;",
                  "  }"]
    for a in region.arrays:
        if bound(a):
            lines += ["  {",
                      f"    const int status = polypragma_unbind{syntax.suffix}(&bind_{a.name}, {host(a)}, bytes_{a.name}, "
                      f"{int(a.written)}, polypragma_status != 0, polypragma_launched, \"{a.shown}\", "
                      "polypragma_where, polypragma_phase);",
                      "    if (status != 0 && polypragma_status == 0)",
                      "      polypragma_status = status;",
                      "  }"]
            if a.rows:
                lines.append(f"  free(pack_{a.name});")
            if a.rows and a.written:  # the original loops will write the rows: a kept copy is stale then
                lines.append("  if (polypragma_status != 0) {")
                lines += rows(a, a.rows_in, lambda row, first, last, a=a: [
                    f"polypragma_row_current{syntax.suffix}({row}, {first}, {last}, {row_size(a)}, 1, "
                    "polypragma_where);"], "    ")
                lines.append("  }")
    lines += syntax.at(region, "released")
    lines += ["  return POLYPRAGMA_STATUS(polypragma_status);", "}"]
    return lines, printer.helpers_used | helpers


def _row_loop(ranges: RowRanges, body, pad: str) -> list[str]:
    """The lines ``body(first, last)`` for each row of ``ranges`` (the row in the variable :data:`ROW`)."""
    inner = pad + "  "
    lines = [f"{pad}for (long {ROW} = {ranges.first}; {ROW} <= {ranges.last}; ++{ROW}) {{"]
    if ranges.condition is not None:
        lines += [f"{inner}if (!{ranges.condition})", f"{inner}  continue;"]
    lines += [inner + line for line in body(ranges.low, ranges.high)]
    return lines + [f"{pad}}}"]


def _launch(region: GpuRegion, syntax: HostSyntax, kernel: Kernel, hosts: list[str], counts: list[str],
            depth: int, tracked: bool) -> list[str]:
    """One kernel launch: its arguments, its tile counts bounded by the grid size, and a launch
    when there is a tile at all (``tracked``: noted in ``polypragma_launched``)."""
    pad = "  " * depth
    inner = pad + "  "
    launched = ["polypragma_launched = 1;"] if tracked else []
    out = [f"{pad}{{  /* kernel {kernel.index}: {', '.join(kernel.statements)} */"]
    arguments = []
    for a in kernel_arrays(region, kernel):
        argument = syntax.kernel_argument(region, kernel, a)
        if argument is not None:
            arguments.append(argument)
    if kernel_checks(region, kernel):
        arguments.append(syntax.flag_argument(ASSERT_FLAG))
    for ctype, name in kernel_scalar_params(region, kernel):
        value = name
        if name in kernel.host_params:  # a named value: OpenCL passes arguments by address
            value = f"host_{name}"
            out.append(f"{inner}const {ctype} {value} = {hosts[kernel.host_params.index(name)]};")
        arguments.append((ctype, value))
    if not kernel.mapped:  # one thread
        out += syntax.launch(region, kernel, arguments, ["1"], ["1"], inner)
        out += [inner + s for s in launched] + [f"{pad}}}"]
        return out
    out.append(f"{inner}long tiles[{kernel.mapped}];")
    for d in range(kernel.mapped):
        out.append(f"{inner}tiles[{d}] = {counts[d]};")
        if kernel.wrapped[d]:  # (elsewhere the tiles are never more than the grid)
            out.append(f"{inner}if (tiles[{d}] > {kernel.grid[d]}) tiles[{d}] = {kernel.grid[d]};")
    # launch dimension 0 (x) is the innermost mapped loop
    order = range(kernel.mapped - 1, -1, -1)
    out.append(f"{inner}if ({' && '.join(f'tiles[{d}] > 0' for d in range(kernel.mapped))}) {{")
    out += syntax.launch(region, kernel, arguments, [f"tiles[{d}]" for d in order],
                         [str(kernel.sizes.block[d]) for d in order], inner + "  ")
    out += [inner + "  " + s for s in launched] + [f"{inner}}}", f"{pad}}}"]
    return out


_RUNTIME = Template(r"""
/* How the runtime reports a failure and stops.  A program prints on stderr and exits.  A shared library
   built for polypragma's Python API (-DPOLYPRAGMA_LIBRARY) must not end the interpreter: it hands every
   message to polypragma_library_report and records a fatal failure with polypragma_library_fatal; the
   host function then releases what it allocated and returns 0 (POLYPRAGMA_STATUS), so that the caller
   does not run the original loops either, and the library's entry point returns the failure. */
#ifndef POLYPRAGMA_REPORTING
#define POLYPRAGMA_REPORTING
#ifdef POLYPRAGMA_LIBRARY
#ifdef __cplusplus
extern "C" {
#endif
void polypragma_library_report(const char *format, ...);
void polypragma_library_fatal(void);
int polypragma_library_stopped(void);
#ifdef __cplusplus
}
#endif
#define POLYPRAGMA_REPORT polypragma_library_report
#define POLYPRAGMA_FATAL() polypragma_library_fatal()
#define POLYPRAGMA_STATUS(status) (polypragma_library_stopped() ? 0 : (status))
#else
#define POLYPRAGMA_REPORT(...) fprintf(stderr, __VA_ARGS__)
#define POLYPRAGMA_FATAL() exit(1)
#define POLYPRAGMA_STATUS(status) (status)
#endif
#endif

/* POLYPRAGMA_DEVICE: "cpu" runs the original loops, "gpu" requires the device, unset or "auto" uses it if present */
/* a size in bytes from the environment variable NAME ("64M", "1g", "4096"), or FALLBACK */
static size_t polypragma_size_env$suffix(const char *name, size_t fallback)
{
  const char *value = getenv(name);
  if (value == NULL || value[0] == '\0')
    return fallback;
  char *end = NULL;
  double number = strtod(value, &end);
  if (end != NULL && (*end == 'k' || *end == 'K'))
    number *= 1024.0;
  else if (end != NULL && (*end == 'm' || *end == 'M'))
    number *= 1048576.0;
  else if (end != NULL && (*end == 'g' || *end == 'G'))
    number *= 1073741824.0;
  return number > 0 ? (size_t)number : fallback;
}

static int polypragma_device_mode$suffix(void)
{
  const char *mode = getenv("POLYPRAGMA_DEVICE");
  if (mode == NULL || mode[0] == '\0' || strcmp(mode, "auto") == 0)
    return 0;
  if (strcmp(mode, "cpu") == 0)
    return 1;
  if (strcmp(mode, "gpu") == 0)
    return 2;
  POLYPRAGMA_REPORT("polypragma: POLYPRAGMA_DEVICE must be 'cpu', 'gpu' or 'auto', not '%s'\n", mode);
  POLYPRAGMA_FATAL();
  return 1;
}

/* The phases of a region's host function, which decide what a failure leads to */
#ifndef POLYPRAGMA_PHASES
#define POLYPRAGMA_PHASES
enum { POLYPRAGMA_BEFORE_COPY_OUT, POLYPRAGMA_COPYING_OUT, POLYPRAGMA_DONE };
#endif

/* A failure, always reported.  Before the copy-out the host data is untouched: the caller runs the
   original loops (1), unless POLYPRAGMA_DEVICE=gpu makes it fatal.  During the copy-out the host arrays
   may be partly overwritten, so running the original loops would be wrong: fatal.  After it the results
   are on the host: the region is done (0). */
static int $fail(const char *call, $error_type error, const char *where, int phase)
{
  POLYPRAGMA_REPORT("polypragma: %s: %s failed$error_format\n", where, call, $error_value);
  if (phase == POLYPRAGMA_COPYING_OUT) {
    POLYPRAGMA_REPORT("polypragma: %s: the host arrays may be partly overwritten; cannot fall back to the "
                      "original loops\n", where);
    POLYPRAGMA_FATAL();
  }
  else if (polypragma_device_mode$suffix() == 2)
    POLYPRAGMA_FATAL();
  return phase == POLYPRAGMA_DONE ? 0 : 1;
}

/* POLYPRAGMA_INJECT_FAILURE=N (for tests): the N-th checked call of this file's runtime in the process
   fails without being made, with the status $injected */
static int polypragma_injected$suffix(void)
{
  static long target = -2, count = 0;
  if (target == -2) {
    const char *value = getenv("POLYPRAGMA_INJECT_FAILURE");
    target = value != NULL && value[0] != '\0' ? atol(value) : -1;
  }
  if (target < 0 || ++count != target)
    return 0;
  POLYPRAGMA_REPORT("polypragma: injecting a failure into checked call %ld (POLYPRAGMA_INJECT_FAILURE)\n", count);
  return 1;
}
#define POLYPRAGMA_CALL$suffix(call) (polypragma_injected$suffix() ? ($injected) : (call))

/* In a region's host function: a step of the data layer (host_data.py), which reported its failure */
#ifndef POLYPRAGMA_DATA_STEP
#define POLYPRAGMA_DATA_STEP(call) \
  do { int polypragma_step_ = (call); \
       if (polypragma_step_ != 0) { polypragma_status = polypragma_step_; goto polypragma_release; } } while (0)
#endif

/* In a region's host function: on failure, record the status and release what was allocated */
#define $check(call) \
  do { $error_type polypragma_error_ = POLYPRAGMA_CALL$suffix(call); \
       if (polypragma_error_ != $success) { \
         polypragma_status = $fail(#call, polypragma_error_, polypragma_where, polypragma_phase); \
         goto polypragma_release; } } while (0)
""")


def runtime(syntax: HostSyntax) -> list[str]:
    """The prelude every GPU target's host code starts with (after its includes)."""
    text = _RUNTIME.substitute(suffix=syntax.suffix, fail=syntax.fail, check=syntax.check,
                               injected=syntax.injected_error,
                               error_type=syntax.error_type, success=syntax.success,
                               error_format=syntax.error_format, error_value=syntax.error_value)
    return text.strip("\n").split("\n")


# -- the host loops ----------------------------------------------------------------------


class HostPrinter(CFamilyPrinter):
    """The host loops; each kernel launch is a call node made by ``host_ast``."""

    def __init__(self, region: GpuRegion, launch):
        super().__init__(region.scop.iterator_type, region.scop.signed_names)
        self.region = region
        # (kernel, values of its host dimensions h0, h1, ..., its tile counts, depth) -> lines
        self.launch = launch

    def user(self, n: isl.AstNode, depth: int) -> list[str]:
        call = n.user_get_expr()
        mark = kernel_mark(call.get_op_arg(0).get_id())
        if mark is None:
            raise AssertionError("statement outside any kernel")
        kernel = self.region.mapping.kernels[mark.index]
        arguments = [self.expr(call.get_op_arg(k)) for k in range(1, call.get_op_n_arg())]
        hosts = len(kernel.host_params)
        return self.launch(kernel, arguments[:hosts], arguments[hosts:], depth)


def host_ast(region: GpuRegion) -> isl.AstNode:
    """The host loops, each kernel's subtree replaced by a call ``kernel(h0, h1, ..., counts)`` on its
    mark's id (which says which kernel): the values of the kernel's host dimensions and its tile counts,
    as isl writes them where the kernel stands.  They cannot be named after the host loops' iterators:
    a host loop of one iteration is no loop in isl's AST, and its iterator is not declared."""

    def launch(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        mark = node.mark_get_id()
        kernel_id = kernel_mark(mark)
        if kernel_id is None:
            return node
        kernel = region.mapping.kernels[kernel_id.index]
        arguments = isl.AstExprList.alloc(build.get_ctx(), 0)
        for value in _launch_values(kernel, build):
            arguments = arguments.add(build.expr_from_pw_aff(value))
        return isl.AstNode.alloc_user(isl.AstExpr.from_id(mark).call(arguments))

    failures = CallbackFailures()
    build = ast_builder(region.scop.context, region.names.host)
    # islpy returns the callback's lifetime handle with the build; keep it alive while building
    build, _handle = build.set_after_each_mark(failures.kept(launch))
    ast = build.node_from_schedule(region.mapping.host_schedule)
    failures.raise_first()
    return ast


def _launch_values(kernel: Kernel, build: isl.AstBuild) -> list[isl.PwAff]:
    """The host dimensions h0, h1, ... of ``kernel`` and its tile counts, as functions on the schedule
    space of ``build`` (where the kernel's mark stands)."""
    # { [schedule space] -> [h0, h1, ...] }, single-valued
    to_hosts = isl.Map.from_union_map(build.get_schedule().reverse().apply_range(kernel.host_schedule))
    hosts = isl.PwMultiAff.from_map(to_hosts)
    values = [hosts.get_pw_aff(j) for j in range(len(kernel.host_params))]
    for count in kernel.tile_counts:  # over the parameters h0, h1, ...: those become the domain
        count = count.align_params(to_hosts.get_space().params()).add_dims(isl.dim_type.in_, 0)  # a set domain
        for j, name in enumerate(kernel.host_params):
            position = count.get_space().find_dim_by_name(isl.dim_type.param, name)
            if position >= 0:
                count = count.move_dims(isl.dim_type.in_, j, isl.dim_type.param, position, 1)
            else:
                count = count.insert_dims(isl.dim_type.in_, j, 1)
        on_hosts = isl.Map.from_pw_aff(count)
        on_hosts = on_hosts.set_tuple_id(isl.dim_type.in_, to_hosts.get_tuple_id(isl.dim_type.out)) \
            if to_hosts.has_tuple_id(isl.dim_type.out) else on_hosts
        values.append(isl.PwMultiAff.from_map(to_hosts.apply_range(on_hosts)).get_pw_aff(0))
    return values


def where_literal(region: GpuRegion, source: str) -> str:
    """The C string literal naming the region in the host code's messages: ``"file.c:12: region 0"``."""
    scop = region.scop
    text = f"{source}:{scop.region.begin_line}: region {scop.region.index}"
    return '"' + _escaped(text) + '"'


def _escaped(text: str) -> str:
    """``text`` inside a C string literal (one line)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _in_format(text: str) -> str:
    """``text`` inside the format string of a C printf."""
    return _escaped(text).replace("%", "%%")


def c_string(text: str) -> list[str]:
    """``text`` as the lines of a C string literal."""
    return [f'  "{_escaped(line)}\\n"' for line in text.split("\n")]
