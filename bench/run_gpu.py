"""GPU validation and benchmarks of the cuda target: build here, run on a GPU machine, report here.

    .venv/bin/python bench/run_gpu.py build             # polypragma, nvcc -arch=sm_90 and gcc: build/gpu.tar.xz
    python3 bench/run_gpu.py run --out DIR              # on the GPU machine: runs everything, writes DIR/gpu_run.json
    .venv/bin/python bench/run_gpu.py report DIR/gpu_run.json   # bench/results/gpu_*.md, .json and the chart
    .venv/bin/python bench/run_gpu.py merge OUT.json RUN1.json RUN2.json...   # later runs' entries replace

`build` needs polypragma (islpy), nvcc and gcc; `run` needs only Python's standard library, the
NVIDIA driver and, for the vendor-library baselines and the measured peaks, CuPy.

What runs:

* correctness: every corpus kernel (tests/kernels) through the cuda target, under two size
  variants (the defaults, and tiles, blocks and grids that wrap), on every RUN configuration, with
  POLYPRAGMA_DEVICE=gpu, compared with the original program's output computed here (built with
  --no-fp-contract and nvcc -fmad=false, so only the order of math-library roundings may differ);
* performance: the kernels of bench/gpu/suite.py at realistic sizes, built with -DPOLYPRAGMA_BENCH
  (a checksum per array instead of every element), three ways: the original program
  (gcc -O3 -march=x86-64-v3), polypragma's OpenMP C on all cores, and polypragma's CUDA. Region time
  comes from bench/gpu/timer.c (gcc's function instrumentation), transfers and kernels from the
  generated code's own CUDA-event profile (POLYPRAGMA_PROFILE=1); checksums are compared with the
  original's;
* baselines: bench/gpu/peak.py measures the device's copy bandwidth and FP64 matrix-product rate,
  and cuBLAS on the matrix product's size;
* transfers (issue 18): the copies polypragma's generated code makes of a 1 GiB array
  (bench/gpu/transfers.c, POLYPRAGMA_PROFILE=1: ``h2d_gbs``, ``d2h_gbs`` with the default copy method,
  under each POLYPRAGMA_COPY method in ``by_method``, and staged by 1 to 16 threads in chunks of 8M and
  32M in ``stage_sweep``), against the link measured directly with
  pinned memory (bench/gpu/pinned.cu: ``pinned_h2d_gbs``, ``pinned_d2h_gbs``, pageable too);
* the Python API (issue 19): examples/python_api/kernels.c built for cuda by ``polypragma.compile``,
  loaded there without the compiler, its stencil called 20 times on NumPy, CuPy, PyCUDA and PyTorch
  arrays (those installed; bench/gpu/api_calls.py): ``python_api`` lists ``{array, calls, first_ms,
  per_call_ms, kernels_ms, copy_ms}``, device arrays being used in place with no copy;
* repeated calls (issue 18): bench/gpu/timestep.c calls a 2-D Jacobi step 1,000 times inside a data
  scope; ``repeated_calls`` lists ``{name, calls, first_ms, per_call_ms, kernels_ms}`` with the scope
  and with POLYPRAGMA_DATA=copy (a copy in and out at every call), kernels_ms being the median kernel
  time of the calls' profiles.

``run`` fits in ``--deadline`` seconds (a GPU machine's call is bounded): the corpus runs several programs
at a time, then the baselines and the measurements, then the benchmarks while time is left (their
original programs several at a time, each OpenMP and CUDA build alone, runs repeated only while short),
then, with ``--profile``, Nsight Compute's speed of light for a few kernels, and the fallback check.

PyCUDA is not installed on the GPU machine: bench/gpu/build_pycuda.sh builds it from its source
distribution and the wheels of its dependencies in .whl/ (untracked), either there or here for its
Python (``PYTHON=python3.12 bash bench/gpu/build_pycuda.sh .whl/site312``, then
``PYTHONPATH=.whl/site312`` there with .whl carried).

``run --measurements-only`` runs only the transfers and repeated calls (in a call of its own on a GPU
machine whose calls are bounded); ``run --dry`` runs them at small sizes, and needs no GPU: here the
programs take their CPU fallback, the GPU's numbers are null, and the JSON has its full shape (build
them with ``build --measurements-only``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import platform
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
BENCH = TOP / "bench"
KERNELS = TOP / "tests" / "kernels"
sys.path.insert(0, str(TOP / "tests"))
sys.path.insert(0, str(BENCH))

from outputs import kernel_tolerance, outputs_match  # noqa: E402
from gpu.suite import SUITE  # noqa: E402

NVCC = os.environ.get("NVCC", "nvcc")
CC = os.environ.get("CC", "gcc")
ARCH = "-arch=sm_90"
CPU_FLAGS = ["-O3", "-march=x86-64-v3", "-std=gnu11"]
TIMER_FLAGS = ["-finstrument-functions", "-finstrument-functions-exclude-file-list=kernels.h"]
BENCH_RTOL = 1e-9


# -- build (here) --------------------------------------------------------------------------


def _run(command: list[str], cwd: Path | None = None) -> None:
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    if result.returncode != 0:
        raise RuntimeError(f"failed: {shlex.join(command)}\n{result.stdout}{result.stderr}")


def _polypragma(source: Path, outdir: Path, options: list[str]) -> None:
    # run from the top of the repository: the messages and #line directives name tests/kernels/...
    _run([sys.executable, "-m", "polypragma", str(source.relative_to(TOP)), "-o", str(outdir), f"-I{KERNELS}",
          *options], cwd=TOP)


def _run_configs(path: Path) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    from harness import run_configs  # needs polypragma: only here, not on the GPU machine

    return [(c.defines, c.args) for c in run_configs(path)]


def _variant_options(variant: str) -> list[str]:
    from harness import WRAP_SIZES

    return {"default": [], "wrap": WRAP_SIZES}[variant]


def _link_cuda(outdir: Path, stem: str, defines: list[str], c_flags: list[str], nvcc_flags: list[str],
               objects: list[str], exe: Path) -> None:
    _run([NVCC, ARCH, *nvcc_flags, f"-I{KERNELS}", *defines, "-c", str(outdir / f"{stem}.polypragma.cu"), "-o",
          str(outdir / "unit.o")])
    _run([CC, *c_flags, f"-I{KERNELS}", *defines, "-c", str(outdir / f"{stem}.polypragma.c"), "-o",
          str(outdir / "main.o")])
    _run([NVCC, ARCH, str(outdir / "main.o"), str(outdir / "unit.o"), *objects, "-o", str(exe), "-lm"])
    _run(["strip", str(exe)])


def _build_corpus_case(path: Path, index: int, defines: tuple[str, ...], variant: str, build: Path) -> dict:
    name = f"{path.stem}.{variant}.d{index}"
    outdir = build / "work" / name
    outdir.mkdir(parents=True)
    _polypragma(path, outdir, ["--target", "cuda", "--no-fp-contract", *_variant_options(variant), *defines])
    exe = build / "corpus" / name
    _link_cuda(outdir, path.stem, list(defines), ["-O2", "-std=gnu11", "-ffp-contract=off"], ["-O2", "-fmad=false"],
               [], exe)
    original = outdir / "original"
    _run([CC, "-O2", "-std=gnu11", "-ffp-contract=off", f"-I{KERNELS}", *defines, str(path), "-o", str(original),
          "-lm"])
    runs = []
    for k, (config_defines, args) in enumerate(_run_configs(path)):
        if config_defines != defines:
            continue
        expected = subprocess.run([str(original), *args], capture_output=True, text=True, timeout=120)
        if expected.returncode != 0:
            raise RuntimeError(f"{path.name} {args}: the original program failed\n{expected.stderr}")
        out = build / "corpus" / f"{name}.r{k}.expected"
        out.write_text(expected.stdout)
        runs.append({"args": list(args), "expected": out.name})
    return {"kernel": path.stem, "variant": variant, "defines": list(defines), "exe": name, "runs": runs,
            "rtol": kernel_tolerance(path.read_text())}


def _build_benchmark(bench, build: Path, timer: Path) -> dict:
    path = KERNELS / f"{bench.kernel}.c"
    defines = ["-DPOLYPRAGMA_BENCH", *bench.defines]
    work = build / "work" / f"bench.{bench.name}"
    (work / "cuda").mkdir(parents=True)
    (work / "omp").mkdir()
    exes = {}
    # the original program
    exes["seq"] = f"{bench.name}.seq"
    _run([CC, *CPU_FLAGS, *TIMER_FLAGS, f"-I{KERNELS}", *defines, str(path), str(timer), "-o",
          str(build / "bench" / exes["seq"]), "-lm"])
    # polypragma's OpenMP C
    _polypragma(path, work / "omp", ["--target", "c", "--openmp", *defines])
    exes["omp"] = f"{bench.name}.omp"
    _run([CC, *CPU_FLAGS, "-fopenmp", *TIMER_FLAGS, f"-I{KERNELS}", *defines,
          str(work / "omp" / f"{bench.kernel}.polypragma.c"), str(timer), "-o", str(build / "bench" / exes["omp"]),
          "-lm"])
    # polypragma's CUDA
    explain = subprocess.run([sys.executable, "-m", "polypragma", str(path.relative_to(TOP)), "-o", str(work / "cuda"),
                              f"-I{KERNELS}", "--target", "cuda", "--explain", *bench.gpu_options, *defines],
                             capture_output=True, text=True, cwd=TOP)
    if explain.returncode != 0:
        raise RuntimeError(f"{bench.name}: polypragma failed\n{explain.stderr}")
    exes["gpu"] = f"{bench.name}.gpu"
    _link_cuda(work / "cuda", bench.kernel, defines, [*CPU_FLAGS, *TIMER_FLAGS], ["-O3"], [str(timer)],
               build / "bench" / exes["gpu"])
    return {"name": bench.name, "kernel": bench.kernel, "size": bench.size(), "args": [str(a) for a in bench.args],
            "flops": bench.flops, "bytes": bench.bytes, "note": bench.note, "options": list(bench.gpu_options),
            "exes": exes, "explain": explain.stderr.strip()}


MEASUREMENTS = {"transfers": BENCH / "gpu" / "transfers.c", "timestep": BENCH / "gpu" / "timestep.c"}


def _build_measurements(build: Path) -> dict:
    """The programs of the transfers and repeated-calls measurements, and the direct bandwidth probe."""
    exes = {}
    for name, source in MEASUREMENTS.items():
        work = build / "work" / f"measure.{name}"
        work.mkdir(parents=True)
        _run([sys.executable, "-m", "polypragma", str(source.relative_to(TOP)), "-o", str(work), "--target", "cuda"],
             cwd=TOP)
        _link_cuda(work, source.stem, [], ["-O3", "-march=x86-64-v3", "-std=gnu11"], ["-O3"], [],
                   build / "measure" / name)
        exes[name] = name
    _run([NVCC, ARCH, "-O2", str(BENCH / "gpu" / "pinned.cu"), "-o", str(build / "measure" / "pinned")])
    exes["pinned"] = "pinned"
    exes["python_api"] = _build_api_module(build)
    return exes


def _build_api_module(build: Path) -> str:
    """examples/python_api/kernels.c as the Python API builds it for cuda (sm_90), copied out of a
    scratch cache into BUILD/measure/api: the GPU machine loads it without the compiler."""
    import polypragma  # here only: the GPU machine has no compiler

    with tempfile.TemporaryDirectory() as cache:
        polypragma.set_cache_dir(cache)
        try:
            mod = polypragma.compile(TOP / "examples" / "python_api" / "kernels.c", target="cuda",
                                     cuda_architectures=["90"])
            shutil.copytree(os.path.dirname(mod.library), build / "measure" / "api")
        finally:
            polypragma.set_cache_dir(None)
    return "api"


def build(args) -> int:
    out = Path(args.build)
    if out.exists():
        shutil.rmtree(out)
    (out / "corpus").mkdir(parents=True)
    (out / "bench").mkdir()
    (out / "work").mkdir()
    (out / "measure").mkdir()
    timer = out / "work" / "timer.o"
    _run([CC, "-O2", "-c", str(BENCH / "gpu" / "timer.c"), "-o", str(timer)])
    jobs = []
    for path in sorted(KERNELS.glob("*.c")):
        defines_sets = list(dict.fromkeys(d for d, _ in _run_configs(path)))
        for index, defines in enumerate(defines_sets):
            jobs.append((path, index, defines, "default"))
        jobs.append((path, 0, defines_sets[0], "wrap"))
    selected = [b for b in SUITE if not args.measurements_only and (not args.only or b.name in args.only)]
    started = time.perf_counter()
    measure = _build_measurements(out)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        if args.corpus:
            jobs = [job for job in jobs if job[0].stem in args.corpus]
        elif args.only or args.measurements_only:
            jobs = []
        corpus = list(pool.map(lambda job: _build_corpus_case(*job, out), jobs))
        benches = list(pool.map(lambda b: _build_benchmark(b, out, timer), selected))
    shutil.copy(BENCH / "gpu" / "peak.py", out / "peak.py")
    manifest = {"built": datetime.date.today().isoformat(), "polypragma": _version(),
                "nvcc": subprocess.run([NVCC, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1],
                "gcc": subprocess.run([CC, "--version"], capture_output=True, text=True).stdout.splitlines()[0],
                "command": "python bench/run_gpu.py " + shlex.join(sys.argv[1:]),
                "corpus": corpus, "bench": benches, "measure": measure,
                "gemm_size": next((b.args[1] for b in SUITE if b.name == "gemm"), 2000)}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    shutil.rmtree(out / "work")
    archive = Path(str(out) + ".tar.xz")
    with tarfile.open(archive, "w:xz", preset=9) as tar:
        tar.add(out, arcname=out.name)
    print(f"built {len(corpus)} corpus programs and {len(benches)} benchmarks in {time.perf_counter() - started:.0f} s;"
          f" {archive} is {archive.stat().st_size / 2**20:.1f} MiB")
    return 0


def _version() -> str:
    from polypragma import __version__

    return __version__


# -- run (on the GPU machine) --------------------------------------------------------------


def _execute(command: list[str], env: dict, timeout: float) -> dict:
    environment = dict(os.environ)
    environment.update(env)
    started = time.perf_counter()
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=environment)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": timeout, "stdout": "", "stderr": ""}
    return {"status": result.returncode, "seconds": time.perf_counter() - started, "stdout": result.stdout,
            "stderr": result.stderr}


def _repeat(command: list[str], env: dict, timeout: float, times: int, enough: float = 5.0) -> list[dict]:
    """Up to ``times`` runs, stopping at the first that fails or times out, or once the runs have taken
    ``enough`` seconds together (a long run's time varies little between runs)."""
    runs = []
    for _ in range(times):
        runs.append(_execute(command, env, timeout))
        if runs[-1]["status"] != 0 or sum(r["seconds"] for r in runs) >= enough:
            break
    return runs


def _region_ms(stderr: str) -> float | None:
    found = re.findall(r"^bench: region ([0-9.]+) ms$", stderr, re.M)
    return float(found[-1]) if found else None


def _profile(stderr: str) -> dict | None:
    """The phases summed over the regions' profile lines of one run."""
    total: dict[str, float] = {}
    pattern = (r"profile: .*: copy-in ([0-9.]+) ms, kernels ([0-9.]+) ms, copy-out ([0-9.]+) ms, "
               r"total ([0-9.]+) ms \(([0-9.]+) ms with allocation\)")
    for match in re.finditer(pattern, stderr):
        for key, value in zip(("copy_in", "kernels", "copy_out", "total", "with_allocation"), match.groups()):
            total[key] = total.get(key, 0.0) + float(value)
    return total or None


def _device_info() -> dict:
    info = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu_cores": os.cpu_count(), "host": platform.platform()}
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True)
        info["gpu"] = smi.stdout.strip() or smi.stderr.strip()
    except OSError:
        info["gpu"] = "none (no nvidia-smi)"
    try:
        cpu = [line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
               if line.startswith("model name")]
        info["cpu"] = cpu[0] if cpu else platform.processor()
    except OSError:
        info["cpu"] = platform.processor()
    return info


