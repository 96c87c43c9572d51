"""The Python API (polypragma.compile): real numbers from compiled modules, against NumPy.

The c backend (OpenMP) and the opencl backend on PoCL run here; the cuda backend is built with nvcc
and, without a GPU, takes its CPU fallback (and fails loudly under POLYPRAGMA_DEVICE=gpu).  Sizes are
small: PoCL compiles a module's OpenCL program when it first runs, once per module, so each backend
compiles one source holding both the matrix product and the stencil.
"""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import polypragma
from polypragma.api import backends
from polypragma.buildtools.toolchain import find_nvcc

from harness import opencl_device

SOURCE = r"""
#include <math.h>
#define SCALE 0.2

void gemm(int ni, int nj, int nk, double alpha, double beta, double C[ni][nj], const double A[ni][nk],
          const double B[nk][nj])
{
#pragma scop
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}

void jacobi_2d(int tsteps, int n, double A[n][n], double B[n][n])
{
#pragma scop
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = SCALE * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = SCALE * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
  }
#pragma endscop
}

float total(int n, const float x[n])
{
  float s = 0.0f;
#pragma scop
  for (int i = 0; i < n; i++)
    s += x[i];
#pragma endscop
  return s;
}
"""


def jacobi_2d(tsteps, A, B):
    for _ in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache")
    polypragma.set_cache_dir(directory)
    yield directory
    polypragma.set_cache_dir(None)


def needs(backend):
    if backend == "opencl" and opencl_device() is not None:
        pytest.skip(opencl_device())
    if backend == "cuda" and find_nvcc() is None:
        pytest.skip("no nvcc")


_modules = {}


def module(backend):
    needs(backend)
    if backend not in _modules:
        _modules[backend] = polypragma.compile(SOURCE, target=backend, tile_size=(8, 8), block_size=(4, 8),
                                               cuda_architectures=["90"])
    return _modules[backend]


@pytest.mark.parametrize("backend", ["c", "opencl"])
def test_matrix_product_and_stencil_match_numpy(backend):
    mod = module(backend)
    assert mod.backend == backend
    rng = np.random.default_rng(19)
    A, B, C = rng.random((13, 7)), rng.random((7, 11)), rng.random((13, 11))
    expected = 1.5 * A @ B + 0.5 * C
    mod.gemm(13, 11, 7, 1.5, 0.5, C, A, B)
    np.testing.assert_allclose(C, expected, rtol=1e-12)

    A, B = rng.random((20, 20)), np.zeros((20, 20))
    A0, B0 = A.copy(), B.copy()
    mod.jacobi_2d(5, 20, A, B)
    jacobi_2d(5, A0, B0)
    np.testing.assert_allclose(A, A0, rtol=1e-12)
    np.testing.assert_allclose(B, B0, rtol=1e-12)

    x = rng.random(100, dtype=np.float32)
    assert mod.total(100, x) == pytest.approx(float(x.sum()), rel=1e-5)


def _opencl_product(**options):
    """SOURCE compiled for opencl with tiles of 8x8 over blocks of 4x8 and ``options``, with its generated C."""
    needs("opencl")
    mod = polypragma.compile(SOURCE, target="opencl", tile_size=(8, 8), block_size=(4, 8), **options)
    generated = [f for f in os.listdir(os.path.dirname(mod.library)) if f.endswith(".polypragma.c")]
    assert generated
    return mod, open(os.path.join(os.path.dirname(mod.library), generated[0])).read()


def _product_matches_numpy(mod, seed: int, shapes) -> None:
    """``mod.gemm`` against NumPy on random matrices of each (ni, nj, nk) of ``shapes``."""
    rng = np.random.default_rng(seed)
    for ni, nj, nk in shapes:
        A, B, C = rng.random((ni, nk)), rng.random((nk, nj)), rng.random((ni, nj))
        expected = 1.5 * A @ B + 0.5 * C
        mod.gemm(ni, nj, nk, 1.5, 0.5, C, A, B)
        np.testing.assert_allclose(C, expected, rtol=1e-12)


def test_vector_copies_reach_the_compiler():
    # vector_copies=True, as --vector-copies: the product's B tile (8x8 elements for 32 threads) is copied
    # two elements at a time (OpenCL's vload2); rows of odd and even lengths match NumPy
    mod, text = _opencl_product(vector_copies=True)
    assert "vload2(0, &B[" in text
    _product_matches_numpy(mod, 23, ((13, 11, 7), (16, 18, 10)))


