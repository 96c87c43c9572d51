"""What running the corpus's generated opencl programs on PoCL costs, against polypragma's compile, under
PoCL build settings to compare (test_opencl's time: most of a test is one compile and PoCL's build of
the kernels at each program's first run).

    .venv/bin/python bench/pocl_runs.py --label NAME [--every 10] [--option=--tile-size=7,8 ...]
                                        [--cflags=-O0] [--setting opt=] [--setting noopt=POLYPRAGMA_OPENCL_OPTIONS=-cl-opt-disable]

Every ``--every``-th program of tests/kernels is compiled in this process (``--target opencl
--no-fp-contract`` and the ``--option``s, with the -D options of its first ``// RUN:`` line), its
generated program built with gcc (and the ``--cflags``), and then run, for each ``--setting NAME=ENV``
(``VAR=VALUE`` pairs joined by commas, none for PoCL's defaults), with every RUN line of those -D options,
``POLYPRAGMA_DEVICE=gpu`` and a kernel cache of its own that starts empty (``POCL_CACHE_DIR``): the wall
time of the runs is PoCL's build of the kernels and their run.  A setting whose outputs differ from the
first setting's is flagged, and so is one with a run that failed.

Writes bench/results/pocl_runs_<label>.md: the machine, the command, the sums, and a line per program.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
RESULTS = TOP / "bench" / "results"
sys.path.insert(0, str(TOP / "tests"))

from harness import (UNOPTIMISED_KERNELS, compile_c, generated_path, kernel_paths, opencl_run_env,  # noqa: E402
                     polypragma, run, run_configs)

# PoCL's optimiser on (its defaults) and off (test_opencl's variants other than the default)
DEFAULT_SETTINGS = (("optimised", {}), ("unoptimised", UNOPTIMISED_KERNELS))


def _setting(text: str) -> tuple[str, dict[str, str]]:
    name, _, pairs = text.partition("=")
    env = dict(pair.split("=", 1) for pair in pairs.split(",") if pair)
    return name, env


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--every", type=int, default=10, help="every N-th corpus program (default 10)")
    parser.add_argument("--option", action="append", default=[], help="a polypragma option for every compile")
    parser.add_argument("--cflags", action="append", default=[], help="a gcc option for the generated programs")
    parser.add_argument("--setting", action="append", default=[],
                        help="NAME=VAR=VALUE,... : an environment to run the programs in (repeatable)")
    args = parser.parse_args(argv)
    settings = [_setting(s) for s in args.setting] or list(DEFAULT_SETTINGS)
    options = ["--target", "opencl", "--no-fp-contract", *args.option]
    rows, compile_total, totals = [], 0.0, {name: 0.0 for name, _ in settings}
    work = Path(tempfile.mkdtemp(prefix="pocl-runs-"))
    try:
        for path in kernel_paths()[::args.every]:
            configs = run_configs(path)
            defines = configs[0].defines
            out = work / path.stem
            started = time.perf_counter()
            status, messages = polypragma(path, out, options, defines)
            compiled = time.perf_counter() - started
            if status != 0:
                rows.append((path.stem, compiled, None, f"polypragma failed: {messages.strip()[:200]}"))
                continue
            warned = "polypragma warned" if "warning" in messages else ""
            compile_c(generated_path(path, out), out / "gen", defines, args.cflags, libs=["-lOpenCL"])
            times, outputs = {}, {}
            for name, env in settings:
                cache = tempfile.mkdtemp(dir=work)
                environment = {**opencl_run_env(), "POCL_CACHE_DIR": cache, **env}
                started = time.perf_counter()
                results = [run(out / "gen", c.args, env=environment, timeout=600) for c in configs
                           if c.defines == defines]
                times[name] = time.perf_counter() - started
                outputs[name] = [(r.returncode, r.stdout) for r in results]
            first = settings[0][0]
            differing = [name for name in outputs if outputs[name] != outputs[first]]
            failed = [name for name in outputs if any(code != 0 for code, _ in outputs[name])]
            compile_total += compiled
            for name in times:
                totals[name] += times[name]
            rows.append((path.stem, compiled, times,
                         "; ".join(filter(None, [warned, f"outputs differ: {', '.join(differing)}" if differing else "",
                                                 f"a run failed: {', '.join(failed)}" if failed else ""]))))
            print(path.stem, f"compile {compiled:.1f} s", *(f"{n} {t:.1f} s" for n, t in times.items()), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    names = [name for name, _ in settings]
    lines = [f"# PoCL's runs of the corpus's generated opencl programs: {args.label}", "",
             f"Machine: {_cpu()}, {os.cpu_count()} cores; "
             f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC.",
             f"Command: `.venv/bin/python bench/pocl_runs.py {shlex.join(sys.argv[1:] if argv is None else argv)}`.",
             "Settings: " + "; ".join(f"*{name}*: `{' '.join(f'{k}={v}' for k, v in env.items()) or 'PoCL defaults'}`"
                                      for name, env in settings) + ".", "",
             f"Over {len(rows)} programs: polypragma's compiles {compile_total:.1f} s; the runs "
             + ", ".join(f"*{n}* {totals[n]:.1f} s" for n in names) + ".", "",
             "| program | compile (s) | " + " | ".join(f"{n} (s)" for n in names) + " | note |",
             "| --- | ---: | " + " | ".join("---:" for _ in names) + " | --- |"]
    for stem, compiled, times, note in rows:
        cells = [f"{times[n]:.2f}" for n in names] if times else ["" for _ in names]
        lines.append(f"| {stem} | {compiled:.2f} | " + " | ".join(cells) + f" | {note} |")
    target = RESULTS / f"pocl_runs_{args.label}.md"
    target.write_text("\n".join(lines) + "\n")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