HOG = """
import sys, time, cupy
free, total = cupy.cuda.runtime.memGetInfo()
hog = cupy.empty(free - int(sys.argv[1]), dtype=cupy.uint8)
print("holding", hog.nbytes, flush=True)
time.sleep(float(sys.argv[2]))
"""


def fallback_check(build: Path, manifest: dict, args) -> dict:
    """A device failure in the middle of a region, for real: another process holds all but ``--spare``
    bytes of device memory, so the gemm benchmark's small matrices are allocated and its large C is
    not.  With POLYPRAGMA_DEVICE unset the program must say which call failed, release what it
    allocated and compute the right result with the original loops; with POLYPRAGMA_DEVICE=gpu it must
    stop with status 1."""
    gemm = next((b for b in manifest["bench"] if b["name"] == "gemm"), None)
    if gemm is None:
        return {"skipped": "no gemm benchmark in this build"}
    sizes = ["1", "12000", "12000", "2"]  # C is 1.15 GB, A and B 192 KB
    hog = subprocess.Popen([sys.executable, "-c", HOG, str(args.spare), "60"], stdout=subprocess.PIPE, text=True)
    try:
        ready = hog.stdout.readline()
        if not ready.startswith("holding"):
            return {"skipped": f"could not hold the device memory: {ready!r}"}
        auto = _execute([str(build / "bench" / gemm["exes"]["gpu"]), *sizes], {}, 120)
        strict = _execute([str(build / "bench" / gemm["exes"]["gpu"]), *sizes], {"POLYPRAGMA_DEVICE": "gpu"}, 120)
    finally:
        hog.kill()
        hog.wait()
    expected = _execute([str(build / "bench" / gemm["exes"]["seq"]), *sizes], {}, 120)
    report = {"held": ready.strip(), "auto_status": auto["status"], "auto_stderr": auto["stderr"][-600:],
              "gpu_status": strict["status"], "gpu_stderr": strict["stderr"][-600:]}
    report["auto_result_matches"] = auto["status"] == 0 and outputs_match(expected["stdout"], auto["stdout"]) is None
    report["ok"] = (report["auto_result_matches"] and "failed" in auto["stderr"] and strict["status"] == 1
                    and strict["stdout"] == "")
    return report


