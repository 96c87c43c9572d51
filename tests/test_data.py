"""Data between calls (issue 18): device buffers reused across calls, arrays kept on the device by a data
scope (``#pragma polypragma data``), never stale.  The programs of tests/data run for real on PoCL and on
the cuda target's CPU fallback, and print what the original program prints on random inputs: host
writes between calls (through updates, and without a scope), arrays that overlap in memory, 1,000 calls
of a 2-D stencil step, and a failure injected at every checked call of a run (nothing lost: the fallback
still right, or the program stops saying why when the only current copy was on the device)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness import CC, CFLAGS, compile_c, opencl_device, outputs_match, polypragma, run
from polypragma.diagnostics import FatalError
from polypragma.scan import scan_data

DATA = Path(__file__).parent / "data"
NVCC = "nvcc"
# tiny chunks and thresholds, so that the staged copies of small arrays take several chunks
STAGED = {"POLYPRAGMA_COPY": "stage", "POLYPRAGMA_STAGE_MIN": "1", "POLYPRAGMA_STAGE_CHUNK": "1000"}


def _transfers(stderr: str) -> tuple[int, int, int]:
    match = re.search(r"transfers: (\d+) copies in \(\d+ bytes\), (\d+) copies out \(\d+ bytes\), (\d+) device "
                      r"allocations", stderr)
    assert match, stderr
    return tuple(int(g) for g in match.groups())


@pytest.fixture(scope="module")
def opencl_programs(tmp_path_factory):
    """Each program of tests/data, original and through the opencl target."""
    why = opencl_device()
    if why:
        pytest.skip(why)
    out = tmp_path_factory.mktemp("data_opencl")
    built = {}
    for path in sorted(DATA.glob("*.c")):
        status, messages = polypragma(path, out, ["--target", "opencl", "--no-fp-contract"], include=())
        assert status == 0 and "warning" not in messages, messages
        original = out / f"{path.stem}.orig"
        compile_c(path, original, extra=["-Wno-unknown-pragmas"], include=())
        generated = out / f"{path.stem}.gen"
        compile_c(out / f"{path.stem}.polypragma.c", generated, extra=["-Wall", "-Werror"], include=(),
                  libs=["-lOpenCL"])
        built[path.stem] = (original, generated)
    return built


@pytest.mark.parametrize("copies", ["default", "staged"])
def test_timestep_stays_on_the_device(opencl_programs, copies):
    """1,000 calls of a stencil step and a source term in a data scope, the host reading and writing
    the grids through updates every 250 steps: the results of the original program, with the grids
    copied in at the scope's start, after each update device, and out at each update host and the end."""
    original, generated = opencl_programs["timestep"]
    env = {"POLYPRAGMA_DEVICE": "gpu", "POLYPRAGMA_PROFILE": "1", **(STAGED if copies == "staged" else {})}
    for seed in ("1", "7"):
        args = ["24", "1000", seed]
        expected = run(original, args).stdout
        got = run(generated, args, env=env)
        assert got.returncode == 0, got.stderr
        assert outputs_match(expected, got.stdout, 1e-12) is None, (expected, got.stdout)
        # 2 arrays: in at the start and after each of 4 updates; out at each update and at the end
        assert _transfers(got.stderr) == (10, 10, 2), got.stderr
        assert "overlap" not in got.stderr and "failed" not in got.stderr, got.stderr


def test_timestep_without_the_scope(opencl_programs):
    """POLYPRAGMA_DATA=copy: the scope keeps nothing, every call copies in and out (host writes between
    calls are seen), from buffers the pool reuses: the same results."""
    original, generated = opencl_programs["timestep"]
    args = ["17", "300", "3"]
    got = run(generated, args, env={"POLYPRAGMA_DEVICE": "gpu", "POLYPRAGMA_PROFILE": "1", "POLYPRAGMA_DATA": "copy"})
    assert got.returncode == 0, got.stderr
    assert outputs_match(run(original, args).stdout, got.stdout, 1e-12) is None
    copies_in, copies_out, allocations = _transfers(got.stderr)
    assert copies_in >= 600 and copies_out >= 300 and allocations <= 3, got.stderr  # in: both grids; out: one