def test_double_buffer_reaches_the_compiler():
    # double_buffer=True, as --double-buffer: the product's A and B tiles have two buffers each, the next
    # step of k copied into one while the other is read; odd and even numbers of steps match NumPy
    mod, text = _opencl_product(double_buffer=True)
    assert "__local double shared_A[2][" in text and "__local double shared_B[2][" in text
    _product_matches_numpy(mod, 29, ((13, 11, 70), (16, 18, 100)))


def test_unroll_copies_reaches_the_compiler():
    # unroll_copies=False, as --no-unroll-copies: the product's A tile (8x8 elements for 32 threads, two a
    # thread) is copied in its loop in every tile, none of its full tiles unrolled apart; sizes with partial
    # tiles along every loop match NumPy (copies of elements: its sums in registers are 2 a thread, too few
    # to keep its copies from moving vectors by default)
    _, unrolled = _opencl_product(vector_copies=False)
    mod, text = _opencl_product(unroll_copies=False, vector_copies=False)
    assert re.search(r"shared_A\[t0\]\[t1\] = A\[", unrolled)
    assert not re.search(r"shared_A\[t0\]\[t1\] = A\[", text) and re.search(r"shared_A\[k\d\]\[k\d\] = A\[", text)
    _product_matches_numpy(mod, 31, ((13, 11, 7), (16, 18, 10)))


def test_auto_runs_openmp_c_without_a_gpu():
    if backends.cuda_device().usable or backends.opencl_gpu()[0]:
        pytest.skip("a GPU is present: auto picks it")
    mod = polypragma.compile(SOURCE)
    assert mod.backend == "c"
    why = mod.explain()
    assert "cuda: not chosen" in why and "opencl: not chosen" in why
    assert mod.openmp == ("(with OpenMP)" in why)


def test_arguments_are_checked_and_name_the_parameter():
    mod = module("c")
    A, B, C = np.ones((4, 3)), np.ones((3, 5)), np.ones((4, 5))
    with pytest.raises(TypeError, match=r"parameter 'A'.*float64, got float32"):
        mod.gemm(4, 5, 3, 1.0, 1.0, C, A.astype(np.float32), B)
    with pytest.raises(ValueError, match=r"parameter 'B'.*\(nk, nj\) = \(3, 5\), got \(3, 4\)"):
        mod.gemm(4, 5, 3, 1.0, 1.0, C, A, np.ones((3, 4)))
    with pytest.raises(ValueError, match=r"parameter 'C'.*2 dimension"):
        mod.gemm(4, 5, 3, 1.0, 1.0, np.ones(20), A, B)
    with pytest.raises(ValueError, match=r"parameter 'C'.*not C-contiguous"):
        mod.gemm(4, 5, 3, 1.0, 1.0, np.ones((5, 4)).T, A, B)
    with pytest.raises(ValueError, match=r"parameter 'C'.*read-only"):
        frozen = np.ones((4, 5))
        frozen.flags.writeable = False
        mod.gemm(4, 5, 3, 1.0, 1.0, frozen, A, B)
    with pytest.raises(TypeError, match=r"parameter 'ni'.*integer, got float"):
        mod.gemm(4.0, 5, 3, 1.0, 1.0, C, A, B)
    with pytest.raises(ValueError, match=r"parameter 'nj'.*out of its range"):
        mod.gemm(4, 2**40, 3, 1.0, 1.0, C, A, B)
    with pytest.raises(TypeError, match=r"parameter 'A'.*got list"):
        mod.gemm(4, 5, 3, 1.0, 1.0, C, A.tolist(), B)
    with pytest.raises(TypeError, match=r"takes 8 argument"):
        mod.gemm(4, 5, 3, 1.0, 1.0, C, A, B, B)
    with pytest.raises(TypeError, match=r"missing 1 required argument.*'B'"):
        mod.gemm(4, 5, 3, 1.0, 1.0, C, A)
    with pytest.raises(AttributeError, match="no function 'gem'.*gemm, jacobi_2d, total"):
        mod.gem
    A.flags.writeable = False  # const elements may be read-only; keywords bind by name
    mod.gemm(4, 5, 3, alpha=1.0, beta=0.0, C=C, A=A, B=B)
    np.testing.assert_allclose(C, np.full((4, 5), 3.0))


