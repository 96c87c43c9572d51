"""Run the pipeline on one source file and write its outputs."""

from __future__ import annotations

import dataclasses
import io
import os
import time
from dataclasses import dataclass, field

import islpy as isl
from pycparser import c_ast

from polypragma import dependences as dependence_analysis
from polypragma import forked
from polypragma import timing
from polypragma.buildtools.depfile import format_rule
from polypragma.codegen.fallback import check_returns, fallback_lines
from polypragma.codegen.printer import CFamilyPrinter
from polypragma.codegen import c_target, data_directives, host_data
from polypragma.codegen.region_text import RegionText
from polypragma.codegen.targets import TARGETS, Target
from polypragma.diagnostics import FatalError, Location, Reporter, Unsupported
from polypragma.frontend import host_loops
from polypragma.frontend.c_tree import subtree
from polypragma.frontend.extract import RegionExtractor
from polypragma.frontend.locate import identifiers, locate
from polypragma.frontend.preprocess import PreprocessOptions, files_read, parse_preprocessed, preprocess
from polypragma.frontend.symbols import TypeTable, scope_at
from polypragma.scan import Region, scan, scan_data
from polypragma import reductions as reduction_analysis
from polypragma.schedule import ScheduleOptions, configure_context, describe_bands, mark_coincidence
from polypragma.schedule_search import schedule_region
from polypragma.gpu.explain import explain
from polypragma.gpu.memory import MemoryOptions
from polypragma.gpu.region import prepare, symbol_stem
from polypragma.gpu.sizes import SizeError, SizeOptions, dump as dump_sizes
from polypragma.splice import Insertion, Replacement, banner, splice, write_atomically


@dataclass(frozen=True)
class Options:
    output_dir: str | None = None
    target: str = "cuda"
    preprocess: PreprocessOptions = field(default_factory=PreprocessOptions)
    openmp: bool = False
    strict: bool = False
    verbose: bool = False
    schedule: ScheduleOptions = field(default_factory=ScheduleOptions)
    sizes: SizeOptions = field(default_factory=SizeOptions)
    memory: MemoryOptions = field(default_factory=MemoryOptions)
    fp_contract: bool = True
    # GPU targets: floating-point reductions run in parallel (--no-reductions: in their order); integer ones always
    reductions: bool = True
    dump_sizes: bool = False
    explain: bool = False
    dependency_file: str | None = None  # -MD/-MF: where to write the Make-style dependencies
    check: bool = False  # --check: compare with the files on disk instead of writing them
    # cuda: each region's host function also taking device buffers (the Python API's device arrays)
    device_entries: bool = False
    # seconds isl's AST build may take on one region of the c target (0: no bound); past them the
    # region's original schedule is built instead, with a warning
    codegen_timeout: float = 30.0


def output_path(source: str, options: Options, suffix: str = ".c") -> str:
    directory = options.output_dir if options.output_dir is not None else os.path.dirname(source)
    stem = os.path.basename(source)
    if stem.endswith(".c"):
        stem = stem[:-2]
    return os.path.join(directory, f"{stem}.polypragma{suffix}")


class _Log:
    """The lines of -v.  A timed line (:meth:`lap`) takes the time since the previous one, so the
    timed lines cover the run without gaps and add up to the ``[total]`` line."""

    def __init__(self, enabled: bool, stream, started: float | None = None):
        self.enabled = enabled
        self.stream = stream
        self.begun = self.last = started if started is not None else time.perf_counter()

    def __call__(self, stage: str, message: str) -> None:
        """An untimed line."""
        if self.enabled:
            print(f"polypragma: [{stage}] {message}", file=self.stream)

    def lap(self, stage: str, message: str) -> None:
        """A timed line: what was done since the previous timed line."""
        now = time.perf_counter()
        self._timed(stage, message, now - self.last)
        self.last = now

    def parts(self, stage: str, prefix: str, parts: list[tuple[str, float]], rest: str) -> None:
        """Timed lines for the parts a stage's modules timed (:mod:`polypragma.timing`), then one for
        the rest of the time since the previous timed line."""
        for label, seconds in parts:
            self._timed(stage, f"{prefix}{label}", seconds)
        now = time.perf_counter()
        self._timed(stage, f"{prefix}{rest}", max(now - self.last - sum(s for _, s in parts), 0.0))
        self.last = now

    def into(self, stream) -> "_Log":
        """This log, its times going on, writing into ``stream`` (a forked process's lines, carried back)."""
        copy = _Log(self.enabled, stream, self.begun)
        copy.last = self.last
        return copy

    def total(self, message: str) -> None:
        self._timed("total", message, time.perf_counter() - self.begun)

    def _timed(self, stage: str, message: str, seconds: float) -> None:
        if self.enabled:
            print(f"polypragma: [{stage}] {message} ({seconds * 1000:.1f} ms)", file=self.stream)


