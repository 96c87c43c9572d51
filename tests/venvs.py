"""Temporary virtual environments for installing the Python examples.

Such an environment sees the test environment's packages (polypragma, numpy, setuptools,
scikit-build-core, pytest) through a ``.pth`` file, so ``pip install --no-build-isolation --no-deps``
builds an example there without downloading anything, and what it installs stays in the temporary one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path


def overlay_venv(path: Path) -> Path:
    """Create a virtual environment at ``path`` that also sees this one's packages; return its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    here = sysconfig.get_path("purelib")
    Path(purelib, "test-environment.pth").write_text(f"import site; site.addsitedir({here!r})\n")
    return python


def pip_install(python: Path, project: Path, env=None) -> subprocess.CompletedProcess:
    """``pip install -v`` of ``project`` (copied out of the repository first, since it builds in place)."""
    environment = dict(os.environ)
    environment.update(env or {})
    return subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-build-isolation",
                           "--no-deps", "--no-cache-dir", "-v", str(project)], capture_output=True, text=True,
                          env=environment, timeout=600)


def copy_project(source: Path, destination: Path) -> Path:
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    return destination


def run_tests(python: Path, project: Path, env=None) -> subprocess.CompletedProcess:
    """The example's own tests, run from its tests/ directory with the installed module."""
    environment = dict(os.environ)
    environment.update(env or {})
    return subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "."],
                          cwd=project / "tests", capture_output=True, text=True, env=environment, timeout=300)