def _profiles(stderr: str) -> list[dict]:
    """Each region call's profile line, in order."""
    pattern = (r"profile: .*: copy-in ([0-9.]+) ms, kernels ([0-9.]+) ms, copy-out ([0-9.]+) ms, "
               r"total ([0-9.]+) ms \(([0-9.]+) ms with allocation\)")
    return [dict(zip(("copy_in", "kernels", "copy_out", "total", "with_allocation"), map(float, m.groups())))
            for m in re.finditer(pattern, stderr)]


def _gbs(bytes_: int, ms: float | None) -> float | None:
    return round(bytes_ / (ms / 1e3) / 1e9, 3) if ms else None


def _copies(measure: Path, elements: int, env: dict, dry: bool) -> dict:
    """One run of the transfers program: the rates of its second call's copies (the buffer from the pool)."""
    got = _execute([str(measure / "transfers"), str(elements)],
                   {"POLYPRAGMA_DEVICE": "auto" if dry else "gpu", "POLYPRAGMA_PROFILE": "1", **env}, 300)
    profiles = _profiles(got["stderr"])
    entry = {"status": got["status"], "h2d_gbs": None, "d2h_gbs": None}
    if len(profiles) >= 2:
        size = elements * 8
        entry.update(h2d_gbs=_gbs(size, profiles[1]["copy_in"]), d2h_gbs=_gbs(size, profiles[1]["copy_out"]),
                     first_call_ms=profiles[0]["with_allocation"], second_call_ms=profiles[1]["with_allocation"])
    elif got["status"] != 0:
        entry["error"] = got["stderr"][-400:]
    return entry


