"""Render a GPU run (bench/run_gpu.py run) as Markdown tables and a bar chart of speedups.

Writes, under bench/results/: gpu_run.json (the run itself), gpu_corpus.md (correctness of every
corpus program on the GPU), gpu_bench.md (times, rates and speedups), gpu_measurements.md (copies,
repeated calls, the Python API) and gpu_speedup.png.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def _ms(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def _ratio(a: float | None, b: float | None) -> str:
    return "—" if not a or not b else f"{a / b:,.1f}×"


def _status(entry: dict, label: str) -> str:
    if entry.get(f"{label}_error"):
        return "failed"
    return "ok" if entry.get(f"{label}_difference") is None else "differs"


def _header(run: dict) -> list[str]:
    device, manifest = run["device"], run["manifest"]
    sources = [f"`{x['file']}` ({x['date']}, built by `{x['command']}`{'; its ' + x['taken'] if x.get('taken') else ''})"
               for x in run.get("sources", [])]
    merged = ([f"Merged from {len(sources)} runs of the same suite by `bench/run_gpu.py merge`, later runs' "
               f"entries replacing earlier ones (*was*: the kernels' time of the entry replaced): "
               f"{'; '.join(sources)}."] if sources else [])
    return merged + [f"Device: **{device['gpu']}**; host CPU: {device['cpu']}, {device['cpu_cores']} cores.",
            f"Run on {device['date']}. Built on {manifest['built']} with polypragma {manifest['polypragma']}, "
            f"{manifest['nvcc']}, {manifest['gcc']}.",
            f"Commands: `{manifest['command']}` (here), `python3 bench/run_gpu.py run --out DIR` (on the GPU "
            "machine), `python bench/run_gpu.py report DIR/gpu_run.json` (here)."]


def corpus_markdown(run: dict) -> list[str]:
    rows = run["corpus"]
    lines = ["# The corpus on the GPU", "", *_header(run), "",
             "Every corpus kernel (tests/kernels) through `--target cuda --no-fp-contract`, compiled with "
             "`nvcc -arch=sm_90 -fmad=false`, run with `POLYPRAGMA_DEVICE=gpu` on every RUN configuration, its "
             "output compared with the original program's (relative tolerance 1e-9, 2e-5 for float kernels).", ""]
    if not rows:
        return lines + ["No corpus run in this file."]
    kernels = sorted({r["kernel"] for r in rows})
    lines += ["| variant | runs | matched |", "| --- | ---: | ---: |"]
    for variant in sorted({r["variant"] for r in rows}):
        mine = [r for r in rows if r["variant"] == variant]
        lines.append(f"| {variant} | {len(mine)} | {sum(r['ok'] for r in mine)} |")
    fallback = run.get("fallback")
    if fallback:
        lines += ["", "A device failure in the middle of a region (another process holds all but a little of the device "
                  "memory, so the gemm program's first allocations succeed and the last fails):", ""]
        if "skipped" in fallback:
            lines.append(f"* not run: {fallback['skipped']}")
        else:
            held = int(fallback["held"].split()[-1])
            lines += [f"* {held / 2**30:.1f} GiB held by the other process;",
                      f"* `POLYPRAGMA_DEVICE` unset: exit status {fallback['auto_status']}, result "
                      f"{'equal to' if fallback['auto_result_matches'] else 'DIFFERENT from'} the original's, "
                      f"stderr: `{' / '.join(fallback['auto_stderr'].strip().splitlines())}`;",
                      f"* `POLYPRAGMA_DEVICE=gpu`: exit status {fallback['gpu_status']}, stderr: "
                      f"`{' / '.join(fallback['gpu_stderr'].strip().splitlines())}`;",
                      f"* verdict: **{'as specified' if fallback['ok'] else 'NOT as specified'}**."]
    failed = [r for r in rows if not r["ok"]]
    lines += ["", f"{len(kernels)} kernels, {len(rows)} runs, **{len(rows) - len(failed)} matched**, "
              f"{len(failed)} did not.", ""]
    if failed:
        lines += ["| kernel | variant | defines | arguments | difference |", "| --- | --- | --- | --- | --- |"]
        for r in failed:
            difference = (r["difference"] or "").replace("|", "\\|").replace("\n", " ")[:200]
            lines.append(f"| {r['kernel']} | {r['variant']} | {' '.join(r['defines'])} | {' '.join(r['args'])} | "
                         f"{difference} |")
    return lines


def bench_markdown(run: dict) -> list[str]:
    base = run.get("baselines") or {}
    peak_flops = base.get("dgemm_peak_gflops")
    peak_bw = base.get("copy_gbs")
    lines = ["# polypragma's CUDA against the CPU", "", *_header(run), "",
             "Region times in milliseconds, best of the runs (original: one run, "
             f"{run.get('seq_concurrency', 1)} originals at a time; OpenMP: two, one where a run takes 5 s; GPU: "
             "up to three, while they take less than 5 s together). "
             "*original*: the program as written, `gcc -O3 -march=x86-64-v3`, one core. *OpenMP*: "
             "`polypragma --target c --openmp`, same flags plus `-fopenmp`, all cores. *GPU*: `polypragma "
             "--target cuda`, `nvcc -O3 -arch=sm_90`; *region* is the wall time of the call (allocation, "
             "transfers and kernels), *moved+run* the CUDA-event time of copy-in, kernels and copy-out, *kernels* "
             "the kernels alone (POLYPRAGMA_PROFILE=1). GFLOP/s and GB/s are for the kernels alone; GB/s counts "
             "the compulsory traffic (each array read once and written once, per time step), so it is a lower "
             "bound on the traffic.", ""]
    loading = {b.get("module_loading") for b in run["bench"]} - {None}
    if loading:
        lines += [f"GPU runs with `CUDA_MODULE_LOADING={'/'.join(sorted(loading))}`"
                  + (" (modules loaded with the context, so a region's kernel time holds no module loading)."
                     if loading == {"EAGER"} else "."), ""]
    if run.get("host_runs_from"):
        lines += [f"The original and OpenMP times and outputs are those of the run of {run['host_runs_from']}, on the "
                  "same programs; only the GPU builds ran again.", ""]
    if peak_flops or peak_bw:
        lines.append(f"Measured peaks in this run: device-to-device copy **{peak_bw:,.0f} GB/s**, cuBLAS DGEMM "
                     f"(8192³) **{peak_flops:,.0f} GFLOP/s**.")
        gemm = base.get("cublas_gemm")
        if gemm:
            ours = next((b for b in run["bench"] if b["name"] == "gemm"), None)
            kernel = (ours or {}).get("gpu_profile_ms", {}).get("kernels")
            lines.append(f"cuBLAS ({base.get('cublas_call', 'cupy')}) on the gemm benchmark's size (n = {gemm['n']}): kernel **{gemm['kernel_ms']:.2f} "
                         f"ms** ({gemm['gflops']:,.0f} GFLOP/s), with transfers {gemm['total_ms']:.2f} ms"
                         + (f"; polypragma's kernel: {kernel:.2f} ms ({gemm['kernel_ms'] and kernel / gemm['kernel_ms']:.1f}× "
                            "cuBLAS's time)." if kernel else "."))
        lines.append("")
    elif base.get("error"):
        lines += [f"The baselines failed: `{base['error'][-300:]}`", ""]
    lines += ["The GPU region's wall time includes the creation of the CUDA context by the process's first "
              "allocation (about 100 ms, once per process); *moved+run* is what each further call of the region "
              "costs, and the speedups are given for both.", "",
              "| kernel | size | original | OpenMP | GPU region | moved+run | kernels | GFLOP/s | % FP64 peak | GB/s | "
              "% copy bw | vs original (region) | vs original (moved+run) | vs OpenMP (moved+run) | result |",
              "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for b in run["bench"]:
        profile = b.get("gpu_profile_ms") or {}
        kernels = profile.get("kernels")
        gflops = b["flops"] / kernels / 1e6 if kernels else None
        gbs = b["bytes"] / kernels / 1e6 if kernels else None
        result = f"OpenMP {_status(b, 'omp')}, GPU {_status(b, 'gpu')}"
        lines.append(
            f"| {b['name']} | {b['size']} | {_ms(b['seq_ms'])} | {_ms(b['omp_ms'])} | {_ms(b['gpu_ms'])} | "
            f"{_ms(profile.get('total'))} | {_ms(kernels, 3)}{_before(b)} | {'—' if gflops is None else f'{gflops:,.1f}'} | "
            f"{'—' if not (gflops and peak_flops) else f'{100 * gflops / peak_flops:.1f}'} | "
            f"{'—' if gbs is None else f'{gbs:,.0f}'} | "
            f"{'—' if not (gbs and peak_bw) else f'{100 * gbs / peak_bw:.1f}'} | "
            f"{_ratio(b['seq_ms'], b['gpu_ms'])} | {_ratio(b['seq_ms'], profile.get('total'))} | "
            f"{_ratio(b['omp_ms'], profile.get('total'))} | {result} |")
    problems = [(b["name"], label, b.get(f"{label}_error") or b.get(f"{label}_difference"))
                for b in run["bench"] for label in ("omp", "gpu")
                if b.get(f"{label}_error") or b.get(f"{label}_difference")]
    if problems:
        lines += ["", "Problems:", ""]
        lines += [f"* {name} ({label}): `{str(what).strip()[:300]}`" for name, label, what in problems]
    lines += _profile_lines(run.get("kernel_profiles") or [])
    lines += ["", "How each region was mapped (`polypragma --explain`):", ""]
    for b in run["bench"]:
        lines += [f"<details><summary>{b['name']}</summary>", "", "```", b.get("explain", ""), "```", "", "</details>"]
    return lines


def measurements_markdown(run: dict) -> list[str]:
    """Issue 18's copies and repeated calls, issue 19's Python API calls."""
    lines = []
    moved = run.get("transfers") or {}
    if moved.get("by_method"):
        lines += ["## Copies of a 1 GiB array", "",
                  "The generated code's copies (`bench/gpu/transfers.c`, the second call's profile, its buffer from the "
                  "pool) under each `POLYPRAGMA_COPY` method, against the link measured directly "
                  "(`bench/gpu/pinned.cu`: one `cudaMemcpy` from pinned and from pageable memory).", "",
                  "| method | host to device GB/s | device to host GB/s | first call ms | second call ms |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for method, entry in moved["by_method"].items():
            lines.append(f"| {method} | {_ms(entry.get('h2d_gbs'))} | {_ms(entry.get('d2h_gbs'))} | "
                         f"{_ms(entry.get('first_call_ms'))} | {_ms(entry.get('second_call_ms'))} |")
        direct = moved.get("direct") or {}
        lines += [f"| *pinned, directly* | {_ms(direct.get('pinned_h2d_gbs'))} | {_ms(direct.get('pinned_d2h_gbs'))} | | |",
                  f"| *pageable, directly* | {_ms(direct.get('pageable_h2d_gbs'))} | {_ms(direct.get('pageable_d2h_gbs'))} "
                  "| | |", "",
                  *_sweep_lines(moved.get("stage_sweep") or []),
                  f"The default method reaches {_percent(moved.get('h2d_of_pinned'))} of the pinned bandwidth to the "
                  f"device and {_percent(moved.get('d2h_of_pinned'))} from it. The device reports pageable memory "
                  f"access {direct.get('pageable_memory_access')} and concurrent managed access "
                  f"{direct.get('concurrent_managed_access')}.", ""]
    calls = run.get("repeated_calls") or []
    if calls:
        lines += ["## A region called many times", "",
                  "`bench/gpu/timestep.c`: a 2-D Jacobi step (a function holding a region) called from the host, "
                  "inside a data scope, and with `POLYPRAGMA_DATA=copy` (copies at every call). *per call*: the "
                  "program's clock over the calls after the first; *kernels*: the median kernel time of a profiled "
                  "run's calls.", "",
                  "| run | n | calls | first ms | per call ms | kernels ms | per call / kernels | transfers |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for c in calls:
            lines.append(f"| {c['name']} | {c.get('n', '—')} | {c['calls']} | {_ms(c.get('first_ms'), 3)} | "
                         f"{_ms(c.get('per_call_ms'), 3)} | {_ms(c.get('kernels_ms'), 3)} | "
                         f"{c.get('per_call_over_kernels') or c.get('error', '—')} | "
                         f"{(c.get('transfers') or '—').removeprefix('transfers: ')} |")
        lines.append("")
    api = run.get("python_api") or []
    if api:
        lines += ["## The Python API on device arrays", "",
                  "`examples/python_api/kernels.c` built for cuda by `polypragma.compile` (here), loaded there without "
                  "the compiler; its `jacobi_2d` (10 time steps of a 4096 x 4096 grid) called 20 times on each kind of "
                  "array (`bench/gpu/api_calls.py`). *copies*: the copy time of a call's profile.", "",
                  "| array | first call ms | per call ms | kernels ms | copies ms | per call / kernels | largest "
                  "difference from NumPy |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for a in api:
            if a.get("error"):
                lines.append(f"| {a['array']} | {a['error']} | | | | | |")
                continue
            lines.append(f"| {a['array']} | {_ms(a.get('first_ms'), 3)} | {_ms(a.get('per_call_ms'), 3)} | "
                         f"{_ms(a.get('kernels_ms'), 3)} | {_ms(a.get('copy_ms'), 3)} | "
                         f"{a.get('per_call_over_kernels', '—')} | {a.get('max_difference')} |")
        lines.append("")
    return lines


def _sweep_lines(sweep: list[dict]) -> list[str]:
    if not sweep:
        return []
    lines = ["Staged copies (`POLYPRAGMA_COPY=stage`) by `POLYPRAGMA_COPY_THREADS` threads in chunks of "
             "`POLYPRAGMA_STAGE_CHUNK` bytes:", "", "| threads | chunk | host to device GB/s | device to host GB/s |",
             "| ---: | ---: | ---: | ---: |"]
    lines += [f"| {e['threads']} | {e['chunk']} | {_ms(e.get('h2d_gbs'))} | {_ms(e.get('d2h_gbs'))} |" for e in sweep]
    return lines + [""]


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def _profile_lines(profiles: list[dict]) -> list[str]:
    """Nsight Compute's speed of light per kernel launch (run_gpu.py run --profile): which bound each hits."""
    rows = [(p, m) for p in profiles for m in p.get("metrics") or [] if "kernel" in m]
    if not rows:
        return []
    keys = ("Duration", "DRAM Throughput", "Compute (SM) Throughput", "L1/TEX Cache Throughput",
            "Achieved Occupancy", "Theoretical Occupancy", "Registers Per Thread", "Grid Size", "Block Size")
    lines = ["", "Nsight Compute (`ncu --section SpeedOfLight --section Occupancy --section LaunchStats`, the first "
             "launches of each program, at the sizes given): a kernel near the DRAM peak is memory-bound, one far "
             "below both peaks with little occupancy lacks parallelism or is latency-bound.", "",
             "| program (arguments) | kernel | " + " | ".join(k.replace("Throughput", "%").replace(
                 "Achieved Occupancy", "occupancy").replace("Theoretical Occupancy", "theoretical")
                 .replace("Registers Per Thread", "registers") for k in keys) + " |",
             "| --- | --- |" + " ---: |" * len(keys)]
    seen = set()
    for p, m in rows:
        name = m["kernel"].split("(")[0].removeprefix("polypragma_")
        if (p["name"], name, p.get("run")) in seen:  # the same kernel launched again (a time loop)
            continue
        seen.add((p["name"], name, p.get("run")))
        values = [str(m.get(k, "—")).replace(" register/thread", "").replace(" %", "") for k in keys]
        run = f", `{p['run']}`" if p.get("run") else ""
        lines.append(f"| {p['name']} ({' '.join(p['args'])}{run}) | {name} | " + " | ".join(values) + " |")
    return lines


