"""Frontend fuzzing, fast profile: malformed and unsupported variants of the corpus kernels
(tests/differential/mutate.py) through polypragma in-process, for every target.  polypragma must
never crash with a traceback, must say everything in diagnostics ``file:line:col: severity: ...``,
and must leave the input file untouched.  The long profile (10,000 inputs and more) is
bench/frontend_fuzz.py."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "differential"))

from fuzz import DIAGNOSTIC, TARGETS, fuzz_one  # noqa: E402
from harness import KERNELS, kernel_paths, polypragma  # noqa: E402
from mutate import mutate  # noqa: E402

INPUTS = 160
SLICES = 4


@pytest.mark.parametrize("part", range(SLICES))
def test_mutated_kernels(part, tmp_path):
    texts = [p.read_text() for p in kernel_paths()]
    failures = []
    for index in range(part, INPUTS, SLICES):
        rng = random.Random(index)
        data = mutate(rng.choice(texts), rng).encode("utf-8", "surrogatepass")
        why = fuzz_one(data, tmp_path, TARGETS[index % len(TARGETS)], KERNELS, strict=index % 5 == 0)
        if why:
            failures.append(f"input {index}: {why}\n--- input ---\n{data.decode('utf-8', 'replace')}")
    assert not failures, "\n\n".join(failures[:3])


def test_not_utf8_is_a_located_error(tmp_path):
    source = tmp_path / "latin1.c"
    data = b"int x;\n/* caf\xe9 */\nint main(void) { return 0; }\n"
    source.write_bytes(data)
    status, messages = polypragma(source, tmp_path / "out")
    assert status == 1
    assert DIAGNOSTIC.match(messages.strip()), messages
    assert messages.startswith(f"{source}:2:7: error: ") and "not UTF-8" in messages, messages
    assert source.read_bytes() == data and not (tmp_path / "out").exists()
