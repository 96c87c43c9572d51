"""The ``--explain`` report of one region: its kernels, their mapping, where each array lives and
which data moves, with the reasons the GPU stage recorded."""

from __future__ import annotations

import math

from polypragma.gpu.mapping import Kernel
from polypragma.gpu.spread import DEVICE_THREADS, SPREAD_MIN_EXTENT, UNKNOWN_EXTENT
from polypragma.gpu.memory import STATIC_SHARED_BYTES, Placement
from polypragma.gpu.region import GpuRegion, PartialTiles
from polypragma.gpu.sizes import MAX_REGISTERS


def _memory_lines(region: GpuRegion, kernel: Kernel) -> list[str]:
    """Where each array of ``kernel`` lives, group by group, and why."""
    if not region.memory:
        return []
    out = []
    vectors = region.vector_copies[kernel.index] if region.vector_copies else ()
    for group in region.memory[kernel.index].groups:
        lines = sorted({region.scop.statement(r.statement).line for r in group.references})
        kinds = "read and written" if group.writes and any(not r.is_write for r in group.references) else \
            "written" if group.writes else "read"
        moved = [(into, width) for name, into, width in vectors if name == group.name and group.name]
        copies = ""
        if moved:
            ways = " and ".join("in" if into else "out" for into, _ in moved)
            copies = (f"; copied {ways} {moved[0][1]} elements at a time (vectors: its rows start aligned), "
                      f"the elements no vector holds one by one")
        unrolled = {}  # into -> the most copies a thread makes of a full tile (of a piece of the copy)
        for name, into, count in (region.copies_apart[kernel.index] if region.copies_apart else ()):
            if name == group.name:
                unrolled[into] = max(count, unrolled.get(into, 0))
        for into, count in sorted(unrolled.items(), reverse=True):
            copies += (f"; copied {'in' if into else 'out'} unrolled in the tiles where all of it exists ({count} "
                       f"copies a thread, without a guard, so that their loads can issue together), in loops elsewhere")
        if region.memory[kernel.index].copied_async(group) and not any(into for into, _ in moved):
            copies += "; copied in asynchronously (cp.async: a thread waits for its copies once, at the barrier)"
        out.append(f"    {group.array.name} ({len(group.references)} reference(s), {kinds}, line(s) "
                   f"{', '.join(map(str, lines))}): {group.placement.value}: {group.reason}{copies}")
    return out


def _lines(region: GpuRegion, statements: tuple[str, ...]) -> str:
    """The source lines of ``statements``."""
    return ", ".join(map(str, sorted({region.scop.statement(s).line for s in statements})))


def kernel_title(region: GpuRegion, kernel: Kernel) -> str:
    """``kernel 0 (statements at line(s) 35, 37)``: how reports and diagnostics name a kernel."""
    return f"kernel {kernel.index} (statements at line(s) {_lines(region, kernel.statements)})"


def _band_lines(region: GpuRegion) -> list[str]:
    """What the GPU stage did to the schedule's bands before it placed the kernels."""
    def first(statements: tuple[str, ...]) -> int:
        return min(region.scop.statement(s).line for s in statements)

    out = []
    for nests in sorted(region.mapping.distributed, key=lambda nests: first(nests[0])):
        joined = "; ".join(_lines(region, n) for n in nests)
        out.append(f"  the parallel loop(s) around the nests of line(s) {joined} distributed over them: each nest "
                   f"is a kernel of its own, which maps its own parallel loops too")
    for nest, before, after in sorted(region.mapping.extended, key=lambda joined: first(joined[0])):
        where = [f"the statement(s) at line(s) {_lines(region, before)} run at its first step"] if before else []
        where += [f"those at line(s) {_lines(region, after)} at its last"] if after else []
        out.append(f"  the loop(s) of the nest at line(s) {_lines(region, nest)} joined the band of the parallel "
                   f"loops around it, so that its kernel tiles them for shared memory and registers"
                   f"{': ' + ', '.join(where) if where else ''}")
    for fusion in sorted(region.mapping.fused, key=lambda fusion: first(fusion.statements)):
        array = fusion.array
        if fusion.sums == fusion.statements:
            out.append(f"  the reductions of line(s) {_lines(region, fusion.statements)} read {array} alike, one "
                       f"element an instance: they run in one kernel over {array}'s elements, which reads {array} "
                       f"once, each instance at the element it reads")
        else:
            out.append(f"  the statements of line(s) {_lines(region, fusion.statements)} use {array} alike, one "
                       f"element an instance, the reduction(s) of line(s) {_lines(region, fusion.sums)} among "
                       f"them: they run in one kernel over {array}'s elements, which goes through {array} once, "
                       f"each instance at the element it uses (in their order where they share it)")
    for nests, shared in sorted(region.mapping.merged, key=lambda merged: min(map(first, merged[0]))):
        lines = "; ".join(_lines(region, nest) for nest in sorted(nests, key=first))
        why = f"which reads {', '.join(shared)} once" if shared else f"one launch instead of {len(nests)}"
        out.append(f"  the nests of line(s) {lines} are independent, each a band of parallel loops: they run in "
                   f"one kernel, {why}")
    for groups in sorted(region.mapping.isolated, key=lambda groups: first(groups[0])):
        out.append(f"  the statements of line(s) {'; '.join(_lines(region, g) for g in groups)} split into kernels "
                   f"run one after another, so that the reductions' loop runs in parallel in its own kernel")
    return out