def test_timestep_on_the_cpu(opencl_programs):
    """POLYPRAGMA_DEVICE=cpu: scopes and updates do nothing, the original loops run."""
    original, generated = opencl_programs["timestep"]
    args = ["20", "120", "5"]
    got = run(generated, args, env={"POLYPRAGMA_DEVICE": "cpu"})
    assert got.returncode == 0 and got.stdout == run(original, args).stdout, got.stderr


def test_overlapping_arrays(opencl_programs):
    """The same array as two arguments, and overlapping pointers, outside and inside a scope: the region
    runs its original loops when one of them is written, said once; disjoint parts of one array run on
    the device."""
    original, generated = opencl_programs["aliasing"]
    for args in (["50", "3"], ["7", "11"]):
        got = run(generated, args, env={"POLYPRAGMA_DEVICE": "gpu", **STAGED})
        assert got.returncode == 0, got.stderr
        assert outputs_match(run(original, args).stdout, got.stdout, 1e-12) is None
        assert got.stderr.count("overlap in memory") == 1, got.stderr


def test_rows_through_pointers_in_a_scope(opencl_programs):
    """Rows through pointers (``double **A``) into an array a data scope keeps: each call of the rows' region
    downloads the kept array (a region before wrote it on the device), copies the 20 rows in and out packed,
    one copy each way, and leaves the array to be uploaded again by the next region; a row overlapping the written argument, and
    rows overlapping each other, send the region to its original loops, said once; results as the original's,
    with and without the scope."""
    original, generated = opencl_programs["rows"]
    for args in (["20", "7", "1"], ["9", "30", "2"], ["1", "1", "3"]):
        for scopes in ({}, {"POLYPRAGMA_DATA": "copy"}):
            got = run(generated, args, env={"POLYPRAGMA_DEVICE": "gpu", "POLYPRAGMA_PROFILE": "1", **scopes})
            assert got.returncode == 0, got.stderr
            assert outputs_match(run(original, args).stdout, got.stdout, 1e-12) is None
            assert got.stderr.count("a row of 'A' and the array 's' overlap in memory") == 1, got.stderr
            # rows of A that overlap each other (A[i] = data + i), where there are two rows of two elements
            overlapping = int(args[0]) > 1 and int(args[1]) > 1
            assert got.stderr.count("rows of 'A' and 'A' overlap in memory") == overlapping, got.stderr
            if args[0] == "20" and not scopes:
                # in: the 20 rows packed in one copy, then the scope's start, then per step the rows and the
                # array; out: the rows and s, per step the array, the rows and s, and the array at the scope's end
                assert _transfers(got.stderr) == (1 + 1 + 4 * 2, 2 + 4 * 3 + 1, 3), got.stderr


def _checked_calls(generated: Path, args: list[str]) -> int:
    """How many checked calls a run makes: the first N that injecting into finds no call to fail."""
    n = 1
    while True:
        got = run(generated, args, env={"POLYPRAGMA_DEVICE": "auto", "POLYPRAGMA_INJECT_FAILURE": str(n)})
        if "injecting a failure" not in got.stderr:
            return n - 1
        n *= 2


@pytest.mark.parametrize("program,args", [("timestep", ["9", "8", "2"]), ("aliasing", ["6", "4"]), ("nested", ["9", "5"]),
                                          ("rows", ["6", "4", "1"])])