def test_a_second_process_loads_from_the_cache(tmp_path):
    # the second process must run no program at all: no polypragma, no compiler, no preprocessor
    script = textwrap.dedent(f"""
        import os, subprocess, sys
        import numpy as np, polypragma
        if sys.argv[1] == "second":
            def refuse(*args, **kwargs):
                raise AssertionError(f"ran {{args[0]}}")
            subprocess.Popen = refuse
        mod = polypragma.compile({SOURCE!r}, target="c")
        x = np.arange(10, dtype=np.float32)
        print(mod.cached, mod.library, os.stat(mod.library).st_mtime_ns, mod.total(10, x))
    """)
    env = {**os.environ, "POLYPRAGMA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", script, which], capture_output=True, text=True, env=env)
            for which in ("first", "second")]
    for run in runs:
        assert run.returncode == 0, run.stderr
    first, second = (run.stdout.split() for run in runs)
    assert first[0] == "False" and second[0] == "True"
    assert first[1:] == second[1:]  # the same library, not rebuilt, and the same result
    assert second[3] == "45.0"
    previous = polypragma.cache_dir()
    polypragma.set_cache_dir(tmp_path / "cache")
    try:
        polypragma.clear_cache()
        assert os.listdir(tmp_path / "cache") == []
    finally:
        polypragma.set_cache_dir(previous)


def test_a_header_change_rebuilds(tmp_path):
    (tmp_path / "size.h").write_text("#define N 4\n")
    source = tmp_path / "fill.c"
    source.write_text('#include "size.h"\nvoid fill(double x[N])\n{\n#pragma scop\n'
                      "  for (int i = 0; i < N; i++)\n    x[i] = i;\n#pragma endscop\n}\n")
    mod = polypragma.compile(source, target="c")
    assert not mod.cached and polypragma.compile(str(source), target="c").cached
    x = np.zeros(4)
    mod.fill(x)
    assert list(x) == [0, 1, 2, 3]
    (tmp_path / "size.h").write_text("#define N 6\n")
    again = polypragma.compile(source, target="c")
    assert not again.cached
    with pytest.raises(ValueError, match=r"parameter 'x'.*\(6\) = \(6\), got \(4,\)"):
        again.fill(x)


def test_a_failed_opencl_build_raises_with_the_build_log(monkeypatch):
    needs("opencl")
    # a module of its own: the OpenCL program is built once per loaded library
    mod = polypragma.compile("/* failing build */\n" + SOURCE, target="opencl")
    monkeypatch.setenv("POLYPRAGMA_DEVICE", "gpu")
    monkeypatch.setenv("POLYPRAGMA_OPENCL_OPTIONS", "-bogus")
    A, B = np.ones((8, 8)), np.zeros((8, 8))
    with pytest.raises(polypragma.DeviceError, match=r"(?s)region 1: building the OpenCL program with options "
                                                      r"' -bogus' failed.*clBuildProgram failed"):
        mod.jacobi_2d(1, 8, A, B)
    assert (B == 0).all()  # neither the device nor the original loops ran
    monkeypatch.delenv("POLYPRAGMA_DEVICE")
    mod.jacobi_2d(1, 8, A, B)  # the original loops, as the C program would run them
    assert B[1, 1] == pytest.approx(1.0)


def test_a_failure_survived_by_the_original_loops_is_a_warning(monkeypatch):
    needs("opencl")
    mod = polypragma.compile("/* falling back */\n" + SOURCE, target="opencl")
    monkeypatch.setenv("POLYPRAGMA_OPENCL_OPTIONS", "-bogus")
    A, B = np.random.default_rng(1).random((8, 8)), np.zeros((8, 8))
    A0, B0 = A.copy(), B.copy()
    with pytest.warns(polypragma.DeviceWarning, match="clBuildProgram failed"):
        mod.jacobi_2d(3, 8, A, B)
    jacobi_2d(3, A0, B0)
    np.testing.assert_allclose(A, A0, rtol=1e-12)


def test_cuda_library_builds_and_falls_back_or_raises(monkeypatch):
    mod = module("cuda")
    rng = np.random.default_rng(5)
    A, B, C = rng.random((6, 4)), rng.random((4, 5)), rng.random((6, 5))
    expected = 2.0 * A @ B + C
    mod.gemm(6, 5, 4, 2.0, 1.0, C, A, B)
    np.testing.assert_allclose(C, expected, rtol=1e-12)
    if backends.cuda_device().usable:
        return
    monkeypatch.setenv("POLYPRAGMA_DEVICE", "gpu")
    with pytest.raises(polypragma.DeviceError, match="no CUDA device"):
        mod.gemm(6, 5, 4, 2.0, 1.0, C, A, B)