def transfers(build: Path, dry: bool) -> dict:
    """Copies of a 1 GiB array by the generated code (its second call's profile: the buffer comes from the
    pool), under the default method and each POLYPRAGMA_COPY method, and the link measured directly."""
    measure = build / "measure"
    elements = (1 << 30) // 8 if not dry else 1 << 16
    size = elements * 8
    report: dict = {"bytes": size, "h2d_gbs": None, "d2h_gbs": None, "pinned_h2d_gbs": None, "pinned_d2h_gbs": None,
                    "by_method": {}}
    for method in ("auto", "stage", "register", "pageable"):
        report["by_method"][method] = _copies(measure, elements, {"POLYPRAGMA_COPY": method}, dry)
    report["h2d_gbs"] = report["by_method"]["auto"]["h2d_gbs"]
    report["d2h_gbs"] = report["by_method"]["auto"]["d2h_gbs"]
    # the staged copies' threads and chunk size (POLYPRAGMA_COPY_THREADS, POLYPRAGMA_STAGE_CHUNK), to choose
    # their defaults from
    report["stage_sweep"] = [
        {"threads": threads, "chunk": chunk,
         **_copies(measure, elements, {"POLYPRAGMA_COPY": "stage", "POLYPRAGMA_COPY_THREADS": str(threads),
                                       "POLYPRAGMA_STAGE_CHUNK": chunk}, dry)}
        for threads in (1, 4, 8, 16) for chunk in ("8M", "32M")]
    probe = _execute([str(measure / "pinned"), str(size)], {}, 300)
    try:
        direct = json.loads(probe["stdout"])
    except ValueError:
        direct = {"error": (probe["stdout"] + probe["stderr"])[-400:]}
    report["direct"] = direct
    report["pinned_h2d_gbs"] = direct.get("pinned_h2d_gbs")
    report["pinned_d2h_gbs"] = direct.get("pinned_d2h_gbs")
    for key in ("h2d", "d2h"):
        ours, pinned = report[f"{key}_gbs"], report[f"pinned_{key}_gbs"]
        report[f"{key}_of_pinned"] = round(ours / pinned, 3) if ours and pinned else None
    return report