def test_failure_at_every_call(opencl_programs, program, args):
    """A failure injected into each checked call of a run in turn (allocations, copies, launches, the
    synchronisation, in regions, scopes and updates): the program prints what the original prints,
    falling back to the original loops; or, where the only current copy of an array was on the device
    (a failed download, or a kernel that had written it), it stops with status 1 and says so."""
    original, generated = opencl_programs[program]
    expected = run(original, args).stdout
    total = _checked_calls(generated, args)
    assert total > 20
    fallbacks = stops = 0
    for n in range(1, total + 1):
        got = run(generated, args, env={"POLYPRAGMA_DEVICE": "auto", "POLYPRAGMA_INJECT_FAILURE": str(n)})
        if "injecting a failure" not in got.stderr:
            continue
        # reported ("... failed"), unless a retry made up for it (an allocation, after emptying the pool)
        if got.returncode == 0:
            assert outputs_match(expected, got.stdout, 1e-12) is None, (n, got.stderr)
            fallbacks += 1
        else:
            assert got.returncode == 1 and "failed" in got.stderr, got.stderr
            assert ("were lost" in got.stderr or "cannot fall back" in got.stderr
                    or "partly overwritten" in got.stderr), got.stderr
            stops += 1
    assert fallbacks > stops, (fallbacks, stops)


def _cuda_build(tmp_path: Path, program: str) -> Path:
    path = DATA / f"{program}.c"
    status, messages = polypragma(path, tmp_path, ["--target", "cuda"], include=())
    assert status == 0 and "warning" not in messages, messages
    unit = tmp_path / f"{program}.polypragma.cu"
    compiled = subprocess.run([NVCC, "-arch=sm_90", "-O2", "-c", str(unit), "-o", str(tmp_path / "unit.o")],
                              capture_output=True, text=True)
    assert compiled.returncode == 0 and "warning" not in compiled.stderr.lower(), compiled.stderr
    main = subprocess.run([CC, *CFLAGS, "-Wall", "-Werror", "-c", str(tmp_path / f"{program}.polypragma.c"), "-o",
                           str(tmp_path / "main.o")], capture_output=True, text=True)
    assert main.returncode == 0, main.stderr
    exe = tmp_path / "prog"
    linked = subprocess.run([NVCC, "-arch=sm_90", str(tmp_path / "main.o"), str(tmp_path / "unit.o"), "-o", str(exe)],
                            capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr
    compile_c(path, tmp_path / "original", extra=["-Wno-unknown-pragmas"], include=())
    return exe


@pytest.mark.skipif(shutil.which(NVCC) is None, reason="nvcc is needed for the cuda target")
@pytest.mark.parametrize("program,args", [("timestep", ["30", "1000", "4"]), ("aliasing", ["40", "9"]),
                                          ("rows", ["20", "7", "1"])])
def test_cuda_compiles_and_falls_back(tmp_path, program, args):
    """The cuda target: the .cu (data layer included) compiles with nvcc without warnings and the C file
    with -Wall -Werror; here, without a GPU, the program takes the fallback and prints what the
    original prints."""
    exe = _cuda_build(tmp_path, program)
    got = run(exe, args)
    assert got.returncode == 0, got.stderr
    assert got.stdout == run(tmp_path / "original", args).stdout


def _cuda_device() -> bool:
    return shutil.which(NVCC) is not None and shutil.which("nvidia-smi") is not None and \
        "GPU" in subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda_device(), reason="no CUDA device")
@pytest.mark.parametrize("copies", [{}, STAGED, {"POLYPRAGMA_COPY": "register", "POLYPRAGMA_STAGE_MIN": "1"},
                                    {"POLYPRAGMA_COPY": "pageable"}, {"POLYPRAGMA_COPY": "direct"},
                                    {"POLYPRAGMA_DATA": "copy"}], ids=["auto", "stage", "register", "pageable",
                                                                       "direct", "no-scope"])
@pytest.mark.parametrize("program,args", [("timestep", ["30", "1000", "4"]), ("aliasing", ["40", "9"]),
                                          ("rows", ["20", "7", "1"])])
def test_cuda_on_the_device(tmp_path, program, args, copies):
    """On a GPU: every copy method, with and without the scope, gives the original's results."""
    exe = _cuda_build(tmp_path, program)
    got = run(exe, args, env={"POLYPRAGMA_DEVICE": "gpu", **copies})
    assert got.returncode == 0, got.stderr
    assert outputs_match(run(tmp_path / "original", args).stdout, got.stdout, 1e-9) is None


