"""Every corpus kernel through the cuda target, run on a CUDA device with POLYPRAGMA_DEVICE=gpu, against
the original program. Skipped where no CUDA device is present (the development and CI machines);
`bench/run_gpu.py` runs the same check on a GPU machine without needing polypragma installed there."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from harness import (compile_c, kernel_absolute_tolerance, kernel_paths, kernel_tolerance, outputs_match, run,
                     run_configs)
from test_cuda import NVCC, build


def _cuda_device() -> str | None:
    """Why CUDA programs cannot run on a device here, or None when one is present."""
    if shutil.which(NVCC) is None:
        return "nvcc is needed"
    if shutil.which("nvidia-smi") is None:
        return "no CUDA device (no nvidia-smi)"
    listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    if listed.returncode != 0 or "GPU" not in listed.stdout:
        return "no CUDA device"
    return None


pytestmark = [pytest.mark.gpu, pytest.mark.skipif(_cuda_device() is not None, reason=str(_cuda_device()))]


@pytest.mark.parametrize("path", kernel_paths(), ids=lambda p: p.stem)
def test_kernel_on_cuda_device(path, tmp_path):
    configs = run_configs(path)
    for index, defines in enumerate(dict.fromkeys(c.defines for c in configs)):
        outdir = tmp_path / f"d{index}"
        outdir.mkdir()
        exe, _ = build(path, outdir, defines, ["--no-fp-contract"], nvcc_flags=["-fmad=false"])
        original = outdir / "original"
        compile_c(path, original, defines)
        for config in (c for c in configs if c.defines == defines):
            got = run(exe, config.args, env={"POLYPRAGMA_DEVICE": "gpu"})
            assert got.returncode == 0, got.stderr
            difference = outputs_match(run(original, config.args).stdout, got.stdout,
                                       kernel_tolerance(path.read_text()), kernel_absolute_tolerance(path.read_text()))
            assert difference is None, f"arguments {config.args}: {difference}"


def test_dynamic_shared_memory_on_cuda_device(tmp_path):
    # tiles of 50 KiB (--max-shared-memory 100k): the kernel's dynamic shared memory, opted in, on the device
    path = next(p for p in kernel_paths() if p.stem == "gemm")
    exe, _ = build(path, tmp_path, (), ["--no-fp-contract", "--max-shared-memory", "100k", "--tile-size", "128,64",
                                        "--block-size", "16,16"], nvcc_flags=["-fmad=false"])
    compile_c(path, tmp_path / "original")
    for config in run_configs(path):
        got = run(exe, config.args, env={"POLYPRAGMA_DEVICE": "gpu"})
        assert got.returncode == 0, got.stderr
        assert outputs_match(run(tmp_path / "original", config.args).stdout, got.stdout, 1e-12, 1e-12) is None
