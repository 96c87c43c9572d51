"""The pre-commit hooks through `pre-commit try-repo` on a temporary git repository: stale committed
outputs fail the check hook, the regenerating hook rewrites them (and so fails once, as pre-commit
does for any generator), then passes; sources without committed outputs are left alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from polypragma.buildtools.precommit import main as hook_main

TOP = Path(__file__).resolve().parent.parent
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")

SOURCE = """\
void scale(int n, double *x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    x[i] = 2.0 * x[i];
#pragma endscop
}
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def polypragma(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "polypragma", *args], cwd=repo, capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    for variable in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        monkeypatch.setenv(variable, "polypragma tests")
    for variable in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(variable, "tests@polypragma.invalid")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "scale.c").write_text(SOURCE)
    (repo / "src" / "other.c").write_text(SOURCE)  # offloaded in the build, outputs not committed
    git(repo, "init", "-q")
    assert polypragma(repo, "src/scale.c", "--target", "opencl").returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a source and its committed outputs")
    return repo


def try_repo(repo: Path, hook: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(PRE_COMMIT), "try-repo", str(TOP), hook, "--files", "src/scale.c", "src/other.c"],
                          cwd=repo, capture_output=True, text=True, timeout=600)


def test_hooks_through_pre_commit_try_repo(repo):
    assert polypragma(repo, "src/scale.c", "--target", "opencl", "--check").returncode == 0
    (repo / "src" / "scale.c").write_text(SOURCE.replace("2.0", "3.0"))
    stale = (repo / "src" / "scale.polypragma.c").read_text()
    check = polypragma(repo, "src/scale.c", "--target", "opencl", "--check")
    assert check.returncode == 1
    assert "src/scale.polypragma.c:1:1: error: out of date with src/scale.c" in check.stderr

    checked = try_repo(repo, "polypragma-check")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "out of date with src/scale.c" in checked.stdout
    assert (repo / "src" / "scale.polypragma.c").read_text() == stale  # the check hook writes nothing

    regenerated = try_repo(repo, "polypragma")
    assert regenerated.returncode == 1 and "files were modified by this hook" in regenerated.stdout
    text = (repo / "src" / "scale.polypragma.c").read_text()
    assert "3.0" in text and "(target opencl)" in text.splitlines()[0]
    assert not (repo / "src" / "other.polypragma.c").exists()
    assert polypragma(repo, "src/scale.c", "--target", "opencl", "--check").returncode == 0

    again = try_repo(repo, "polypragma")
    assert again.returncode == 0, again.stdout + again.stderr


def test_hook_maps_changed_outputs_back_to_their_source(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("k.c").write_text(SOURCE)
    assert hook_main(["k.c"]) == 0 and not Path("k.polypragma.c").exists()  # no committed outputs
    assert polypragma(tmp_path, "k.c", "--target", "c").returncode == 0
    generated = Path("k.polypragma.c")
    fresh = generated.read_text()
    generated.write_text(fresh + "/* edited by hand */\n")
    assert hook_main(["--check", "k.polypragma.c"]) == 1
    assert hook_main(["k.polypragma.c"]) == 0 and generated.read_text() == fresh
    assert not Path("k.polypragma.cu").exists()  # the committed target (c) is kept
    os.remove(generated)