def test_c_target_ignores_the_directives(tmp_path):
    path = DATA / "timestep.c"
    status, messages = polypragma(path, tmp_path, ["--target", "c"], include=())
    assert status == 0, messages
    text = (tmp_path / "timestep.polypragma.c").read_text()
    assert "/* polypragma data copy(a[0:n * n]) copy(b[0:n * n]): no device in this target */" in text
    compile_c(tmp_path / "timestep.polypragma.c", tmp_path / "gen", include=())
    compile_c(path, tmp_path / "orig", extra=["-Wno-unknown-pragmas"], include=())
    args = ["15", "40", "2"]
    assert run(tmp_path / "gen", args).stdout == run(tmp_path / "orig", args).stdout


def test_host_use_in_a_scope_is_reported(tmp_path):
    """Host code in a scope that names a kept array outside updates (here a region left as written, which
    is host code) gets a warning naming the line and the remedy."""
    source = tmp_path / "stale.c"
    source.write_text(
        "void f(int n, double *a)\n{\n#pragma scop\n  for (int i = 0; i < n; i++)\n    a[i] = 2 * a[i];\n"
        "#pragma endscop\n}\n"
        "void g(int n, double *a)\n{\n#pragma polypragma data copy(a[0:n])\n  {\n    f(n, a);\n    a[0] = 1;\n"
        "    f(n, a);\n  }\n}\n")
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl"], include=())
    assert status == 0
    assert ("stale.c:13:5: warning: host code uses 'a', which the data scope at line 10 keeps on the device: put it "
            "between '#pragma polypragma update host(a)' and '#pragma polypragma update device(a)'") in messages, messages


@pytest.mark.parametrize("text,message", [
    ("#pragma polypragma data copy(a)\nint x;\n", "must stand before a compound statement"),
    ("#pragma polypragma data copy(a)\n{\n  return;\n}\n", "'return' inside a data scope is not supported"),
    ("#pragma polypragma data copy(a) into(b)\n{\n}\n", "expects clauses copy(...), copyin(...)"),
    ("#pragma polypragma update host(a[1])\n", "a section is written 'name[start:count]'"),
    ("#pragma polypragma data copy(a)\n{\n", "never closed"),
])
def test_malformed_directives(text, message):
    with pytest.raises(FatalError, match=re.escape(message)):
        scan_data(text, "x.c")


def test_directives_read():
    directives = scan_data("#pragma polypragma data copy(A, B[0:n * (m + 1)]) copyout(C)\n{ /* } */\n  f(\"}\");\n}\n"
                           "#pragma polypragma update host(A) device(B[i:f(a, b)])\n", "x.c")
    scope, update = directives
    assert [(c.kind, c.text) for c in scope.clauses] == [("copy", "A"), ("copy", "B[0:n * (m + 1)]"), ("copyout", "C")]
    assert (scope.open_line, scope.close_line, scope.close_column) == (2, 4, 1)
    assert [(c.kind, c.name, c.start, c.count) for c in update.clauses] == [("host", "A", None, None),
                                                                              ("device", "B", "i", "f(a, b)")]


@pytest.mark.parametrize("main", ["main", "scope_only"])
def test_scope_around_another_files_regions(tmp_path, main):
    """A scope in main.c keeps a and b on the device for main.c's region; relax.c's region (another
    generated file, its own OpenCL context) finds them in the process's table, brings them to the host
    first and leaves what it wrote to be uploaded again: the original's results.  scope_only.c has a
    scope and no region of its own."""
    why = opencl_device()
    if why:
        pytest.skip(why)
    sources = [DATA / "two_files" / f"{main}.c", DATA / "two_files" / "relax.c"]
    objects = []
    for source in sources:
        status, messages = polypragma(source, tmp_path, ["--target", "opencl", "--no-fp-contract"], include=())
        assert status == 0 and "warning" not in messages, messages
        obj = tmp_path / f"{source.stem}.o"
        compile_c(tmp_path / f"{source.stem}.polypragma.c", obj, extra=["-c", "-Wall", "-Werror"], include=())
        objects.append(str(obj))
    exe = tmp_path / "gen"
    subprocess.run([CC, *objects, "-o", str(exe), "-lOpenCL"], check=True)
    original = tmp_path / "orig"
    subprocess.run([CC, *CFLAGS, "-Wno-unknown-pragmas", *map(str, sources), "-o", str(original)], check=True)
    for args in (["100", "50", "1"], ["33", "7", "8"]):
        got = run(exe, args, env={"POLYPRAGMA_DEVICE": "gpu", "POLYPRAGMA_PROFILE": "1"})
        assert got.returncode == 0, got.stderr
        assert outputs_match(run(original, args).stdout, got.stdout, 1e-12) is None


