"""Every corpus kernel through the c target: the generated program prints exactly
what the original prints, on every RUN configuration of the kernel."""

from __future__ import annotations

import pytest

from harness import compile_c, generated_path, kernel_paths, polypragma, run, run_configs
from polypragma.scan import scan

VARIANTS = {
    "c": ([], []),
    "no-reschedule": (["--no-reschedule"], []),
    "fusion-min": (["--fusion=min"], []),
    "fusion-max": (["--fusion=max"], []),
    "openmp": (["--openmp"], ["-fopenmp"]),
}

_originals: dict = {}


def _original(path, defines, tmp_path_factory):
    key = (path, defines)
    if key not in _originals:
        exe = tmp_path_factory.mktemp("orig") / path.stem
        compile_c(path, exe, defines)
        _originals[key] = exe
    return _originals[key]


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("path", kernel_paths(), ids=lambda p: p.stem)
def test_kernel_round_trip(path, variant, tmp_path, tmp_path_factory):
    options, cflags = VARIANTS[variant]
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