def test_rows_through_pointers_are_refused_from_python():
    """A region with ``double **A`` compiles for the GPU targets (its C callers pass rows), and the module's
    other functions run; a call from Python, whose arrays are not rows through pointers, says what to declare."""
    needs("opencl")
    mod = polypragma.compile("void rowsum(int n, double **A, double *s)\n{\n#pragma scop\n"
                             "  for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++)\n      s[i] += A[i][j];\n"
                             "#pragma endscop\n}\n"
                             "void twice(int n, double *x)\n{\n#pragma scop\n  for (int i = 0; i < n; i++)\n"
                             "    x[i] *= 2;\n#pragma endscop\n}\n", target="opencl")
    x = np.ones(5)
    mod.twice(5, x)
    np.testing.assert_array_equal(x, np.full(5, 2.0))
    with pytest.raises(TypeError, match=r"rowsum\(\): parameter 'A' cannot be passed from Python: an array of rows "
                                        r"through pointers.*declare it 'double A\[n\]\[m\]'"):
        mod.rowsum(3, np.ones((3, 3)), np.zeros(3))


def test_compile_errors_and_warnings_are_python_exceptions():
    with pytest.raises(polypragma.CompileError, match=r"source.c:3:.*error"):
        polypragma.compile("void f(int n)\n{\n  int = ;\n}\n", target="c")
    with pytest.warns(polypragma.CompileWarning, match="left as written"):
        mod = polypragma.compile("void f(int n, double *x)\n{\n#pragma scop\n"
                                 "  for (int i = 0; i < n; i++)\n    switch (i) { case 0: if (x[i] > 0) break; x[i] = 0; break; default: x[i] = 1; }\n"
                                 "#pragma endscop\n}\n",
                                 target="c")
    assert "left as written" in mod.explain()


@pytest.mark.parametrize("target", ["auto", "opencl"])
def test_the_example_runs(tmp_path, target):
    needs(target)
    example = os.path.join(os.path.dirname(__file__), "..", "examples", "python_api", "example.py")
    env = {**os.environ, "POLYPRAGMA_CACHE_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, example, "--target", target, "60"], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "results match NumPy" in result.stdout and "parameter 'A'" in result.stdout
    if target == "opencl":
        assert "on pyopencl.array arrays, in place" in result.stdout


class DeviceArray:
    """An array with __cuda_array_interface__, as CuPy's and PyCUDA's are (its memory is the host's here:
    without a device, the library must refuse to run rather than touch it)."""

    def __init__(self, array):
        self.array = array

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.array.shape, "typestr": self.array.dtype.str, "strides": None, "version": 3,
                "data": (self.array.ctypes.data, not self.array.flags.writeable)}


def test_device_arrays_are_checked_and_need_the_cuda_backend(monkeypatch):
    A, B = DeviceArray(np.ones((8, 8))), DeviceArray(np.zeros((8, 8)))
    with pytest.raises(TypeError, match="a CUDA device array needs the cuda backend; this module runs on c"):
        module("c").jacobi_2d(1, 8, A, B)
    mod = module("cuda")
    with pytest.raises(ValueError, match=r"parameter 'B'.*\(n, n\) = \(8, 8\), got \(8, 9\)"):
        mod.jacobi_2d(1, 8, A, DeviceArray(np.zeros((8, 9))))
    with pytest.raises(TypeError, match=r"parameter 'A'.*float64, got float32"):
        mod.jacobi_2d(1, 8, DeviceArray(np.ones((8, 8), np.float32)), B)
    with pytest.raises(TypeError, match="not a mix.*'B' is a NumPy array"):
        mod.jacobi_2d(1, 8, A, np.zeros((8, 8)))
    with pytest.raises(TypeError, match="one region and nothing else"):  # it returns the sum
        mod.total(8, DeviceArray(np.ones(8, np.float32)))
    # the host function for device arrays uses them in place: no allocation, no copy, no release
    unit = open(os.path.join(os.path.dirname(mod.library), "source.polypragma.cu")).read()
    start = unit.index('extern "C" int polypragma_source_region1_device(')
    device_function = unit[start:unit.index("\n}\n", start)]
    assert "double *dev_A = (double *)A;" in device_function and "<<<" in device_function
    for call in ("cudaMalloc", "cudaMemcpy", "cudaFree"):
        assert call not in device_function
    if backends.cuda_device().usable:
        return
    with pytest.raises(polypragma.DeviceError, match="did not run on the device.*cannot fall back"):
        mod.jacobi_2d(1, 8, A, B)
    monkeypatch.setenv("POLYPRAGMA_DEVICE", "gpu")
    with pytest.raises(polypragma.DeviceError, match="no CUDA device"):
        mod.jacobi_2d(1, 8, A, B)
    assert (B.array == 0).all()


