"""A register tile's computations in loops over the thread's slots, printed whole for the device compiler
to unroll (kernel_tree.RegisterSlots, printer.CFamilyPrinter.whole_loop): each loop runs over constants
under ``#pragma unroll``, with isl's bounds as a guard inside (a partial tile's last slots, the residues
of a strided loop), and the kernels compute the original program's values where those guards cut.  The
cuda form runs on PoCL as opencl's with --unroll-registers, under PoCL's 'workitemrepl' method (see
test_memory's unrolled variant)."""

from __future__ import annotations

import re

import pytest

from harness import KERNELS, assert_opencl_runs_as_original, generated_path, opencl_device, polypragma, run_configs

# a loop over slots as the printer writes it: the pragma, then the whole range
WHOLE = re.compile(r'#pragma unroll\\n"\s*"\s*for \(int (\w+) = 0; \1 < (\d+); \+\+\1\) \{')
# (small blocks: PoCL's workitemrepl method compiles a copy of the kernel for each work-item of a group)
SIZES = {"7x8-2x4": ["--tile-size", "7,8", "--block-size", "2,4"], "5x6-2x2": ["--tile-size", "5,6", "--block-size", "2,2"]}
# scalar copies into shared memory: PoCL 3.1's workitemrepl method fails to build local_accumulators' row-sum
# kernel once its A tile is copied in vectors ("Could not find a dominating alternative variable", from the
# copy loop's bound min(15, -16 * k1 + p / 2 - 1); the same bound as polypragma_floord(p, 2) builds and
# runs right); the vector copies run under PoCL's default method in test_memory and test_opencl
SCALAR_COPIES = ["--no-vector-copies"]


@pytest.mark.parametrize("sizes", list(SIZES))
@pytest.mark.parametrize("name", ["gemm", "local_accumulators", "negdiv", "inline_rows"])
def test_loops_over_slots_compute_the_original_values(tmp_path, monkeypatch, name, sizes):
    why = opencl_device()
    if why:
        pytest.skip(why)
    monkeypatch.setenv("POCL_WORK_GROUP_METHOD", "workitemrepl")
    source = KERNELS / f"{name}.c"
    configs = run_configs(source)
    for index, defines in enumerate(dict.fromkeys(c.defines for c in configs)):
        outdir = tmp_path / f"d{index}"
        status, messages = polypragma(source, outdir, ["--target", "opencl", "--no-fp-contract", "--unroll-registers",
                                                       *SCALAR_COPIES, *SIZES[sizes]], defines)
        assert status == 0 and "warning" not in messages, messages
        kernels = "\n".join(line for line in generated_path(source, outdir).read_text().splitlines()
                            if line.lstrip().startswith('"'))  # (the kernels' source, as C strings)
        loops = WHOLE.findall(kernels)
        assert loops, kernels
        # no loop over slots left in isl's form (from the thread's point, by the block's size)
        assert kernels.count("#pragma unroll") == len(loops), kernels
        for config in (c for c in configs if c.defines == defines):
            assert_opencl_runs_as_original(source, outdir, defines, config.args, 1e-9)


def test_unroll_steps_marks_the_loop_around_the_slots_only(tmp_path, monkeypatch):
    """--unroll-steps 2: ``#pragma unroll 2`` before each loop whose body is the register tile's loops over
    slots (gemm's k within a tile step, and not the loop over the tiles of k around it), and the kernel still
    computes the original values (the cuda form on PoCL, a partial tile's guards included)."""
    why = opencl_device()
    if why:
        pytest.skip(why)
    monkeypatch.setenv("POCL_WORK_GROUP_METHOD", "workitemrepl")
    source = KERNELS / "gemm.c"
    status, messages = polypragma(source, tmp_path, ["--target", "opencl", "--no-fp-contract", "--unroll-registers",
                                                     "--unroll-steps", "2", *SCALAR_COPIES, *SIZES["7x8-2x4"]])
    assert status == 0 and "warning" not in messages, messages
    kernels = "\n".join(line.strip().strip('"').replace("\\n", "") for line in
                        generated_path(source, tmp_path).read_text().splitlines() if line.lstrip().startswith('"'))
    marked = re.findall(r"#pragma unroll 2\s*for \(int \w+ = [^{]*\{\s*#pragma unroll\s*for", kernels)
    assert marked and kernels.count("#pragma unroll 2") == len(marked), kernels
    for config in run_configs(source):
        assert_opencl_runs_as_original(source, tmp_path, config.defines, config.args, 1e-9)


def test_a_strided_loop_over_slots_keeps_its_residue_as_a_guard(tmp_path):
    # negdiv's statement under (i - j + 1) % 3 conditions: isl's loop over the slots steps by 3 from a
    # bound of the thread's ids, and the whole loop keeps both as guards (its test above runs it)
    status, messages = polypragma(KERNELS / "negdiv.c", tmp_path, ["--target", "cuda"])
    assert status == 0, messages
    code = (tmp_path / "negdiv.polypragma.cu").read_text()
    guard = re.search(r"#pragma unroll\n\s*for \(int (\w+) = 0; \1 < 4; \+\+\1\) \{\n\s*if \(\1 >= (.*) && "
                      r"\(\1 - (.*)\) % 3 == 0 && \1 <= ", code)
    assert guard is not None and guard.group(2) == guard.group(3), code