@pytest.mark.skipif(shutil.which(NVCC) is None, reason="nvcc is needed for the cuda target")
def test_cuda_scope_without_a_region(tmp_path):
    """The cuda target of a file with a data scope and no region: its .cu defines the scope's entry
    points (and compiles without warnings); linked with relax.c's, the program falls back here."""
    objects = []
    for source in (DATA / "two_files" / "scope_only.c", DATA / "two_files" / "relax.c"):
        status, messages = polypragma(source, tmp_path, ["--target", "cuda"], include=())
        assert status == 0 and "warning" not in messages, messages
        unit = subprocess.run([NVCC, "-arch=sm_90", "-c", str(tmp_path / f"{source.stem}.polypragma.cu"), "-o",
                               str(tmp_path / f"{source.stem}.cu.o")], capture_output=True, text=True)
        assert unit.returncode == 0 and "warning" not in unit.stderr.lower(), unit.stderr
        compile_c(tmp_path / f"{source.stem}.polypragma.c", tmp_path / f"{source.stem}.o", extra=["-c", "-Wall", "-Werror"],
                  include=())
        objects += [str(tmp_path / f"{source.stem}.cu.o"), str(tmp_path / f"{source.stem}.o")]
    subprocess.run([NVCC, "-arch=sm_90", *objects, "-o", str(tmp_path / "gen")], check=True)
    sources = [str(DATA / "two_files" / n) for n in ("scope_only.c", "relax.c")]
    subprocess.run([CC, *CFLAGS, "-Wno-unknown-pragmas", *sources, "-o", str(tmp_path / "orig")], check=True)
    assert run(tmp_path / "gen", ["40", "9", "3"]).stdout == run(tmp_path / "orig", ["40", "9", "3"]).stdout


def test_nested_scopes(opencl_programs):
    """An inner scope naming part of a kept array holds it as it is; one straddling a kept array's end is
    not kept (said, and its regions copy); copyout and create arrays are uploaded when a region first reads
    them; failures injected anywhere still give the original's results or a stop that says why."""
    original, generated = opencl_programs["nested"]
    for args in (["64", "2"], ["9", "5"]):
        got = run(generated, args, env={"POLYPRAGMA_DEVICE": "gpu", **STAGED})
        assert got.returncode == 0, got.stderr
        assert outputs_match(run(original, args).stdout, got.stdout, 1e-12) is None
        assert "'b[n / 2:n]' is not kept on the device: it overlaps an array another data scope keeps" in got.stderr


def test_a_pointer_needs_its_section(tmp_path):
    """copy(p) of a pointer would keep sizeof(p) bytes: the generated file does not compile, and says why."""
    source = tmp_path / "p.c"
    source.write_text("void f(int n, double *p)\n{\n#pragma polypragma data copy(p)\n  {\n  }\n}\n")
    status, messages = polypragma(source, tmp_path / "out", ["--target", "opencl"], include=())
    assert status == 0, messages
    built = subprocess.run([CC, *CFLAGS, "-c", str(tmp_path / "out" / "p.polypragma.c"), "-o", str(tmp_path / "p.o")],
                           capture_output=True, text=True)
    assert built.returncode != 0
    assert "polypragma: p is a pointer: give its elements in the data directive, as p[start:count]" in built.stderr


COPIER_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <dirent.h>
%(runtime)s

