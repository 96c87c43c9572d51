"""The corpus kernels whose generated code a test variant changes: the lists of RESTRICTED in
test_opencl.py and test_corpus.py.  A variant that leaves a kernel's program byte for byte as its
baseline's would only run the same program again, so those tests run it on the kernels listed.

    .venv/bin/python tests/changed_by_variants.py opencl     # or: corpus

prints, for each restricted variant, the kernels whose code it changes at the sizes of their RUN lines
(every -D set of a kernel compiled with the variant's options and with its baseline's).  Compare the
output with the lists after a change to the GPU stage or the scheduler.
"""

from __future__ import annotations

import hashlib
import io
import sys
import tempfile
from contextlib import redirect_stderr
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from harness import TARGETS, generated_path, kernel_paths, polypragma, run_configs  # noqa: E402


def _digest(path: Path, options: list[str], workdir: Path) -> str:
    digest = hashlib.sha1()
    for index, defines in enumerate(dict.fromkeys(c.defines for c in run_configs(path))):
        outdir = workdir / f"d{index}"
        with redirect_stderr(io.StringIO()):
            polypragma(path, outdir, options, defines)
        digest.update(generated_path(path, outdir).read_bytes())
    return digest.hexdigest()


def changed(suite: str) -> dict[str, list[str]]:
    if suite == "opencl":
        import test_opencl as module
        prefix = list(TARGETS["opencl"][0])
    else:
        import test_corpus as module
        prefix = list(TARGETS["c"][0])
    out: dict[str, list[str]] = {name: [] for name in module.RESTRICTED}
    with tempfile.TemporaryDirectory() as tmp:
        for path in kernel_paths():
            digests: dict[tuple, str] = {}
            for name, (values, _, baseline) in module.RESTRICTED.items():
                # (a variant's values start with its options)
                options, base = tuple(values[0]), tuple(module.VARIANTS[baseline][0])
                for opts in (options, base):
                    if opts not in digests:
                        digests[opts] = _digest(path, [*prefix, *opts], Path(tmp) / str(len(digests)))
                if digests[options] != digests[base]:
                    out[name].append(path.stem)
    return out


if __name__ == "__main__":
    for variant, kernels in changed(sys.argv[1] if len(sys.argv) > 1 else "opencl").items():
        print(f"{variant} ({len(kernels)}): {', '.join(kernels)}")