def repeated_calls(build: Path, dry: bool) -> list[dict]:
    """The time-stepping program calling a 2-D stencil step: 1,000 times with its data scope, 200 times
    with POLYPRAGMA_DATA=copy.  first_ms and per_call_ms from the program's own clock (each call returns when
    its kernels are done); kernels_ms the median kernel time of a profiled run's calls."""
    n = 4096 if not dry else 64
    out = []
    # the copies' calls are each 0.5 GB over the link: 200 of them say their per-call time as well
    for name, env, calls in (("jacobi_2d_step_data_scope", {}, 1000),
                             ("jacobi_2d_step_copies", {"POLYPRAGMA_DATA": "copy"}, 200)):
        device = {"POLYPRAGMA_DEVICE": "auto" if dry else "gpu"}
        entry: dict = {"name": name, "calls": calls, "n": n, "first_ms": None, "per_call_ms": None, "kernels_ms": None}
        timed = _execute([str(build / "measure" / "timestep"), str(n), str(calls)], {**device, **env}, 600)
        found = re.search(r"timestep: calls (\d+), first ([0-9.]+) ms, rest ([0-9.]+) ms", timed["stderr"])
        if timed["status"] != 0 or not found:
            entry["error"] = f"status {timed['status']}: {timed['stderr'][-400:]}"
        else:
            entry["first_ms"] = float(found.group(2))
            entry["per_call_ms"] = round(float(found.group(3)) / max(calls - 1, 1), 5)
        profiled = _execute([str(build / "measure" / "timestep"), str(n), str(calls)],
                            {**device, **env, "POLYPRAGMA_PROFILE": "1"}, 600)
        kernels = sorted(p["kernels"] for p in _profiles(profiled["stderr"]))
        if kernels:
            entry["kernels_ms"] = kernels[len(kernels) // 2]
            entry["profiled_copy_ms"] = sorted(p["copy_in"] + p["copy_out"]
                                               for p in _profiles(profiled["stderr"]))[len(kernels) // 2]
        transfers_line = re.search(r"transfers: .*", profiled["stderr"])
        entry["transfers"] = transfers_line.group(0) if transfers_line else None
        if entry["per_call_ms"] and entry["kernels_ms"]:
            entry["per_call_over_kernels"] = round(entry["per_call_ms"] / entry["kernels_ms"], 3)
        out.append(entry)
    return out


def python_api(build: Path, dry: bool) -> list[dict]:
    """The Python API's module (cuda) called on each kind of array (bench/gpu/api_calls.py): per-call time
    against the kernels' time from the runtime's profile, and the copies a call makes (none for device
    arrays, used in place)."""
    n, steps, calls = (4096, 10, 20) if not dry else (64, 2, 3)
    out = []
    for kind in ("numpy", "cupy", "pycuda", "torch"):
        entry: dict = {"array": kind, "n": n, "steps": steps, "calls": calls, "first_ms": None, "per_call_ms": None,
                       "kernels_ms": None, "copy_ms": None}
        got = _execute([sys.executable, str(BENCH / "gpu" / "api_calls.py"), str(build / "measure" / "api"), kind,
                        str(n), str(steps), str(calls)],
                       {"POLYPRAGMA_DEVICE": "auto" if dry else "gpu", "POLYPRAGMA_PROFILE": "1",
                        "PYTHONPATH": os.pathsep.join(filter(None, [str(TOP), os.environ.get("PYTHONPATH")]))}, 300)
        if got["status"] != 0:
            missing = re.search(r"No module named '(\w+)'", got["stderr"])
            entry["error"] = f"{missing.group(1)} is not installed" if missing else \
                f"status {got['status']}: {got['stderr'][-400:]}"
            out.append(entry)
            continue
        entry.update(json.loads(got["stdout"].strip().splitlines()[-1]))
        profiles = _profiles(got["stderr"])[1:]  # after the first call
        if profiles:
            middle = len(profiles) // 2
            entry["kernels_ms"] = sorted(p["kernels"] for p in profiles)[middle]
            entry["copy_ms"] = sorted(p["copy_in"] + p["copy_out"] for p in profiles)[middle]
        if entry["per_call_ms"] and entry["kernels_ms"]:
            entry["per_call_over_kernels"] = round(entry["per_call_ms"] / entry["kernels_ms"], 3)
        out.append(entry)
    return out


def measurements(build: Path, manifest: dict, result: dict, dry: bool) -> None:
    if "measure" not in manifest:
        result["transfers"] = {"skipped": "this build has no measurement programs (rebuild)"}
        result["repeated_calls"] = []
        return
    result["transfers"] = transfers(build, dry)
    print(f"transfers: {result['transfers']}", flush=True)
    result["repeated_calls"] = repeated_calls(build, dry)
    print(f"repeated_calls: {result['repeated_calls']}", flush=True)
    if "python_api" in manifest["measure"]:
        result["python_api"] = python_api(build, dry)
        print(f"python_api: {result['python_api']}", flush=True)


class _Clock:
    """The call's deadline: each phase and each program's timeout fit in what is left of it."""

    def __init__(self, seconds: float):
        self.started = time.perf_counter()
        self.seconds = seconds

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def left(self) -> float:
        return self.seconds - self.elapsed()

    def timeout(self, wanted: float) -> float:
        return max(1.0, min(wanted, self.left()))


def _corpus_run(build: Path, case: dict, r: dict, timeout: float) -> dict:
    got = _execute([str(build / "corpus" / case["exe"]), *r["args"]], {"POLYPRAGMA_DEVICE": "gpu"}, timeout)
    expected = (build / "corpus" / r["expected"]).read_text()
    if got["status"] != 0:
        difference = f"exit status {got['status']}: {got['stderr'][-400:]}"
    else:
        difference = outputs_match(expected, got["stdout"], case["rtol"])
    return {"kernel": case["kernel"], "variant": case["variant"], "defines": case["defines"], "args": r["args"],
            "ok": difference is None, "difference": difference, "seconds": round(got["seconds"], 3)}


def corpus(build: Path, manifest: dict, clock: _Clock, jobs: int) -> list[dict]:
    """Every corpus program on the GPU, ``jobs`` at a time (correctness only: nothing is timed)."""
    cases = [(case, r) for case in manifest["corpus"] for r in case["runs"]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda job: _corpus_run(build, *job, clock.timeout(60)), cases))


def benchmarks(build: Path, manifest: dict, result: dict, out: Path, clock: _Clock, args) -> None:
    """The suite: the original programs first, ``--seq-jobs`` at a time (their times are the baseline of
    the speedups, measured under that much load, recorded as ``seq_concurrency``), then each entry's
    OpenMP and CUDA builds alone on the machine."""
    host_key = {b["name"]: (b["kernel"], b["size"], tuple(b["args"])) for b in manifest["bench"]}
    # the original and OpenMP runs of an earlier run of the same programs (--reuse): only the GPU runs again
    reused = {}
    if args.reuse:
        earlier = json.loads(Path(args.reuse).read_text())
        reused = {(b["kernel"], b["size"]): b for b in earlier["bench"] if b.get("seq_stdout") is not None}
        result["host_runs_from"] = f"{earlier['device']['date']} ({Path(args.reuse).name})"
    originals = {}
    for bench in manifest["bench"]:
        if (bench["kernel"], bench["size"]) not in reused:
            originals.setdefault(host_key[bench["name"]], [str(build / "bench" / bench["exes"]["seq"]), *bench["args"]])
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.seq_jobs) as pool:
        seq_runs = dict(zip(originals, pool.map(lambda c: _execute(c, {}, clock.timeout(args.timeout)),
                                                originals.values())))
    result["seq_concurrency"] = args.seq_jobs
    print(f"originals: {len(seq_runs)} run ({clock.elapsed():.0f} s)", flush=True)
    omp_runs: dict = {}
    for bench in manifest["bench"]:
        entry = {k: bench[k] for k in ("name", "kernel", "size", "flops", "bytes", "note", "explain")}
        entry["options"] = bench.get("options", [])
        if clock.left() < args.reserve:
            entry.update(seq_ms=None, omp_ms=None, gpu_ms=None, gpu_error="not run: out of time for this run")
            result["bench"].append(entry)
            continue
        exe = {k: str(build / "bench" / v) for k, v in bench["exes"].items()}
        key = host_key[bench["name"]]
        prior = reused.get((bench["kernel"], bench["size"]))
        if prior is not None:
            entry.update({k: prior[k] for k in ("seq_ms", "seq_stdout", "omp_ms", "omp_runs", "omp_error",
                                                "omp_difference") if k in prior})
            seq = {"status": 0, "stdout": prior["seq_stdout"], "stderr": ""}
        else:
            # an entry of other cuda options (sizes) shares the OpenMP runs of the kernel's default entry
            if key not in omp_runs:
                omp_runs[key] = _repeat([exe["omp"], *bench["args"]], {}, clock.timeout(args.timeout), 2)
            seq = seq_runs[key]
            entry["seq_ms"] = _region_ms(seq["stderr"])
            entry["seq_stdout"] = seq["stdout"]
        # modules loaded with the context, not at each kernel's first launch (CUDA's lazy loading), so that
        # the kernels' time of a region called once is the kernels' alone
        gpu_runs = _repeat([exe["gpu"], *bench["args"]], {"POLYPRAGMA_DEVICE": "gpu", "POLYPRAGMA_PROFILE": "1",
                                                          "CUDA_MODULE_LOADING": args.module_loading},
                           clock.timeout(args.timeout), 3)
        entry["module_loading"] = args.module_loading
        for label, runs in ((("omp", omp_runs[key]),) if prior is None else ()) + (("gpu", gpu_runs),):
            times = [_region_ms(r["stderr"]) for r in runs if r["status"] == 0]
            entry[f"{label}_ms"] = min(t for t in times if t is not None) if any(t is not None for t in times) else None
            entry[f"{label}_runs"] = len(runs)
            failed = [r for r in runs if r["status"] != 0]
            if failed:
                entry[f"{label}_error"] = f"status {failed[0]['status']}: {failed[0]['stderr'][-400:]}"
            elif seq["status"] != 0:
                entry[f"{label}_error"] = f"the original failed: status {seq['status']}: {seq['stderr'][-400:]}"
            else:
                entry[f"{label}_difference"] = outputs_match(seq["stdout"], runs[0]["stdout"], BENCH_RTOL)
        profiles = [p for p in (_profile(r["stderr"]) for r in gpu_runs if r["status"] == 0) if p]
        if profiles:
            entry["gpu_profile_ms"] = {key: min(p[key] for p in profiles) for key in profiles[0]}
        result["bench"].append(entry)
        (out / "gpu_run.json").write_text(json.dumps(result, indent=1) + "\n")  # what is done so far
        print(f"{bench['name']}: seq {entry['seq_ms']} ms, omp {entry['omp_ms']} ms, gpu {entry['gpu_ms']} ms "
              f"{entry.get('gpu_profile_ms')} {entry.get('gpu_difference') or entry.get('gpu_error') or 'ok'} "
              f"({clock.elapsed():.0f} s)", flush=True)