@pytest.mark.gpu
def test_cupy_arrays_run_in_place_on_the_device(monkeypatch):
    # for the GPU machine: the arrays stay on the device, and the results match NumPy's
    if not backends.cuda_device().usable:
        pytest.skip(backends.cuda_device().why)
    cupy = pytest.importorskip("cupy")
    mod = module("cuda")
    assert mod.backend == "cuda"
    monkeypatch.setenv("POLYPRAGMA_DEVICE", "gpu")
    rng = np.random.default_rng(7)
    A, B = rng.random((64, 64)), np.zeros((64, 64))
    A_gpu, B_gpu = cupy.asarray(A), cupy.asarray(B)
    pointer = A_gpu.data.ptr
    mod.jacobi_2d(10, 64, A_gpu, B_gpu)
    jacobi_2d(10, A, B)
    assert A_gpu.data.ptr == pointer
    np.testing.assert_allclose(cupy.asnumpy(A_gpu), A, rtol=1e-12)
    np.testing.assert_allclose(cupy.asnumpy(B_gpu), B, rtol=1e-12)


def test_pyopencl_arrays_run_in_place_in_their_context(monkeypatch):
    """PyOpenCL arrays: the opencl backend runs its kernels in their context and on their queue, on their
    buffers in place; against NumPy, in two contexts one after the other, then on NumPy arrays again."""
    cl = pytest.importorskip("pyopencl")
    import pyopencl.array as cla

    mod = module("opencl")
    assert "PyOpenCL arrays, used in place: gemm, jacobi_2d" in mod.explain()
    rng = np.random.default_rng(23)
    for _ in range(2):  # a new context each time: the second takes the program to it
        context = cl.Context(cl.get_platforms()[0].get_devices()[:1])
        queue = cl.CommandQueue(context)
        A, B, C = rng.random((13, 7)), rng.random((7, 11)), rng.random((13, 11))
        expected = 1.5 * A @ B + 0.5 * C
        A_cl, B_cl, C_cl = (cla.to_device(queue, x) for x in (A, B, C))
        buffer = C_cl.base_data.int_ptr
        mod.gemm(13, 11, 7, 1.5, 0.5, C_cl, A_cl, B_cl)
        assert C_cl.base_data.int_ptr == buffer
        np.testing.assert_allclose(C_cl.get(), expected, rtol=1e-12)
        np.testing.assert_allclose(A_cl.get(), A)  # read only, as on the host

        A, B = rng.random((20, 20)), np.zeros((20, 20))
        A_cl, B_cl = cla.to_device(queue, A), cla.empty(queue, (20, 20), np.float64)
        B_cl.fill(0.0)  # enqueued on the arrays' queue: done before the kernels, which run on it
        mod.jacobi_2d(5, 20, A_cl, B_cl)
        jacobi_2d(5, A, B)
        np.testing.assert_allclose(A_cl.get(), A, rtol=1e-12)
        np.testing.assert_allclose(B_cl.get(), B, rtol=1e-12)
    product = np.zeros((3, 2))  # NumPy arrays: the adopted context serves them
    mod.gemm(3, 2, 4, 1.0, 0.0, product, np.ones((3, 4)), np.ones((4, 2)))
    np.testing.assert_allclose(product, 4.0)

    other = cl.CommandQueue(cl.Context(cl.get_platforms()[0].get_devices()[:1]))
    with pytest.raises(ValueError, match="different contexts"):
        mod.jacobi_2d(1, 20, A_cl, cla.to_device(other, B))
    with pytest.raises(ValueError, match=r"parameter 'A'.*starts 160 bytes into its buffer"):
        mod.jacobi_2d(1, 19, A_cl[1:], B_cl[1:])
    with pytest.raises(ValueError, match=r"parameter 'B'.*\(n, n\) = \(20, 20\), got \(20, 19\)"):
        mod.jacobi_2d(1, 20, A_cl, cla.zeros(queue, (20, 19), np.float64))
    with pytest.raises(TypeError, match=r"parameter 'A'.*float64, got float32"):
        mod.jacobi_2d(1, 20, A_cl.astype(np.float32), B_cl)
    with pytest.raises(TypeError, match="not a mix.*'B' is a NumPy array"):
        mod.jacobi_2d(1, 20, A_cl, B)
    with pytest.raises(TypeError, match="a PyOpenCL array needs the opencl backend; this module runs on c"):
        module("c").jacobi_2d(1, 20, A_cl, B_cl)
    before = A_cl.get()
    monkeypatch.setenv("POLYPRAGMA_DEVICE", "cpu")  # device data cannot take the original loops
    with pytest.raises(polypragma.DeviceError, match="did not run on the device.*cannot fall back"):
        mod.jacobi_2d(1, 20, A_cl, B_cl)
    np.testing.assert_array_equal(A_cl.get(), before)