static pthread_t main_thread;
static volatile sig_atomic_t on_main = -1;
static void handler(int signal) { (void)signal; on_main = pthread_equal(pthread_self(), main_thread); }

static int threads_running(void)
{
  int count = 0;
  DIR *tasks = opendir("/proc/self/task");
  for (struct dirent *entry; tasks != NULL && (entry = readdir(tasks)) != NULL;)
    count += entry->d_name[0] != '.';
  if (tasks != NULL)
    closedir(tasks);
  return count;
}

/* copies of every size around the thresholds, from and to unaligned addresses, checked byte for byte
   with guards on both sides */
static int copies(unsigned seed)
{
  /* (3M + 1: its share of 1 to 16 threads, rounded down, is whole cache lines, and a byte is left over) */
  const size_t sizes[] = {0, 1, 63, 65, POLYPRAGMA_COPY_SPLIT - 1, POLYPRAGMA_COPY_SPLIT, POLYPRAGMA_COPY_SPLIT + 13,
                          ((size_t)3 << 20) + 1, (size_t)8 << 20, ((size_t)8 << 20) + 4095, (size_t)37 << 20};
  const size_t largest = (size_t)37 << 20;
  char *from = malloc(largest + 64), *to = malloc(largest + 64);
  srand(seed);
  for (size_t i = 0; i < largest + 64; ++i)
    from[i] = (char)rand();
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
    for (size_t shift = 0; shift < 4; shift += 3) {
      memset(to, 0x5a, largest + 64);
      polypragma_memcpy(to + 16 + shift, from + 1 + shift, sizes[s]);
      if (memcmp(to + 16 + shift, from + 1 + shift, sizes[s]) != 0)
        return printf("size %%zu shift %%zu: wrong bytes\n", sizes[s], shift), 1;
      for (size_t i = 0; i < 16 + shift; ++i)
        if (to[i] != 0x5a)
          return printf("size %%zu: written before the copy\n", sizes[s]), 1;
      for (size_t i = 16 + shift + sizes[s]; i < largest + 64; ++i)
        if (to[i] != 0x5a)
          return printf("size %%zu: written past the copy\n", sizes[s]), 1;
    }
  free(from);
  free(to);
  return 0;
}

int main(void)
{
  main_thread = pthread_self();
  signal(SIGUSR1, handler);
  if (copies(1) != 0)
    return 1;
  printf("threads %%d, running %%d\n", polypragma_copiers.count, threads_running());
  kill(getpid(), SIGUSR1);
  printf("signal on the main thread %%d\n", (int)on_main);
  pid_t child = fork();
  if (child == 0)  /* the parent's helpers are not in the child: it starts its own */
    _exit(copies(2) != 0 || threads_running() != polypragma_copiers.count ? 3 : 0);
  int status = 0;
  waitpid(child, &status, 0);
  printf("child %%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return copies(3);
}
"""


@pytest.mark.parametrize("threads,expected", [("1", 1), ("3", 3), ("8", 8), (None, None)])
def test_staged_copies_split_between_threads(tmp_path, threads, expected):
    """The CUDA target's staged copies move each chunk between pageable and pinned memory by several
    threads (parallel_copy.py): every byte right at every size and alignment, as many threads as asked
    (the processors online, at most 16, by default), signals left to the program's threads, and a child
    made by fork copying with helpers of its own."""
    import os

    from polypragma.codegen import parallel_copy

    source = tmp_path / "copies.c"
    source.write_text(COPIER_MAIN % {"runtime": "\n".join(parallel_copy.INCLUDES) + parallel_copy.SOURCE})
    exe = tmp_path / "copies"
    subprocess.run([CC, "-O2", "-Wall", "-Werror", "-pthread", str(source), "-o", str(exe)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "POLYPRAGMA_COPY_THREADS"}
    if threads is not None:
        env["POLYPRAGMA_COPY_THREADS"] = threads
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = expected or max(1, min(16, os.cpu_count() or 1))
    assert f"threads {expected}, running {expected}\n" in result.stdout
    assert "signal on the main thread 1\n" in result.stdout
    assert "child 0\n" in result.stdout