def kernel_profiles(build: Path, manifest: dict, clock: _Clock) -> list[dict]:
    """Nsight Compute's speed-of-light section for the kernels of a few benchmarks at smaller sizes
    (which bound each kernel hits), where ncu is installed and time is left."""
    ncu = shutil.which("ncu") or next(iter(sorted(Path("/opt/nvidia").glob("nsight-compute/*/ncu"))), None)
    if ncu is None:
        return [{"skipped": "ncu is not installed"}]
    out = []
    for name, arguments in PROFILED:
        bench = next((b for b in manifest["bench"] if b["name"] == name), None)
        if bench is None or clock.left() < 30:
            continue
        got = _execute([str(ncu), "--clock-control", "none", "--section", "SpeedOfLight", "--section", "Occupancy",
                        "--section", "LaunchStats", "--launch-count", "4", "--csv",
                        str(build / "bench" / bench["exes"]["gpu"]), *arguments], {"POLYPRAGMA_DEVICE": "gpu"},
                       clock.timeout(60))
        rows = [line for line in got["stdout"].splitlines() if line.startswith('"')]  # not the program's output
        out.append({"name": name, "args": arguments, "status": got["status"], "metrics": _ncu_metrics(rows),
                    "rows": rows[:400], "stderr": got["stderr"][-600:]})
    return out


