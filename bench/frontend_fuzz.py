"""The long profile of the frontend fuzzer: malformed and unsupported variants of the corpus kernels
and of generated programs (tests/differential/mutate.py) through polypragma, in-process.

    .venv/bin/python bench/frontend_fuzz.py --inputs 10000 --jobs 1

Each input must give only diagnostics (``file:line:col: warning|error: ...``), never a traceback, and
leave the input file untouched.  Writes bench/results/frontend_fuzz.md and .json; an input that broke
the contract is copied to bench/results/frontend_fuzz_failures/."""

from __future__ import annotations

import argparse
import datetime
import json
import random
import shlex
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(TOP / "tests"), str(TOP / "tests" / "differential")]

from fuzz import TARGETS, fuzz_one  # noqa: E402
from harness import KERNELS  # noqa: E402
from mutate import mutate  # noqa: E402

RESULTS = TOP / "bench" / "results"


def seeds(count: int, random_seed: int) -> list[str]:
    """The texts mutated: the corpus kernels and ``count`` generated programs."""
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from generator import programs

    texts = [p.read_text() for p in sorted(KERNELS.glob("*.c"))]

    @seed(random_seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def collect(program):
        texts.append(program.source())

    collect()
    return texts


CHUNK = 250


def run_chunk(job) -> list[tuple[int, str, bytes]]:
    """Fuzz inputs ``first`` to ``last - 1``; the failures."""
    texts, first, last, random_seed = job
    failures = []
    with tempfile.TemporaryDirectory(prefix="fuzz-") as workdir:
        for index in range(first, last):
            rng = random.Random(random_seed * 1_000_003 + index)
            text = mutate(rng.choice(texts), rng)
            data = text.encode("utf-8", "surrogatepass")
            if rng.random() < 0.02:  # a few inputs that are not UTF-8
                data = data.replace(b"A", b"\xff", 1)
            why = fuzz_one(data, Path(workdir), TARGETS[index % len(TARGETS)], KERNELS, strict=index % 5 == 0)
            if why:
                failures.append((index, why, data))
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--generated", type=int, default=50, help="generated programs among the texts mutated")
    parser.add_argument("--output", default=str(RESULTS))
    args = parser.parse_args()
    started = time.perf_counter()
    texts = seeds(args.generated, args.seed)
    jobs = [(texts, k, min(k + CHUNK, args.inputs), args.seed) for k in range(0, args.inputs, CHUNK)]
    failures: list = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for done, part in enumerate(pool.map(run_chunk, jobs), start=1):
            failures = sorted(failures + part)
            # results so far, so that an interrupted run still says what it did
            write_results(args, texts, failures, min(done * CHUNK, args.inputs), time.perf_counter() - started)
    return 1 if failures else 0


def write_results(args, texts: list[str], failures: list, inputs: int, wall: float) -> None:
    command = "bench/frontend_fuzz.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    summary = {"command": command, "date": date, "seed": args.seed, "inputs": inputs, "inputs_planned": args.inputs,
               "mutated_texts": len(texts), "failures": len(failures), "wall_seconds": round(wall, 1),
               "jobs": args.jobs, "failed_inputs": [{"index": i, "why": w[:2000]} for i, w, _ in failures]}
    (out / "frontend_fuzz.json").write_text(json.dumps(summary, indent=2) + "\n")
    lines = ["# Frontend fuzzing: long profile", "",
             f"`{command}`, {date}, {args.jobs} job(s), seed {args.seed}"
             + (f"; in progress: {inputs} of {args.inputs} inputs so far." if inputs < args.inputs else "."), "",
             "| inputs | texts mutated (corpus + generated) | failures | wall time |", "| --- | --- | --- | --- |",
             f"| {inputs} | {len(texts)} | {len(failures)} | {wall:.0f} s |", ""]
    if failures:
        failed_dir = out / "frontend_fuzz_failures"
        failed_dir.mkdir(exist_ok=True)
        lines += ["## Failures", ""]
        for index, why, data in failures:
            (failed_dir / f"input{index}.c").write_bytes(data)
            lines.append(f"* `input{index}.c`: {why.splitlines()[0][:300]}")
        lines.append("")
    (out / "frontend_fuzz.md").write_text("\n".join(lines))
    print(f"{inputs} inputs, {len(failures)} failures, {wall:.0f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
