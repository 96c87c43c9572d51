"""Every corpus kernel through the c target: the generated program prints exactly
what the original prints, on every RUN configuration of the kernel."""

from __future__ import annotations

import pytest

from harness import UNOPTIMISED, compile_c, generated_path, polypragma, run, run_configs, variant_cases
from polypragma.scan import scan

# (each variant's options, and the gcc options of its generated programs: see harness.UNOPTIMISED)
VARIANTS = {
    "c": ([], []),
    "no-reschedule": (["--no-reschedule"], UNOPTIMISED),
    "openmp": (["--openmp"], ["-fopenmp", *UNOPTIMISED]),
}
# the scheduler's fusion options, on the kernels whose code they change at the sizes of their RUN lines: the
# others' programs are byte for byte the c variant's (at f26d9f7, --fusion=min left 40 of the 99 kernels as
# they were, --fusion=max 65); their options and cflags, those kernels, and the variant whose code theirs
# is elsewhere (the lists: .venv/bin/python tests/changed_by_variants.py corpus)
FUSION_MIN_CHANGES = (
    "adi", "asserts", "banded", "bicg", "bounds_minmax", "break_exit_values", "breaks", "cholesky", "comma_headers",
    "conditions", "control_flow", "correlation", "covariance", "data_bounds", "data_bounds_c89", "deriche", "doitgen",
    "durbin", "early_return", "extended_types", "fdtd_2d", "gemm", "gemver", "gesummv", "goto_exits", "inline_calls",
    "inline_rows", "inspected_extents", "iterator_after_loop", "jagged_rows", "lcs", "matvec_flat",
    "may_write_temporaries", "memory_calls", "mm2", "mm3", "negdiv", "nested_exits", "nussinov", "pointer_aliases",
    "pointer_deref", "pure_calls", "reduction_forms", "reduction_data", "reduction_int", "reduction_rows",
    "reduction_sums", "region_locals", "similarity", "strides", "structs", "switch_cases", "syr2k", "syrk", "transpose",
    "types_between_regions", "unsigned_loops", "unsigned_wrap", "vecnorm_float", "while_data")
FUSION_MAX_CHANGES = (
    "adi", "asserts", "bounds_minmax", "cholesky", "comma_headers", "control_flow", "correlation", "covariance",
    "data_bounds", "deriche", "durbin", "fdtd_2d", "gemver", "gesummv", "goto_exits", "gramschmidt", "inline_rows",
    "jagged_rows", "lu", "memory_calls", "negdiv", "nested_exits", "pointer_aliases", "pure_calls", "region_locals",
    "similarity", "strides", "struct_grid", "struct_pointers", "structs", "switch_cases", "trmm", "unsigned_wrap",
    "vecnorm_float")
RESTRICTED = {
    "fusion-min": ((["--fusion=min"], UNOPTIMISED), FUSION_MIN_CHANGES, "c"),
    "fusion-max": ((["--fusion=max"], UNOPTIMISED), FUSION_MAX_CHANGES, "c"),
}

_originals: dict = {}


def _original(path, defines, tmp_path_factory):
    key = (path, defines)
    if key not in _originals:
        exe = tmp_path_factory.mktemp("orig") / path.stem
        compile_c(path, exe, defines)
        _originals[key] = exe
    return _originals[key]


@pytest.mark.parametrize("path, options, cflags", variant_cases(VARIANTS, RESTRICTED))
def test_kernel_round_trip(path, options, cflags, tmp_path, tmp_path_factory):
    configs = run_configs(path)
    assert configs, f"{path.name} has no RUN line"
    regions = scan(path.read_text(), str(path))
    assert regions, f"{path.name} has no region"
    for index, defines in enumerate(dict.fromkeys(c.defines for c in configs)):
        outdir = tmp_path / f"d{index}"
        status, messages = polypragma(path, outdir, options, defines)
        assert status == 0, messages
        assert "warning" not in messages and "error" not in messages, messages
        generated = generated_path(path, outdir)
        text = generated.read_text()
        assert text.count("/* polypragma: region ") == len(regions), "a region was left as written"
        exe = outdir / "gen"
        compile_c(generated, exe, defines, cflags)
        original = _original(path, defines, tmp_path_factory)
        for config in (c for c in configs if c.defines == defines):
            expected = run(original, config.args)
            assert expected.returncode == 0, expected.stderr
            got = run(exe, config.args, env={"OMP_NUM_THREADS": "4"})
            assert got.returncode == 0, got.stderr
            assert got.stdout == expected.stdout, f"output differs for arguments {config.args}"