NCU_METRICS = {"Duration", "DRAM Throughput", "Memory Throughput", "Compute (SM) Throughput", "L1/TEX Cache Throughput",
               "L2 Cache Throughput", "Achieved Occupancy", "Theoretical Occupancy", "Registers Per Thread",
               "Block Size", "Grid Size", "Dynamic Shared Memory Per Block", "Static Shared Memory Per Block",
               "Block Limit Registers", "Block Limit Shared Mem", "Waves Per SM"}


def _ncu_metrics(rows: list[str]) -> list[dict]:
    """ncu's CSV (one row per kernel launch and metric) as one dict per launch: kernel name, metrics with units."""
    import csv

    table = list(csv.reader(rows))
    if not table:
        return []
    header = table[0]
    try:
        at = {name: header.index(name) for name in ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")}
    except ValueError:
        return [{"unparsed": rows[:3]}]
    launches: dict = {}
    for row in table[1:]:
        if len(row) <= max(at.values()) or row[at["Metric Name"]] not in NCU_METRICS:
            continue
        launch = launches.setdefault(row[at["ID"]], {"kernel": row[at["Kernel Name"]][:80]})
        launch[row[at["Metric Name"]]] = f"{row[at['Metric Value']]} {row[at['Metric Unit']]}".strip()
    return list(launches.values())


# (benchmark, its arguments at a size where a few profiled launches take seconds under ncu)
PROFILED = [("gemm", ["1", "1024", "1024", "1024"]), ("mvt", ["1", "4096"]), ("bicg", ["1", "4096", "4096"]),
            ("gesummv", ["1"]), ("jacobi_2d", ["1"]), ("transpose", ["1", "4096", "4096"]),
            ("convolution_2d", ["1"]), ("fdtd_2d", ["1", "2000", "2000", "2"])]


def run(args) -> int:
    build = Path(args.build)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((build / "manifest.json").read_text())
    # the corpus programs keep variable-length arrays on the stack
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    resource.setrlimit(resource.RLIMIT_STACK, (hard, hard))
    result = {"device": _device_info(), "manifest": {k: v for k, v in manifest.items() if k not in ("corpus", "bench")},
              "corpus": [], "bench": [], "baselines": None, "deadline_s": args.deadline}
    clock = _Clock(args.deadline)

    def save(phase: str) -> None:
        (out / "gpu_run.json").write_text(json.dumps(result, indent=1) + "\n")
        print(f"{phase} done ({clock.elapsed():.0f} s)", flush=True)

    if args.dry or args.measurements_only:  # the measurements alone (--dry: at small sizes, with or without a GPU)
        result["dry"] = args.dry
        measurements(build, manifest, result, dry=args.dry)
        save("measurements")
        return 0
    if not args.skip_corpus:
        result["corpus"] = corpus(build, manifest, clock, args.corpus_jobs)
        print(f"corpus: {sum(c['ok'] for c in result['corpus'])} of {len(result['corpus'])} runs matched", flush=True)
        save("corpus")
    if not args.skip_baselines:
        peak = _execute([sys.executable, str(build / "peak.py"), "--gemm", str(manifest["gemm_size"])], {},
                        clock.timeout(300))
        try:
            result["baselines"] = json.loads(peak["stdout"]) if peak["status"] == 0 else {"error": peak["stderr"][-2000:]}
        except ValueError:
            result["baselines"] = {"error": (peak["stdout"] + peak["stderr"])[-2000:]}
        print(f"baselines: {result['baselines']}", flush=True)
        save("baselines")
    if not args.skip_measurements:
        measurements(build, manifest, result, dry=False)
        save("measurements")
    benchmarks(build, manifest, result, out, clock, args)
    save("benchmarks")
    if args.profile and clock.left() > 60:
        result["kernel_profiles"] = kernel_profiles(build, manifest, clock)
        save("kernel profiles")
    if not args.skip_fallback and clock.left() > 60:
        result["fallback"] = fallback_check(build, manifest, args)
        print(f"fallback: {result['fallback']}", flush=True)
        save("fallback")
    return 0


def _source(label: str, run: dict) -> dict:
    return {"file": label, "date": run["device"]["date"], "command": run["manifest"]["command"]}


def merge(args) -> int:
    """One run file from several runs of the same suite: the first's benchmarks, replaced or joined by
    those of the later runs (each keeping, as ``before``, the GPU profile of the entry it replaces), the
    corpus runs of all, and each measurement from the last run that has it.  ``sources`` names the runs."""
    runs = [(Path(name).name, json.loads(Path(name).read_text())) for name in args.runs]
    label, result = runs[0]
    result = dict(result)
    result["sources"] = [_source(label, result)]
    for entry in result["bench"]:
        entry["run"] = label
    profiles = [dict(p, run=label) for p in result.get("kernel_profiles") or []]
    for name in args.checks or []:  # runs whose corpus and fallback check only are taken
        run = json.loads(Path(name).read_text())
        result["sources"].append(dict(_source(Path(name).name, run), taken="corpus and fallback"))
        result["corpus"] = run.get("corpus", []) + result.get("corpus", [])
        result["fallback"] = result.get("fallback") or run.get("fallback")
    for label, run in runs[1:]:
        result["sources"].append(_source(label, run))
        names = [b["name"] for b in result["bench"]]
        for entry in run["bench"]:
            entry = dict(entry, run=label)
            if entry["name"] in names:
                old = result["bench"][names.index(entry["name"])]
                entry["before"] = {"run": old["run"], "gpu_profile_ms": old.get("gpu_profile_ms"),
                                   "explain": old.get("explain")}
                result["bench"][names.index(entry["name"])] = entry
            else:
                result["bench"].append(entry)
        result["corpus"] = result.get("corpus", []) + run.get("corpus", [])
        for key in ("transfers", "repeated_calls", "python_api", "baselines", "fallback"):
            if run.get(key):
                result[key] = run[key]
        profiles += [dict(p, run=label) for p in run.get("kernel_profiles") or []]
    result["kernel_profiles"] = profiles
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"{args.out}: {len(result['bench'])} benchmarks, {len(result['corpus'])} corpus runs from {len(runs)} runs")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("build", help="compile everything here")
    b.add_argument("--build", default=str(TOP / "build" / "gpu"))
    b.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    b.add_argument("--only", nargs="*", help="benchmarks to build (and no corpus)")
    b.add_argument("--corpus", nargs="*", help="the corpus kernels to build (default: all, none with --only)")
    b.add_argument("--measurements-only", action="store_true",
                   help="build only the transfers and repeated-calls programs (for run --dry)")
    r = commands.add_parser("run", help="run on the GPU machine")
    r.add_argument("--build", default=str(TOP / "build" / "gpu"))
    r.add_argument("--out", required=True)
    r.add_argument("--timeout", type=float, default=120, help="seconds for one run of a program")
    r.add_argument("--deadline", type=float, default=540,
                   help="seconds for the whole run: each phase and program fits in what is left (the machine's call "
                        "is bounded)")
    r.add_argument("--reserve", type=float, default=60,
                   help="seconds kept for the phases after the benchmarks: a benchmark starts only with more left")
    r.add_argument("--corpus-jobs", type=int, default=8, help="corpus programs run at a time")
    r.add_argument("--seq-jobs", type=int, default=8, help="original programs of the benchmarks run at a time")
    r.add_argument("--profile", action="store_true", help="Nsight Compute's speed of light for a few kernels")
    r.add_argument("--reuse", help="a gpu_run.json of the same programs: take its original and OpenMP runs")
    r.add_argument("--module-loading", default="EAGER", choices=("EAGER", "LAZY"),
                   help="CUDA_MODULE_LOADING of the GPU benchmark runs (EAGER: the kernels' time excludes loading)")
    r.add_argument("--skip-corpus", action="store_true")
    r.add_argument("--skip-baselines", action="store_true")
    r.add_argument("--skip-fallback", action="store_true")
    r.add_argument("--skip-measurements", action="store_true", help="no transfers or repeated calls")
    r.add_argument("--measurements-only", action="store_true",
                   help="only the transfers and repeated calls, at full size (a call of its own on the GPU machine)")
    r.add_argument("--dry", action="store_true",
                   help="only the transfers and repeated calls, at small sizes; runs without a GPU")
    r.add_argument("--spare", type=int, default=900 * 2**20,
                   help="device memory left free by the fallback check (default 900 MiB)")
    p = commands.add_parser("report", help="write bench/results/ from a run's JSON")
    p.add_argument("json")
    p.add_argument("--results", default=str(BENCH / "results"))
    m = commands.add_parser("merge", help="one run file from several runs (later runs' entries replace earlier)")
    m.add_argument("out")
    m.add_argument("runs", nargs="+")
    m.add_argument("--checks", nargs="*", help="runs whose corpus and fallback check only are taken")
    args = parser.parse_args()
    if args.command == "merge":
        return merge(args)
    if args.command == "build":
        return build(args)
    if args.command == "run":
        return run(args)
    from gpu.report import report

    return report(Path(args.json), Path(args.results))


if __name__ == "__main__":
    sys.exit(main())
