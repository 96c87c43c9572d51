"""The ``polypragma`` command."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

from polypragma import __version__
from polypragma.diagnostics import Reporter
from polypragma.driver import TARGETS, Options, compile_file, dependency_path
from polypragma.frontend.preprocess import PreprocessOptions
from polypragma.gpu.memory import DEFAULT_MAX_SHARED_MEMORY, MemoryOptions
from polypragma.gpu.sizes import SizeError, SizeOptions, parse_list, parse_sizes
from polypragma.schedule import FUSION_CHOICES, ScheduleOptions
from polypragma.timing import process_started

DESCRIPTION = """\
Compile the loop nests marked with '#pragma scop' ... '#pragma endscop' in a C
file.  For SOURCE.c it writes OUTDIR/SOURCE.polypragma.c: the same file with
each region replaced by generated code (everything else is copied unchanged),
and for the cuda target OUTDIR/SOURCE.polypragma.cu with the kernels.  The GPU
targets keep the original loops as the fallback taken when no device is
present or POLYPRAGMA_DEVICE=cpu; POLYPRAGMA_DEVICE=gpu makes a missing device
or a device failure an error.
Regions polypragma cannot handle are left as written, with a warning.
"""

EPILOG = """\
exit status: 0 on success (warnings included), 1 on an error
(or on a warning with --strict), 2 on bad usage.

examples:
  polypragma gemm.c --target c -o build/
  polypragma stencil.c --target c --openmp -I include -DN=4000
"""


def cmake_dir() -> str:
    """The directory holding PolyPragmaConfig.cmake: inside the installed package, or the
    repository's cmake/ when running from a checkout."""
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "cmake"), os.path.join(os.path.dirname(here), "cmake")):
        if os.path.exists(os.path.join(candidate, "PolyPragmaConfig.cmake")):
            return candidate
    raise SystemExit("polypragma: the CMake package is not installed with this copy of polypragma")


def _bytes(text: str) -> int:
    """A size in bytes: '49152' or '48k'."""
    value = text.strip().lower()
    scale = 1024 if value.endswith("k") else 1
    try:
        number = int(value[:-1] if scale > 1 else value) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of bytes like 49152 or 48k, got '{text}'") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"expected a number of bytes like 49152 or 48k, got '{text}'")
    return number


def _count(text: str) -> int:
    """A whole number of one or more (0 where an option's default is none)."""
    try:
        number = int(text)
    except ValueError:
        number = -1
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of 1 or more, got '{text}'")
    return number