def test_pyopencl_arrays_cross_no_link(tmp_path):
    """A call on PyOpenCL arrays copies nothing between host and device: the runtime's profile counts
    no copy (a process of its own, whose exit prints the profile)."""
    pytest.importorskip("pyopencl")
    needs("opencl")
    script = tmp_path / "calls.py"
    script.write_text(textwrap.dedent(f"""
        import numpy as np, polypragma, pyopencl as cl, pyopencl.array as cla
        polypragma.set_cache_dir({str(tmp_path / "cache")!r})
        mod = polypragma.compile({SOURCE!r}, target="opencl", tile_size=(8, 8), block_size=(4, 8))
        queue = cl.CommandQueue(cl.Context(cl.get_platforms()[0].get_devices()[:1]))
        A, B = cla.to_device(queue, np.random.rand(32, 32)), cla.zeros(queue, (32, 32), np.float64)
        for _ in range(3):
            mod.jacobi_2d(4, 32, A, B)
        print(float(A.get().sum()))
    """))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env={**os.environ, "POLYPRAGMA_PROFILE": "1"}, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "transfers: 0 copies in (0 bytes), 0 copies out (0 bytes), 0 device allocations" in result.stderr


@pytest.mark.gpu
def test_pycuda_arrays_run_in_place_on_the_device(monkeypatch):
    # for the GPU machine: PyCUDA's GPUArray in the runtime's primary context, as the README says
    if not backends.cuda_device().usable:
        pytest.skip(backends.cuda_device().why)
    pytest.importorskip("pycuda")
    import pycuda.autoprimaryctx  # noqa: F401
    import pycuda.gpuarray

    mod = module("cuda")
    monkeypatch.setenv("POLYPRAGMA_DEVICE", "gpu")
    rng = np.random.default_rng(11)
    A, B = rng.random((48, 48)), np.zeros((48, 48))
    A_gpu, B_gpu = pycuda.gpuarray.to_gpu(A), pycuda.gpuarray.to_gpu(B)
    mod.jacobi_2d(6, 48, A_gpu, B_gpu)
    jacobi_2d(6, A, B)
    np.testing.assert_allclose(A_gpu.get(), A, rtol=1e-12)
    np.testing.assert_allclose(B_gpu.get(), B, rtol=1e-12)


ASSERTING = r"""
#include <assert.h>

void scale(int n, double A[n], double limit)
{
#pragma scop
    for (int i = 0; i < n; i++) {
        assert(A[i] < limit);
        A[i] = 2.0 * A[i];
    }
#pragma endscop
}
"""


@pytest.mark.parametrize("backend", ["c", "opencl", "cuda"])
def test_a_failed_assert_raises_assertion_error(backend):
    """C's assert in the source, failed: AssertionError with C's message, and the interpreter and the
    module go on (the assert of the original loops, which the kernels' flag sends the region to, too)."""
    needs(backend)
    # (sequential C: a failed assert in an OpenMP parallel loop stops the process, as C's does)
    mod = polypragma.compile(ASSERTING, target=backend, cuda_architectures=["90"], openmp=False)
    # (the c backend's regenerated loops name the iterator as they do: A[c0])
    with pytest.raises(AssertionError, match=r"source.c:8: scale: Assertion `A\[\w+\] < limit' failed"):
        mod.scale(6, np.arange(6.0), 3.0)
    A = np.arange(6.0)
    mod.scale(6, A, 10.0)
    np.testing.assert_allclose(A, 2.0 * np.arange(6.0))
