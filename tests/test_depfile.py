"""-MD/-MF (the outputs' dependencies, as compilers write them) and --check (compare, write nothing)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, strategies as st

from harness import polypragma
from polypragma.buildtools.depfile import format_rule, parse_rule

SOURCE = """\
#include <stdio.h>
#include <math.h>
#include "local.h"
#include "sub/deep.h"
void scale(int n, double *x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    x[i] = FACTOR * sqrt(x[i]);
#pragma endscop
}
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "inc" / "sub").mkdir(parents=True)
    (tmp_path / "inc" / "sub" / "deep.h").write_text("#define FACTOR 2.0\n")
    (tmp_path / "local.h").write_text('#include "sub/deep.h"\n')
    source = tmp_path / "scale.c"
    source.write_text(SOURCE)
    return source


def test_depfile_lists_the_outputs_the_source_and_every_header_read(tmp_path):
    source = project(tmp_path)
    depfile = tmp_path / "deps" / "scale.d"
    status, messages = polypragma(source, tmp_path / "out", ["--target", "cuda", "-MF", str(depfile)],
                                  include=(tmp_path / "inc",))
    assert status == 0, messages
    targets, prerequisites = parse_rule(depfile.read_text())
    assert targets == [str(tmp_path / "out" / "scale.polypragma.c"), str(tmp_path / "out" / "scale.polypragma.cu")]
    assert prerequisites == [str(source), str(tmp_path / "local.h"), str(tmp_path / "inc" / "sub" / "deep.h")]
    # the stub system headers polypragma preprocesses with are not the real ones: left out


def test_md_alone_writes_next_to_the_outputs_and_a_file_without_regions_depends_on_itself(tmp_path):
    source = tmp_path / "plain.c"
    source.write_text('#include "absent.h"\nint x;\n')
    status, messages = polypragma(source, tmp_path / "out", ["-MD"])
    assert status == 0, messages
    assert parse_rule((tmp_path / "out" / "plain.polypragma.d").read_text()) == (
        [str(tmp_path / "out" / "plain.polypragma.c")], [str(source)])


@given(st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters=":\\"),
                        min_size=1).filter(lambda s: s.strip() == s), min_size=1, max_size=4))
def test_depfile_paths_survive_spaces_hashes_and_dollars(paths):
    assert parse_rule(format_rule(paths[:1], paths)) == (paths[:1], paths)


def test_check_compares_without_writing(tmp_path):
    source = project(tmp_path)
    out = tmp_path / "out"
    options = ["--target", "cuda"]
    status, messages = polypragma(source, out, [*options, "--check"], include=(tmp_path / "inc",))
    assert status == 1 and not out.exists()
    assert f"{out / 'scale.polypragma.c'} is missing" in messages
    assert polypragma(source, out, options, include=(tmp_path / "inc",))[0] == 0
    status, messages = polypragma(source, out, [*options, "--check"], include=(tmp_path / "inc",))
    assert (status, messages) == (0, "")
    unit = out / "scale.polypragma.cu"
    unit.write_text(unit.read_text() + "// edited\n")
    before = unit.stat().st_mtime_ns
    status, messages = polypragma(source, out, [*options, "--check"], include=(tmp_path / "inc",))
    assert status == 1 and messages == f"{unit}:1:1: error: out of date with {source} (regenerate it with polypragma)\n"
    assert unit.stat().st_mtime_ns == before and unit.read_text().endswith("// edited\n")
    # a different option makes different outputs: stale too
    assert polypragma(source, out, [*options, "--tile-size=8", "--check"], include=(tmp_path / "inc",))[0] == 1
    assert not any(name.startswith(".polypragma-") for name in os.listdir(out))