def compile_file(source: str, options: Options, reporter: Reporter | None = None,
                 process_started: float | None = None) -> int:
    """Compile ``source``; return the exit status (0, or 1 on error).  ``process_started``: when the
    process started (on ``time.perf_counter``'s clock), for the command: -v then times the start
    (interpreter, imports, command line) as a stage of its own, and ``[total]`` from there."""
    reporter = reporter or Reporter()
    log = _Log(options.verbose, reporter.stream, process_started)
    if process_started is not None:
        log.lap("start", "Python's start, polypragma's imports and the command line")
    try:
        return _compile(source, options, reporter, log)
    except FatalError as exc:
        reporter.report(exc.diagnostic("error"))
        return 1


def _compile(source: str, options: Options, reporter: Reporter, log: _Log) -> int:
    target = TARGETS.get(options.target)
    if target is None:
        raise FatalError(f"target '{options.target}' is not available in this version (available: {', '.join(TARGETS)})")
    destination = output_path(source, options)
    try:
        with open(source, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise FatalError(f"cannot read {source}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FatalError(f"cannot read {source}: not UTF-8 text (byte 0x{data[exc.start]:02x})",
                         _byte_location(source, data, exc.start)) from None
    if os.path.exists(destination) and os.path.samefile(destination, source):
        raise FatalError(f"output {destination} would overwrite the input")

    regions = scan(text, source)
    directives = scan_data(text, source)
    log.lap("scan", f"{len(regions)} region(s) in {source}"
            + (f", {len(directives)} data directive(s)" if directives else ""))

    replacements: list[Replacement] = []
    offloading: set[str] = set()  # functions holding a region replaced by its host function
    helpers: set[str] = set()
    gpu_texts: list[RegionText] = []
    inputs = [source]  # the source and the headers the output depends on
    ast = None
    if regions:
        # a preprocessor failure (a header not found: a forgotten -I) is an error even without --strict:
        # polypragma would not see the code the compiler sees, and a build that goes on with every
        # region left as written silently loses its GPU code
        preprocessed = preprocess(source, options.preprocess)
        inputs = [source, *(f for f in files_read(preprocessed) if not _same_file(f, source))]
        try:
            ast = parse_preprocessed(preprocessed, source)
        except FatalError as exc:
            if options.strict:
                raise
            reporter.report(exc.diagnostic("warning"))
            for region in regions:
                reporter.warning("region left as written: the file could not be parsed", region.location)
            ast = None
        if ast is not None:
            located = locate(ast, regions, source)
            types = TypeTable(ast)
            reserved = identifiers(ast)
            log.lap("frontend", "preprocessed, parsed and regions located")
            for region, where in zip(regions, located):
                if where is None:
                    log("frontend", f"{region}: removed by the preprocessor, left as written")
                    continue
                try:
                    try:
                        lines, used, texts = _compile_region(
                            region, where, ast, types, reserved, options, target, log, reporter, text.splitlines(),
                            sum(len(t.kernel_names) for t in gpu_texts))
                    except isl.Error as exc:
                        # a failure inside isl is polypragma's bug, not the user's: the build goes on with
                        # the region as written, and the message says what to report
                        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                        raise Unsupported("the region", region.location,
                                          f"could not be compiled: isl failed ({first}); this is a bug in "
                                          "polypragma, please report it with this region") from None
                except Unsupported as exc:
                    # every region is reported, also under --strict, where nothing is written after the loop
                    reporter.report(exc.diagnostic("error" if options.strict else "warning"))
                    log.lap("diagnostic", f"{region}: left as written, from its last timed stage to the diagnostic")
                    continue
                replacements.append(Replacement(region, lines))
                offloading.add(where.function.decl.name)
                helpers |= used
                gpu_texts += texts
    if directives and target.gpu:
        # host code in a data scope (a region left as written is host code too) should go through updates
        region_lines = {n for r in replacements for n in range(r.region.begin_line, r.region.end_line + 1)}
        defined = {e.decl.name for e in ast.ext if type(e).__name__ == "FuncDef"} if ast is not None else set()
        data_directives.warn_host_uses(directives, text.splitlines(), region_lines, offloading, defined, reporter)
    if options.strict and reporter.error_count:
        return 1
    insertions: list[Insertion] = []
    unit = None
    # the kernels and host functions, timed per region and kernel (cuda_target, opencl_target)
    # (a split region keeps its arrays on the device between its pieces: _compile_split)
    has_data = (bool(directives) or any(t.keeps_data for t in gpu_texts)) and target.gpu
    with timing.recording() as parts:
        if gpu_texts or has_data:
            block, each = target.file_scope(gpu_texts, source, fp_contract=options.fp_contract, data=has_data,
                                            device_entries=options.device_entries)
            first = min([r.begin_line for r in gpu_texts] + [d.line for d in directives])
            start = min(max([_insertion_line(text, first)] + [
                _definition_end(text, line) for r in gpu_texts for line in r.type_declaration_lines
                if line < first]), first - 1)
            # each region's part after the types it names, which may be defined after the first region
            # (before the function holding it: file-scope definitions come between functions)
            places = [max([start] + [_definition_end(text, line) for line in r.type_declaration_lines
                                     if line < r.begin_line]) for r in gpu_texts]
            for place, lines in zip(places, each):
                if place <= start:
                    block = block + lines
            insertions.append(Insertion(start, block))
            for place in sorted({p for p in places if p > start}):
                insertions.append(Insertion(place, [line for p, lines in zip(places, each) if p == place
                                                    for line in lines]))
            if options.dump_sizes:
                for r in gpu_texts:
                    print(r.sizes, file=reporter.stream)
        if target.unit_suffix is not None:
            unit = target.unit(gpu_texts, source, fp_contract=options.fp_contract, data=has_data)
    if gpu_texts or target.unit_suffix is not None:
        log.parts("codegen", "", parts, f"the rest of the {target.name} code of {len(gpu_texts)} region(s) "
                  "(runtime, prototypes, helpers)")
    if directives:  # each directive's line (and each scope's closing line) rewritten in place
        changed = data_directives.edits(directives, text.splitlines(), source, symbol_stem(source), target.gpu)
        kept = text.splitlines(keepends=True)
        for number, line in changed.items():
            ending = kept[number - 1][len(kept[number - 1].rstrip("\r\n")):]
            kept[number - 1] = line + (ending or "\n")
        text = "".join(kept)
    outputs = {destination: splice(text, source, target.name, replacements, helpers, insertions,
                                   os.path.basename(destination))}
    if unit is not None:
        outputs[output_path(source, options, target.unit_suffix)] = "\n".join([banner(source, target.name), *unit, ""])
    if options.check:
        return _check(outputs, source, reporter)
    for path, content in outputs.items():
        write_atomically(path, content)
    if options.dependency_file:
        write_atomically(options.dependency_file, format_rule(list(outputs), inputs))
    log.lap("splice", f"wrote {destination} ({len(replacements)} of {len(regions)} region(s) generated)")
    log.total(f"{source}")
    return 1 if reporter.error_count else 0


def dependency_path(source: str, options: Options) -> str:
    """Where -MD without -MF writes the dependencies: OUTDIR/NAME.polypragma.d."""
    return output_path(source, options, ".d")


def _check(outputs: dict[str, str], source: str, reporter: Reporter) -> int:
    """--check: report each output that is missing or differs from what would be written."""
    stale = 0
    for path, content in outputs.items():
        try:
            with open(path, encoding="utf-8", newline="") as handle:
                current = handle.read()
        except (OSError, UnicodeDecodeError):
            current = None
        if current is None:
            reporter.error(f"{path} is missing (generate it with polypragma from {source})")
            stale += 1
        elif current != content:
            reporter.error(f"out of date with {source} (regenerate it with polypragma)", Location(path, 1, 1))
            stale += 1
    return 1 if stale or reporter.error_count else 0


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _compile_region(region: Region, where, ast, types: TypeTable, reserved: set[str], options: Options,
                    target: Target, log: _Log, reporter: Reporter, source_lines: list[str], kernel_offset: int):
    """The lines replacing ``region``, the helper macros they use, and for the GPU targets the region's
    GPU code as text, one per region it became (its kernels numbered from ``kernel_offset``, the kernels of
    the regions before it)."""
    if not isinstance(where.function.decl.type, c_ast.FuncDecl):  # ('void (f) { ... }': pycparser takes it)
        at = where.function.decl.coord
        raise Unsupported(f"definition of '{where.function.decl.name}'",
                          Location(region.file, at.line, at.column or 1) if at is not None else region.location,
                          "without a parameter list is not a function definition")
    ctx = isl.Context()
    configure_context(ctx, options.schedule)
    scope = scope_at(ast, where.function, where.path, types, where.items[0] if where.items else None)

    def compile_pieces(loops: list[c_ast.Node]):  # those loops on the host, the rest regions of their own
        return _compile_split(host_loops.split(where, loops, source_lines, scope, types), region, ast, types,
                              reserved, options, target, log, reporter, source_lines, kernel_offset)

    try:
        scop = RegionExtractor(ctx, region, where.items, scope, types, reserved, source_lines=source_lines,
                               used_outside=where.used_outside, origins=where.origins,
                               goto_targets=where.goto_targets, result_type=where.function.decl.type.type).extract()
    except Unsupported:
        # a loop leaving on data (refused: its exit is not affine) may run on the host around its body
        loops = host_loops.candidates(where.items)
        if not loops or (pieces := compile_pieces(loops)) is None:
            raise
        return pieces
    # a loop the model cannot count is one statement, run as written (on one GPU thread): on the host instead
    opaque = {n.coord.line for s in scop.statements for n in subtree(s.body)
              if isinstance(n, (c_ast.While, c_ast.DoWhile)) and n.coord is not None}
    loops = host_loops.candidates(where.items, opaque)
    if loops and (pieces := compile_pieces(loops)) is not None:
        return pieces
    log.lap("frontend", f"{region}: {len(scop.statements)} statement(s), parameters "
            f"[{', '.join(scop.parameters)}], arrays [{', '.join(a.describe() for a in scop.arrays)}]")
    if options.verbose:
        for s in scop.statements:
            log("frontend", f"  {s.name} (line {s.line}): {s.domain}")
        if scop.assumed is not None:
            log("frontend", f"  {scop.describe_assumed()}")
        for unrolled in scop.unrolled:
            log("frontend", f"  {unrolled}")

    deps = dependence_analysis.compute(scop)
    log.lap("dependences", f"{region}: {deps.summary()}")
    source_scop, source_deps = scop, deps

    result, scop, deps, privatised, notes = schedule_region(
        scop, deps, options.schedule, gpu=target.gpu, openmp=options.openmp,
        floating_reductions=options.reductions, log=log, region=region)
    if result.fallback_reason:
        reporter.warning(f"kept the original schedule of {region}: {result.fallback_reason}", region.location)
    log.lap("schedule", f"{region}: {'rescheduled' if result.rescheduled else 'original order'}")
    if options.verbose:
        for line in describe_bands(result.schedule):
            log("schedule", "  " + line)

    if target.gpu:
        def original_gpu_code():
            kept = schedule_region(
                source_scop, source_deps, dataclasses.replace(options.schedule, reschedule=False), gpu=True,
                openmp=options.openmp, floating_reductions=options.reductions, log=log, region=region)
            return _offloaded(kept.scop, kept.result.schedule, kept.deps, kept.privatised, kept.notes, region,
                              options, target, log, reporter, source_lines, kernel_offset)

        lines, used, text = _within_bound(
            lambda: _offloaded(scop, result.schedule, deps, privatised, notes, region, options, target, log,
                               reporter, source_lines, kernel_offset),
            original_gpu_code, result.rescheduled, "GPU code", "gpu", region, options, reporter, log)
        return lines, used, [text]
    lines, used = _within_bound(
        lambda: _c_code(scop, result.schedule, deps, privatised, options, region),
        lambda: _c_code(source_scop, mark_coincidence(source_scop.schedule, source_deps), source_deps, (), options,
                        region),
        result.rescheduled, "code", "codegen", region, options, reporter, log)
    if scop.assumed is not None:
        original = fallback_lines(source_lines, scop, "the c target where a region keeps its original loops for "
                                  "the parameters its code is not for")
        lines = c_target.guarded(scop, lines, original, region.file)
    log.lap("codegen", f"{region}: {len(lines)} line(s) of C")
    return lines, used, []


def _compile_split(split: host_loops.Split | None, region: Region, ast, types: TypeTable, reserved: set[str],
                   options: Options, target: Target, log: _Log, reporter: Reporter, source_lines: list[str],
                   kernel_offset: int):
    """_compile_region's result for ``region`` as ``split`` (frontend/host_loops.py): its loops on the host
    as written, each piece a region; on the GPU targets the arrays the pieces bind stay on the device until
    the region's end.  None where there is no split or a piece cannot be compiled (the region is then
    compiled whole); the pieces' diagnostics are reported only when the split is taken."""
    if split is None:
        return None
    lines: list[str] = []
    used: set[str] = set()
    texts: list[RegionText] = []
    pieces = Reporter(io.StringIO())
    for part in split.parts:
        if isinstance(part, host_loops.HostLines):
            lines += [c_target.line_directive(part.first, region.file), *source_lines[part.first - 1:part.last]]
            continue
        try:
            piece_lines, piece_used, piece_texts = _compile_region(
                part.where.region, part.where, ast, types, reserved, options, target, log, pieces, source_lines,
                kernel_offset + sum(len(t.kernel_names) for t in texts))
        except (Unsupported, isl.Error) as exc:
            log("frontend", f"{region}: compiled whole, since {part.where.region} could not be: "
                f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
            return None
        lines += piece_lines
        used |= piece_used
        texts += piece_texts
    for loop in split.loops:
        log("frontend", f"{region}: {loop}")
        if options.explain:
            print(f"{region.location.file}:{region.begin_line}: note: region {region.index}: {loop}",
                  file=reporter.stream)
    reporter.diagnostics += pieces.diagnostics
    reporter.stream.write(pieces.stream.getvalue())
    if texts:  # (the keep scope is the data layer's: present where a region has GPU code)
        names = host_data.names(symbol_stem(region.file))
        where = data_directives.literal(f"{region.file}:{region.begin_line}: region {region.index}")
        texts[0] = dataclasses.replace(texts[0], keeps_data=True)
        lines = [f"{names['keep_enter']}({where});", *lines, f"{names['keep_exit']}({where});"]
    return lines, used, texts


def _offloaded(scop, schedule: isl.Schedule, deps, privatised, notes, region: Region, options: Options,
               target: Target, log: _Log, reporter: Reporter, source_lines: list[str], kernel_offset: int):
    """The GPU stage of a region (_gpu_code) in a forked process within ``options.codegen_timeout``
    seconds: TimeoutError past them, forked.Crashed where the process died.  isl's operation count
    does not bound its AST build: on differential program 10376 (--fusion=min --tile-size 8
    --block-size 1,16) a kernel's AST was still computing divisions of large integers after ten minutes."""
    if scop.device_unsupported:
        raise Unsupported(*scop.device_unsupported[0])
    original = fallback_lines(source_lines, scop)
    check_returns(scop)
    reductions = reduction_analysis.analyse(scop, deps, floating=options.reductions)
    if reductions is not None:
        log.lap("dependences", f"{region}: reduction statements "
                f"{', '.join(r.describe() for r in reductions.reductions)}")

    def work():
        return _gpu_code(scop, schedule, deps, privatised, reductions, notes, original, region, options, target,
                         kernel_offset, log)

    if options.codegen_timeout <= 0:
        lines, used, text, messages, log.last = work()
    else:
        lines, used, text, messages, log.last = forked.run(work, options.codegen_timeout)
    reporter.stream.write(messages)
    log.lap("gpu", f"{region}: the forked process's start and end, its results carried back")
    return lines, used, text


def _gpu_code(scop, schedule: isl.Schedule, deps, privatised, reductions, notes, original: list[str],
              region: Region, options: Options, target: Target, kernel_offset: int, log: _Log):
    """The GPU stage of a region, run in a forked process (its isl objects stay there): the lines that
    replace the region (the call of its host function, the original loops as the fallback), the helper
    macros they use, the region's GPU code as text, the lines of -v and --explain it printed, and the
    time of its last timed line."""
    stream = io.StringIO()
    log = log.into(stream)
    # timed by parts: the mapping (gpu/mapping.py) and each kernel's memory (gpu/memory.py)
    with timing.recording() as parts:
        try:
            gpu_region = prepare(scop, schedule, deps, _region_sizes(region, options), region.file,
                                 options.memory, cuda=target.cuda_kernels, privatised=privatised,
                                 reductions=reductions, notes=notes, fuse=options.schedule.fusion != "min")
        except SizeError as exc:
            raise FatalError(str(exc), region.location) from None
        gpu_region = target.kernel_asts(gpu_region)
    log.parts("gpu", f"{region}: ", parts, f"{len(gpu_region.arrays)} device array(s), names, constant memory")
    log("gpu", f"{region}: {len(gpu_region.mapping.kernels)} kernel(s)")
    for kernel in gpu_region.mapping.kernels:
        log("gpu", f"  {kernel.describe()}")
    if options.explain:
        for line in explain(gpu_region):
            print(line, file=stream)
    for array in gpu_region.arrays:
        moves = [w for w, on in (("copied in", array.copy_in), ("copied out", array.copy_out)) if on]
        log("gpu", f"  {array.name}: {array.elements} element(s) of {array.device_type}"
            f"{', ' + ' and '.join(moves) if moves else ', device only' if array.local else ', not transferred'}")
    # timed by parts: each kernel's printing and the host function
    with timing.recording() as parts:
        text = target.region_text(gpu_region, region.file, kernel_offset, options.device_entries)
    text = dataclasses.replace(text, sizes=f"{region}: {dump_sizes(gpu_region.mapping.kernels)}")
    log.parts("codegen", "", parts, f"{region}: the region's text")
    call = f"{gpu_region.function}({', '.join(gpu_region.call_arguments())})"
    lines = [*scop.outer_declarations, f"if ({call} != 0) {{",
             c_target.line_directive(region.begin_line + 1, region.file), *original, "}"]
    if scop.epilogue:  # (the original loops set what it sets)
        lines[-1:] = ["} else {", *c_target.epilogue_lines(scop, region.file, "  "), "}"]
    printer = CFamilyPrinter(scop.iterator_type, scop.signed_names)
    lines += c_target.return_lines(scop, printer, region.file)
    log.lap("codegen", f"{region}: the call and its fallback")
    return lines, printer.helpers_used, text, stream.getvalue(), log.last


def _c_code(scop, schedule: isl.Schedule, deps, privatised, options: Options, region: Region):
    """c_target.generate's lines and macros, built in a forked process within ``options.codegen_timeout``
    seconds (TimeoutError past them; forked.Crashed where isl crashed).  isl's operation count does not
    bound its AST build: on a schedule whose carrying dimension has large coefficients (differential
    program 8439: ``1486 + 2058t + 603i1 - 46i2 + 21i3``) it spent minutes in integer divisions of large
    numbers, and a bound of 1,000,000 operations was reached only after 493 s."""
    reductions = reduction_analysis.analyse(scop, deps, accepted=c_target.openmp_reduction) if options.openmp else None

    def work():
        return c_target.generate(scop, schedule, deps.all, openmp=options.openmp, line_file=region.file,
                                 privatised=privatised, reductions=reductions)

    if options.codegen_timeout <= 0:
        return work()
    return forked.run(work, options.codegen_timeout)


def _within_bound(new, original, rescheduled: bool, what: str, stage: str, region: Region, options: Options,
                  reporter: Reporter, log: _Log):
    """``new()``, the region's ``what`` ("code", "GPU code") from its new schedule, built in a forked process
    within --codegen-timeout; past it (or where the process died) ``original()``, from the source's
    schedule, with a warning; past that too (or at once where the region kept its original schedule) the
    region is left as written."""
    try:
        return new()
    except (TimeoutError, forked.Crashed) as exc:
        why = _unbuilt(exc, options)
        if not rescheduled:
            raise Unsupported(f"the {what} of the region", region.location, why) from None
    reporter.warning(f"kept the original schedule of {region}: its new schedule's {what} {why}", region.location)
    log.lap(stage, f"{region}: the new schedule's {what} {why}")
    try:
        return original()
    except (TimeoutError, forked.Crashed) as again:
        raise Unsupported(f"the {what} of the region", region.location, _unbuilt(again, options)) from None


def _unbuilt(exc: Exception, options: Options) -> str:
    if isinstance(exc, TimeoutError):
        return f"could not be built within {options.codegen_timeout:g} s (--codegen-timeout)"
    return f"could not be built: isl crashed ({exc})"


def _region_sizes(region: Region, options: Options) -> SizeOptions:
    """The sizes for a region: the command line's, overridden by its '#pragma polypragma' lines."""
    sizes = options.sizes
    from polypragma.gpu.sizes import parse_list
    import shlex

    for line in region.options:
        words = shlex.split(line)
        k = 0
        while k < len(words):
            word = words[k]
            key, _, value = word.partition("=")
            if not value and k + 1 < len(words):
                value = words[k + 1]
                k += 1
            field_name = {"--tile-size": "tile", "--block-size": "block", "--grid-size": "grid",
                          "--sizes": "per_kernel"}.get(key)
            if field_name is None:
                raise FatalError(f"unknown option '{key}' in '#pragma polypragma' (tile, block, grid sizes and "
                                 "--sizes are accepted)", region.location)
            try:
                parsed = value if field_name == "per_kernel" else parse_list(value)
            except SizeError as exc:
                raise FatalError(str(exc), region.location) from None
            sizes = dataclasses.replace(sizes, **{field_name: parsed})
            k += 1
    return sizes


def _byte_location(source: str, data: bytes, offset: int) -> Location:
    """The line and column (in bytes) of ``data[offset]``."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return Location(source, data.count(b"\n", 0, offset) + 1, offset - line_start + 1)


def _definition_end(text: str, line: int) -> int:
    """The line where the file-scope definition starting at ``line`` ends: its first ';' outside
    braces (the host code of the GPU targets names the types of struct buffers, so it goes after)."""
    depth = 0
    lines = text.splitlines()
    for number in range(line, len(lines) + 1):
        code = lines[number - 1].split("//")[0]
        for char in code:
            if char == "{":
                depth += 1
            elif char == "}":
                depth = max(depth - 1, 0)  # (pycparser places a typedef at its name: '} table_t;')
            elif char == ";" and depth == 0:
                return number
    return line


def _insertion_line(text: str, before: int) -> int:
    """The line after which generated file-scope code goes: after the last '#include' at the
    outermost preprocessor level before line ``before`` (0 for the top of the file)."""
    depth = 0
    last = 0
    for number, line in enumerate(text.splitlines()[: before - 1], start=1):
        stripped = line.strip()
        if stripped.startswith("#"):
            word = stripped[1:].strip().split(" ")[0].split("(")[0]
            if word in ("if", "ifdef", "ifndef"):
                depth += 1
            elif word == "endif":
                depth -= 1
            elif word == "include" and depth == 0:
                last = number
    return last