def _cost_lines(region: GpuRegion, kernel: Kernel) -> list[str]:
    """The cost model's estimate of the kernel's mapping and of the runner-up."""
    choice = region.choices[kernel.index] if region.choices else None
    if choice is None:
        return []
    if choice.user:
        return [f"    estimate of the sizes you gave: {choice.best.describe()}"]
    out = [f"    chosen by the cost model of {choice.tried} candidates: {choice.best.describe()}"]
    if choice.runner_up is not None:
        out.append(f"    runner-up: {choice.runner_up.describe()}")
    return out


def explain(region: GpuRegion) -> list[str]:
    """A report for --explain: the kernels, their mapping and the data moves, with reasons."""
    scop = region.scop
    where = f"{scop.region.file}:{scop.region.begin_line}"
    kernels = region.mapping.kernels
    out = [f"{where}: note: region {scop.region.index}: {len(kernels)} kernel(s)"]
    if scop.assumed is not None:
        out.append(f"  {scop.describe_assumed()}")
    out += [f"  {u}" for u in scop.unrolled]
    out += [f"  {p.describe()}" for p in region.privatised]
    out += [f"  {note}" for note in region.notes]
    out += _band_lines(region)
    axes = "xyz"
    for kernel in kernels:
        head = f"  {kernel_title(region, kernel)}: inside {kernel.host_depth} host loop(s)"
        if not kernel.mapped:
            out.append(head + "; no parallel loop: runs on one thread, so the data stays on the device")
            continue
        mapped = ", ".join(f"loop {kernel.order[d] + 1} -> blocks.{axes[kernel.mapped - 1 - d]} and threads."
                           f"{axes[kernel.mapped - 1 - d]}" for d in range(kernel.mapped))
        memory = region.memory[kernel.index] if region.memory else None
        shared = memory is not None and memory.placed(Placement.SHARED)
        barriers = "barriers only around the shared-memory copies" if shared else "no barrier is needed"
        if any(r.accumulated for r in kernel.reductions):
            barriers += " (and at its end, where the block combines its reductions)"
        copies = memory.block_copy_elements if memory is not None else {}
        if copies:
            barriers += " (and around the block's copies of the arrays it updates atomically)"
        along = [(axes[kernel.mapped - 1 - d], w) for d, w in enumerate(kernel.wrapped)]
        alone = ", ".join(a for a, w in along if not w)
        wraps = ", ".join(a for a, w in along if w)
        grid = ("; ".join(([f"one block a tile along {alone}, whose tiles are never more"] if alone else [])
                          + ([f"blocks wrap around the tiles along {wraps}"] if wraps else []))
                + "; threads wrap around the points")
        out.append(f"{head}; the outer {kernel.mapped} parallel loop(s) of its band are tiled: {mapped}; "
                   f"tile {list(kernel.sizes.tile)}, block {list(kernel.sizes.block)}, grid at most "
                   f"{list(kernel.grid)} ({grid}); every dependence "
                   f"{'but the reductions below ' if kernel.reductions else ''}"
                   f"stays within a thread (checked), so {barriers}")
        if kernel.spread and kernel.spread == kernel.mapped:
            runs = any(kr.runs for kr in kernel.reductions)
            out.append("    its loops carry only the reductions fused into it and are all mapped" + (
                       ": a thread runs one point along x and a run of points along the others, so that a sum "
                       "along x is the warp's (its threads combine their updates with shuffles before one atomic "
                       "update) and a sum along another loop the thread's" if runs else ""))
        elif kernel.spread:
            spread = [m for m in range(kernel.mapped - kernel.spread, kernel.mapped)]
            out.append(f"    loop(s) {', '.join(str(m + 1) for m in spread)} carry only reductions and are mapped too: "
                       f"the parallel loop(s) alone give fewer threads than the device holds (about {DEVICE_THREADS}; "
                       f"a loop without a constant bound counts as {UNKNOWN_EXTENT} iterations, and the reduction "
                       f"loops have {SPREAD_MIN_EXTENT} or more), "
                       f"too few loads in flight for the memory's bandwidth")
        for kr in kernel.reductions:
            r = kr.reduction
            how = ("each thread accumulates its updates in a register, the block combines them and merges its "
                   "value into the element with one atomic update" if kr.accumulated else
                   "each thread accumulates its run of updates of an element in a register and merges it into the "
                   "element with one atomic update (a warp whose threads end on one element combines them first)"
                   if kr.runs else "each update is atomic")
            if r.array in copies:
                how += (f", on the block's own copy of {r.array} in shared memory ({copies[r.array]} elements), which "
                        f"the block merges into {r.array} at its end with one atomic update an element it changed")
            out.append(f"    reduction {r.describe()}: its loop runs in parallel (only this accumulation crosses "
                       f"the threads; the order of the {'floating-point ' if r.floating else ''}updates changes): "
                       f"{how}")
        out += _cost_lines(region, kernel)
        if memory is not None and memory.sizes_note:
            out.append(f"    {memory.sizes_note}")
        if memory is not None and memory.copies_note:
            out.append(f"    {memory.copies_note}")
        if region.cuda and shared and memory.shared_bytes() > STATIC_SHARED_BYTES:
            out.append(f"    its shared tiles take {memory.shared_bytes()} bytes, past the {STATIC_SHARED_BYTES // 1024} "
                       "KiB a CUDA kernel declares statically: they are in its dynamic shared memory, which the host "
                       "opts in to before each launch (a device with less runs the original loops)")
        if memory is not None and memory.kernel.tiling is not None and memory.kernel.tiling.tiles > kernel.mapped:
            out.append(f"    further loop(s) of its permutable band tiled by "
                       f"{list(memory.kernel.tiling.tile_sizes[kernel.mapped:])} for the tiles of shared memory")
        if region.kernel_asts and region.kernel_asts[kernel.index] is not None and kernel.register_tile:
            tile = "x".join(map(str, kernel.sizes.thread_points))
            registers = " (its register tile)" if memory.placed(Placement.PRIVATE) else ""
            partial = region.partial_tiles[kernel.index]
            guarded = region.guarded[kernel.index] if region.guarded else ()
            if partial is PartialTiles.PADDED and guarded:
                apart = (f"no point of the deepest loops has a guard: there the tiles whose last points are missing "
                         f"are computed whole, in registers and shared memory only (the copies move the existing "
                         f"points); the statement(s) at line(s) {_lines(region, guarded)}, outside those loops, keep "
                         f"a guard per point")
            elif partial is PartialTiles.PADDED:
                apart = ("no point has a guard: the tiles whose last points are missing are computed whole, in "
                         "registers and shared memory only (the copies move the existing points)")
            elif partial is PartialTiles.APART:
                apart = "tiles whose points all exist run without a guard per point"
            elif kernel.sequential:
                apart = "every point has its guard (generating the full tiles apart would cost too much)"
            else:
                apart = "every point has its guard (tested once a point: no tiled loop runs inside them)"
            out.append(f"    each thread runs its {tile} points of the mapped loops{registers} innermost, inside "
                       f"each step of the loops they enclose (unroll-and-jam); {apart}")
        elif not kernel.reductions and math.prod(kernel.sizes.thread_points) > MAX_REGISTERS:
            tile = "x".join(map(str, kernel.sizes.thread_points))
            out.append(f"    each thread runs its {tile} points of the mapped loops one after another, not as a "
                       f"register tile (more than {MAX_REGISTERS} points)")
        out += _memory_lines(region, kernel)
    for a in region.arrays:
        if a.local:
            out.append(f"  {a.name}: device only (a local of the region)")
            continue
        why = []
        if a.copy_in:
            why.append("copied in (" + ("its values on entry may be read" if a.live_in else
                                        "not every element is certainly written, and the copy-out must not "
                                        "overwrite host data") + ")")
        if a.copy_out:
            why.append("copied out (written in the region)")
        if not why:
            why.append("not transferred")
        if a.rows:  # the host's rows lie anywhere: the device has a dense copy of what the region touches
            ranges = a.rows_in
            taken = f" for which {ranges.condition}" if ranges.condition is not None else ""
            why.insert(0, f"rows through pointers, a dense copy on the device: the rows {ranges.first} to "
                          f"{ranges.last}{taken} cross packed, one copy each way (of row polypragma_row, its elements {ranges.low} "
                          f"to {ranges.high})")
        if a.inspection is not None:
            why.insert(0, a.inspection.describe())
        out.append(f"  {a.name}: {a.elements} element(s) of {a.device_type}; " + "; ".join(why))
    for name in region.registers_only:
        out.append(f"  {name}: in registers only (each thread keeps its copy in registers all along): no device "
                   f"buffer")
    return out