def _sizes(text: str) -> str:
    """--sizes, checked when the command line is read: a bad value is a usage error, not a region's."""
    try:
        parse_sizes(text)
    except SizeError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="polypragma", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", metavar="SOURCE.c", nargs="?", help="C file with marked regions")
    parser.add_argument("-o", dest="output_dir", metavar="OUTDIR",
                        help="directory for the outputs (default: the directory of SOURCE.c)")
    parser.add_argument("--target", choices=tuple(TARGETS), default="cuda",
                        help="what to generate: 'cuda' writes SOURCE.polypragma.cu with the kernels and host code "
                             "(compile with nvcc, link with cudart); 'opencl' embeds OpenCL kernels and host code in "
                             "the C file (link with -lOpenCL); 'c' is sequential C, or OpenMP C with --openmp "
                             "(default: cuda)")
    parser.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                        help="add DIR to the preprocessor's include path (as for the C compiler)")
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                        help="define a preprocessor macro (as for the C compiler)")
    parser.add_argument("-U", dest="undefines", action="append", default=[], metavar="NAME",
                        help="undefine a preprocessor macro")
    parser.add_argument("--openmp", action="store_true",
                        help="mark the outermost parallel loop of each nest with '#pragma omp parallel for' (in a nest "
                             "without one, its outermost loop parallel but for integer reductions into scalars, combined "
                             "by a reduction clause)")
    parser.add_argument("--strict", action="store_true",
                        help="treat a region that cannot be handled as an error (exit status 1)")
    parser.add_argument("--no-reschedule", dest="reschedule", action="store_false",
                        help="keep the original loop order (parallel loops are still detected)")
    parser.add_argument("--no-live-range-reordering", dest="live_range_reordering", action="store_false",
                        help="keep every anti and output dependence as a constraint of the scheduler (no "
                             "reordering of live ranges, no privatised temporaries)")
    parser.add_argument("--fusion", choices=FUSION_CHOICES, default="auto",
                        help="loop fusion: 'max' fuses whole components, 'min' keeps strongly connected "
                             "components apart (and, on the GPU targets, the sums that read one matrix alike "
                             "and independent nests in kernels of their own), 'auto' lets isl decide (default)")
    parser.add_argument("--max-operations", type=int, default=ScheduleOptions.max_operations, metavar="N",
                        help="bound on the isl operations of the scheduler per region; past it the original "
                             "schedule is kept, with a warning (default: %(default)s, 0: no bound)")
    sizes = parser.add_argument_group("GPU mapping (cuda and opencl targets)")
    sizes.add_argument("--tile-size", type=parse_list, metavar="T[,T...]",
                       help="tile sizes of the mapped loops, outermost first (default 256; 32,32; 4,8,32)")
    sizes.add_argument("--block-size", type=parse_list, metavar="B[,B...]",
                       help="threads per block along the mapped loops, outermost first; the last is x "
                            "(default 256; 8,32; 2,4,32)")
    sizes.add_argument("--grid-size", type=parse_list, metavar="G[,G...]",
                       help="most blocks along the mapped loops, outermost first; blocks wrap around the tiles "
                            "where these may be more (default: 65535 along y, 256 along z; along x one block a "
                            "tile where the tiles are never more than 2147483647, 65535 elsewhere)")
    sizes.add_argument("--sizes", metavar="MAP", type=_sizes,
                       help="per-kernel sizes in PPCG's notation, e.g. "
                            "'{ kernel[0] -> tile[64,64]; kernel[i] -> block[16] : i != 4 }'; "
                            "'kernel[0] -> order[1,0]' maps the band's loop 1 on y and loop 0 on x")
    sizes.add_argument("--dump-sizes", action="store_true",
                       help="print the sizes and loop orders used, in --sizes notation")
    sizes.add_argument("--explain", action="store_true",
                       help="say per region which loops run on the host, which went to blocks and threads, the "
                            "sizes, which arrays are copied in and out, and for every array of every kernel where "
                            "it lives (registers, shared, constant, texture or global memory) and why")
    memory = parser.add_argument_group("memory (cuda and opencl targets)")
    memory.add_argument("--no-shared-memory", dest="shared_memory", action="store_false",
                        help="keep every array in global memory instead of copying tiles with reuse or uncoalesced "
                             "access to shared memory")
    memory.add_argument("--no-private-memory", dest="private_memory", action="store_false",
                        help="do not keep a thread's reused elements in registers")
    memory.add_argument("--no-constant-memory", dest="constant_memory", action="store_false",
                        help="do not put small read-only arrays that all threads read alike in constant memory")
    memory.add_argument("--max-shared-memory", type=_bytes, default=DEFAULT_MAX_SHARED_MEMORY, metavar="BYTES",
                        help="shared memory one block may use, over all its arrays (default: %(default)s; a suffix "
                             "k means KiB)")
    memory.add_argument("--unroll-registers", action=argparse.BooleanOptionalAction, default=None,
                        help="unroll a thread's loops over its register tile so its indices are constants: isl "
                             "the copies, the device compiler (#pragma unroll) the computations (default: yes for "
                             "cuda; no for opencl, where PoCL's default work-group method miscompiles it)")
    memory.add_argument("--unroll-copies", action=argparse.BooleanOptionalAction, default=True,
                        help="copy the full tiles of a shared array apart from the partial ones, unrolled and without "
                             "guards, where a thread makes at most 16 copies of a tile (default: yes); no: one loop "
                             "with guards for every tile, whose code isl builds faster (a matrix product's kernel in "
                             "half the time with opencl)")
    memory.add_argument("--unroll-steps", type=_count, default=0, metavar="N",
                        help="where a register tile's computations are loops the device compiler unrolls (see "
                             "--unroll-registers), have it unroll N steps of the loop around them together as well "
                             "(#pragma unroll N; default: no pragma, the device compiler's choice)")
    memory.add_argument("--vector-copies", action=argparse.BooleanOptionalAction, default=None,
                        help="copy tiles between global and shared memory two elements at a time (double2, float2, "
                             "int2) where the tile's rows start aligned, not one at a time (default: in the kernels "
                             "that keep no tile of sums in registers; a matrix product's tile needs the registers)")
    memory.add_argument("--async-copies", action="store_true",
                        help="cuda: copy tiles into shared memory asynchronously (cp.async, sm_80 and later): each "
                             "thread issues all its copies of a tile, then waits for them once, at the barrier")
    memory.add_argument("--double-buffer", action="store_true",
                        help="give the shared tiles that a kernel's loops in sequence copy in, of arrays it does not "
                             "write, two buffers: the next tile is copied in while this one is computed, one "
                             "barrier a step (with --async-copies, its loads in flight meanwhile)")
    memory.add_argument("--texture", action="store_true",
                        help="cuda: read the arrays a kernel only reads through texture objects (the read-only "
                             "data cache serves them anyway; this takes the texture path)")
    sizes.add_argument("--no-fp-contract", dest="fp_contract", action="store_false",
                       help="forbid fused multiply-add in kernels, for results that match the CPU's bit for bit")
    sizes.add_argument("--no-reductions", dest="reductions", action="store_false",
                       help="keep floating-point reductions (s += e) in their order: a loop whose only dependences "
                            "are such sums then stays sequential (by default it runs in parallel, which may change "
                            "the last bits of the result; integer reductions run in parallel always)")
    parser.add_argument("--schedule-timeout", type=float, default=ScheduleOptions.timeout, metavar="SECONDS",
                        help="time the scheduler may spend on one region; past it the original schedule is "
                             "kept, with a warning; the schedules tried after the first share it "
                             "(default: %(default)g, 0: no bound)")
    parser.add_argument("--codegen-timeout", type=float, default=Options.codegen_timeout, metavar="SECONDS",
                        help="time the code of one region may take: isl's AST build for the c target, the whole "
                             "GPU stage for cuda and opencl; past it the region's original schedule is built "
                             "instead, with a warning (default: %(default)g, 0: no bound)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print each stage, its time and what it found")
    parser.add_argument("--version", action="version", version=f"polypragma {__version__}")
    build = parser.add_argument_group("build integration")
    build.add_argument("-MD", dest="write_dependencies", action="store_true",
                       help="also write the dependencies of the outputs, as compilers do: a Make rule with the "
                            "outputs as targets and the source and every header it includes as prerequisites "
                            "(to OUTDIR/SOURCE.polypragma.d, or the file given with -MF)")
    build.add_argument("-MF", dest="dependency_file", metavar="FILE",
                       help="write the dependencies to FILE (implies -MD)")
    build.add_argument("--check", action="store_true",
                       help="write nothing; exit 1, naming them, when the outputs on disk differ from what "
                            "would be generated (for CI and pre-commit)")
    build.add_argument("--cmake-dir", action="store_true",
                        help="print the directory of polypragma's CMake package (for PolyPragma_DIR) and exit")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.cmake_dir:
        print(cmake_dir())
        return 0
    if args.source is None:
        parser.error("the following arguments are required: SOURCE.c")
    options = Options(
        output_dir=args.output_dir,
        target=args.target,
        preprocess=PreprocessOptions(tuple(args.include_dirs), tuple(args.defines), tuple(args.undefines)),
        openmp=args.openmp,
        strict=args.strict,
        verbose=args.verbose,
        schedule=ScheduleOptions(reschedule=args.reschedule, fusion=args.fusion,
                                 live_range_reordering=args.live_range_reordering,
                                 max_operations=args.max_operations, timeout=args.schedule_timeout),
        sizes=SizeOptions(args.tile_size, args.block_size, args.grid_size, args.sizes),
        memory=MemoryOptions(shared=args.shared_memory, private=args.private_memory,
                             constant=args.constant_memory, texture=args.texture,
                             max_shared=args.max_shared_memory, unroll=args.unroll_registers,
                             vector_copies=args.vector_copies, async_copies=args.async_copies,
                             double_buffer=args.double_buffer, unroll_copies=args.unroll_copies,
                             unroll_steps=args.unroll_steps),
        fp_contract=args.fp_contract,
        reductions=args.reductions,
        dump_sizes=args.dump_sizes,
        explain=args.explain,
        check=args.check,
        codegen_timeout=args.codegen_timeout,
    )
    if args.write_dependencies or args.dependency_file:
        options = dataclasses.replace(options, dependency_file=args.dependency_file
                                      or dependency_path(args.source, options))
    # the command of this process (not main called with arguments, as the tests do): -v times its start
    started = process_started() if argv is None else None
    return compile_file(args.source, options, Reporter(sys.stderr), started)