def _before(entry: dict) -> str:
    """The kernels' time of the entry this one replaced in a merged run (run_gpu.py merge)."""
    before = ((entry.get("before") or {}).get("gpu_profile_ms") or {}).get("kernels")
    return "" if before is None else f" (was {before:,.3f})"


def chart(run: dict, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = [b for b in run["bench"] if b.get("seq_ms")]
    names = [b["name"] for b in rows]
    series = {
        "OpenMP (all cores)": [b["seq_ms"] / b["omp_ms"] if b.get("omp_ms") else 0 for b in rows],
        "GPU, transfers and kernels": [b["seq_ms"] / b["gpu_profile_ms"]["total"] if (b.get("gpu_profile_ms") or {}).get(
            "total") else 0 for b in rows],
        "GPU, kernels alone": [b["seq_ms"] / b["gpu_profile_ms"]["kernels"] if (b.get("gpu_profile_ms") or {}).get(
            "kernels") else 0 for b in rows],
    }
    figure, axes = plt.subplots(figsize=(12, 5.5))
    width = 0.27
    for k, (label, values) in enumerate(series.items()):
        axes.bar([x + (k - 1) * width for x in range(len(rows))], values, width, label=label)
    axes.set_yscale("log")
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_xticks(range(len(rows)))
    axes.set_xticklabels(names, rotation=40, ha="right")
    axes.set_ylabel("speedup over the original program (log scale)")
    axes.set_title(f"polypragma on {run['device']['gpu'].split(',')[0]}, {run['device']['date'][:10]}")
    axes.legend()
    axes.grid(axis="y", which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


def report(source: Path, results: Path) -> int:
    run = json.loads(source.read_text())
    results.mkdir(parents=True, exist_ok=True)
    if source.resolve() != (results / "gpu_run.json").resolve():
        shutil.copy(source, results / "gpu_run.json")
    (results / "gpu_corpus.md").write_text("\n".join(corpus_markdown(run)) + "\n")
    (results / "gpu_bench.md").write_text("\n".join(bench_markdown(run)) + "\n")
    (results / "gpu_measurements.md").write_text("\n".join(["# Data movement and the Python API on the GPU", "",
                                                             *_header(run), "", *measurements_markdown(run)]) + "\n")
    drawn = chart(run, results / "gpu_speedup.png")
    print(f"wrote {results}/gpu_corpus.md, gpu_bench.md, gpu_measurements.md" + (", gpu_speedup.png" if drawn else
                                                            " (no chart: matplotlib is not installed)"))
    return 0
