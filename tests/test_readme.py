"""The README's commands, run as written, from the top of a checkout right after the quick start.

The checkout is a temporary directory holding a copy of examples/ and a ``.venv`` that sees this test
environment's packages (polypragma among them, with the ``polypragma`` command), so that what the commands
install and build stays there.  The quick-start commands themselves are what runs this suite.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from harness import opencl_device
from venvs import overlay_venv

TOP = Path(__file__).resolve().parent.parent
QUICK_START = ["scripts/example", "scripts/test"]


def readme_commands() -> list[str]:
    """Every command line of the README's ``sh`` blocks, in order, comments left to the shell."""
    blocks = re.findall(r"^```sh\n(.*?)^```", (TOP / "README.md").read_text(), re.S | re.M)
    return [line for block in blocks for line in block.splitlines() if line.strip() and not line.startswith("#")]


def needs(command: str) -> str | None:
    """Why ``command`` cannot run here, or None."""
    if "nvcc" in command.split("#")[0] and shutil.which("nvcc") is None:
        return "no nvcc"
    if "-lOpenCL" in command and opencl_device() is not None:
        return "no OpenCL"
    if re.search(r"\b(cmake|skbuild)", command) and (shutil.which("cmake") is None or shutil.which("ninja") is None):
        return "no cmake and ninja"
    return None


def checkout(path: Path) -> Path:
    """A directory laid out as the top of a checkout after the quick start, for the commands to run in."""
    path.mkdir()
    shutil.copytree(TOP / "examples", path / "examples",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    python = overlay_venv(path / ".venv")
    command = python.with_name("polypragma")
    command.write_text(f"#!{python}\nimport sys\nfrom polypragma.cli import main\nsys.exit(main())\n")
    command.chmod(0o755)
    return path


def run_in(top: Path, command: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """``command`` through bash in ``top``; on a timeout its whole process group is killed."""
    # the Python API's modules go to the checkout's cache, not the user's
    env = {**os.environ, "POLYPRAGMA_CACHE_DIR": str(top / "build" / "polypragma-cache")}
    process = subprocess.Popen(["bash", "-c", command], cwd=top, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True, env=env)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    return subprocess.CompletedProcess(command, process.returncode, output)


def test_the_quick_start_comes_first():
    commands = readme_commands()
    assert [c.split()[0] for c in commands[:2]] == QUICK_START


@pytest.mark.slow
def test_every_readme_command_works_as_written(tmp_path):
    top = checkout(tmp_path / "top")
    commands = readme_commands()[len(QUICK_START):]
    assert any("pip install" in c and "python_extension" in c for c in commands)
    assert any("pip install" in c and "skbuild_extension" in c for c in commands)
    assert any("cmake_project" in c for c in commands)
    skipped = []
    for command in commands:
        why = needs(command)
        if why:
            skipped.append(f"{command} ({why})")
            continue
        result = run_in(top, command)
        assert result.returncode == 0, f"$ {command}\n{result.stdout}"
        if "pytest" in command:
            assert "2 passed" in result.stdout, result.stdout
    if skipped:
        print("skipped here:", *skipped, sep="\n  ", file=sys.stderr)
