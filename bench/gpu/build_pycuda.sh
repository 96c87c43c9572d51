#!/usr/bin/env bash
# Build PyCUDA from its source distribution and install it, with the pure-Python packages it needs
# at run time, into one folder, without network:
#
#     bash bench/gpu/build_pycuda.sh TARGET_DIR
#     PYTHONPATH=TARGET_DIR:. python3 bench/gpu/api_calls.py MODULE_DIR pycuda N STEPS CALLS
#
# Run it from the repository root.  It reads .whl/ (untracked, see .git/info/exclude), which holds
# the PyCUDA sdist (pycuda-*.tar.gz) and the wheels of its missing run-time dependencies, and never
# writes into the repository: the sdist is unpacked and built under a scratch folder in /tmp.
#
# Needs: python3 with its headers, numpy and setuptools; a C++ compiler; the CUDA toolkit's headers
# (cuda.h) under CUDA_ROOT; and, to link against, the driver's libcuda.so[.1] or the toolkit's stub.
# CURAND support is left out (pycuda.curandom is then unavailable), which the benchmark does not use.
#
# Settings from the environment (all optional):
#     PYTHON         the interpreter to build for              (default: python3)
#     CUDA_ROOT      the CUDA toolkit                          (default: /usr/local/cuda)
#     JOBS           parallel compiler processes               (default: nproc)
#     PYCUDA_WHEELS  the folder with the sdist and the wheels  (default: .whl)
#     PYCUDA_SKIP_DRIVER_CHECK=1  only import pycuda at the end, not pycuda.driver (for a machine
#                    without the NVIDIA driver, where the build can be checked but not run)
#
# Exits non-zero with a message that starts with "build_pycuda.sh: error:" on any failure.

set -euo pipefail

LOG=
die() {
    if [ -n "$LOG" ] && [ -s "$LOG" ]; then
        echo "build_pycuda.sh: last lines of $LOG:" >&2
        tail -n 40 "$LOG" >&2
    fi
    echo "build_pycuda.sh: error: $* (after ${SECONDS}s)" >&2
    exit 1
}
step() {
    echo "build_pycuda.sh: [${SECONDS}s] $*"
}

[ $# -eq 1 ] || die "usage: bash bench/gpu/build_pycuda.sh TARGET_DIR"
mkdir -p "$1" || die "cannot create $1"
TARGET=$(cd "$1" && pwd)
PYTHON=${PYTHON:-python3}
CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
WHEELS=$(cd "${PYCUDA_WHEELS:-.whl}" 2>/dev/null && pwd) \
    || die "no folder ${PYCUDA_WHEELS:-.whl} (run from the repository root, with .whl/ carried)"
WORK=$(mktemp -d /tmp/pycuda-build.XXXXXX)
LOG=$WORK/build.log
SECONDS=0

# Any other failing command ends the script the same way (with the end of the build log, which
# holds the compiler's messages).
trap 'die "a command failed at line $LINENO (scratch folder $WORK)"' ERR

# ---- 1. Check the tools before spending time. --------------------------------------------------
command -v "$PYTHON" >/dev/null || die "no $PYTHON on PATH"
"$PYTHON" - <<'EOF' || die "$PYTHON lacks Python.h, numpy or setuptools (see above)"
import os, sysconfig
include = sysconfig.get_paths()["include"]
assert os.path.exists(os.path.join(include, "Python.h")), f"no Python.h in {include}"
import numpy, setuptools  # noqa: F401  (both needed to build the extensions)
print(f"build_pycuda.sh: Python {sysconfig.get_python_version()}, numpy {numpy.__version__},"
      f" setuptools {setuptools.__version__}, headers {include}")
EOF
[ -f "$CUDA_ROOT/include/cuda.h" ] || die "no $CUDA_ROOT/include/cuda.h (set CUDA_ROOT to the CUDA toolkit)"

# The compiler Python was built with (e.g. x86_64-linux-gnu-gcc) may be missing where a plain gcc
# is present: fall back to gcc/g++ or cc/c++ through CC and CXX, which setuptools honours.
PY_CC=$("$PYTHON" -c 'import sysconfig; print((sysconfig.get_config_var("CC") or "cc").split()[0])')
if [ -z "${CC:-}" ] && ! command -v "$PY_CC" >/dev/null; then
    for pair in "gcc g++" "cc c++" "clang clang++"; do
        set -- $pair
        if command -v "$1" >/dev/null && command -v "$2" >/dev/null; then
            export CC=$1 CXX=$2
            break
        fi
    done
    [ -n "${CC:-}" ] || die "no C/C++ compiler: neither $PY_CC nor gcc/g++, cc/c++, clang/clang++"
fi
step "compiler ${CC:-$PY_CC}, CUDA toolkit $CUDA_ROOT, $JOBS jobs, scratch $WORK"

sdists=("$WHEELS"/pycuda-*.tar.gz)
[ ${#sdists[@]} -eq 1 ] && [ -f "${sdists[0]}" ] \
    || die "expected exactly one pycuda-*.tar.gz in $WHEELS, found: ${sdists[*]}"
SDIST=${sdists[0]}

# ---- 2. The run-time dependencies, from wheels (no index, no dependency resolution). ------------
wheels=("$WHEELS"/*.whl)
[ -f "${wheels[0]}" ] || die "no wheels in $WHEELS"
step "installing ${#wheels[@]} wheels into $TARGET"
PIP_ROOT_USER_ACTION=ignore "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --disable-pip-version-check \
    --upgrade --target "$TARGET" "${wheels[@]}" \
    || die "pip could not install the wheels from $WHEELS into $TARGET"

# ---- 3. Something to link -lcuda against. ---------------------------------------------------
# PyCUDA's _driver module calls the driver API, so it must be linked with -lcuda, which needs a
# file named libcuda.so.  Machines with the driver often have only libcuda.so.1 (in the loader's
# cache, /usr/lib/x86_64-linux-gnu or /usr/local/nvidia/lib64); full toolkits ship a stub in
# lib64/stubs.  Any of them records "libcuda.so.1" as the module's dependency, which the loader
# resolves to the real driver at import time.  A private folder holds a libcuda.so link to the
# first one found.  As a last resort an empty library with the same soname does the same job
# (a shared module may leave the cu* symbols undefined until it is loaded).
LIBCUDA_DIR=$WORK/libcuda
mkdir -p "$LIBCUDA_DIR"
libcuda=
candidates=()
if command -v ldconfig >/dev/null; then
    while read -r path; do candidates+=("$path"); done < <(
        ldconfig -p 2>/dev/null | awk '/libcuda\.so(\.1)? .*x86-64/ {print $NF}')
fi
for dir in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64 /usr/local/nvidia/lib \
           /usr/lib/wsl/lib "$CUDA_ROOT/lib64/stubs" "$CUDA_ROOT/targets/x86_64-linux/lib/stubs" \
           "$CUDA_ROOT/lib/stubs"; do
    candidates+=("$dir/libcuda.so.1" "$dir/libcuda.so")
done
for path in "${candidates[@]}"; do
    if [ -f "$path" ]; then  # -f follows links: a dangling one is skipped
        libcuda=$path
        break
    fi
done
# --no-as-needed (read by setuptools from LDFLAGS, placed before -lcuda) keeps the dependency even
# where the linker drops libraries that resolve no symbol (the empty stub's case).
export LDFLAGS="-Wl,--no-as-needed${LDFLAGS:+ $LDFLAGS}"
if [ -n "$libcuda" ]; then
    ln -sf "$libcuda" "$LIBCUDA_DIR/libcuda.so"
    step "linking against $libcuda"
else
    echo "build_pycuda.sh: warning: no libcuda.so[.1] found; linking against an empty stub" \
         "(the driver must be present when pycuda.driver is imported)" >&2
    : > "$WORK/empty.c"
    "${CC:-$PY_CC}" -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$LIBCUDA_DIR/libcuda.so" "$WORK/empty.c" \
        || die "could not build the empty libcuda stub"
fi

# ---- 4. Unpack and configure. --------------------------------------------------------------
step "unpacking $(basename "$SDIST")"
tar -xzf "$SDIST" -C "$WORK" || die "could not unpack $SDIST"
SRC=$(find "$WORK" -mindepth 1 -maxdepth 1 -type d -name 'pycuda-*' | head -n 1)
[ -n "$SRC" ] && [ -f "$SRC/configure.py" ] || die "no pycuda-*/configure.py in $SDIST"
cd "$SRC"
# configure.py writes siteconf.py, which setup.py reads; the shipped Boost subset is used.
"$PYTHON" configure.py --cuda-root="$CUDA_ROOT" --cudadrv-lib-dir="$LIBCUDA_DIR" \
    --no-cuda-enable-curand >>"$LOG" 2>&1 || die "configure.py failed (see $LOG)"

# ---- 5. Build the two extension modules, compiling their sources in parallel. ------------------
# setuptools' "build_ext -j" only builds separate extensions in parallel, but nearly all the work
# is in one of them (_driver: the wrapper and the shipped Boost.Python sources).  This wrapper
# makes the compiler class compile one extension's sources on JOBS threads, each running one
# compiler process, then runs setup.py unchanged.  If the compiler class lacks the private
# methods used here, the build proceeds serially.
cat > "$WORK/parallel_setup.py" <<'EOF'
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import setuptools  # noqa: F401  (first, so that "distutils" below is setuptools' copy)
import distutils.ccompiler as ccompiler

JOBS = max(1, int(os.environ.get("JOBS", "1")))
Compiler = ccompiler.CCompiler


def parallel_compile(self, sources, output_dir=None, macros=None, include_dirs=None, debug=False,
                     extra_preargs=None, extra_postargs=None, depends=None):
    macros, objects, extra_postargs, pp_opts, build = self._setup_compile(
        output_dir, macros, include_dirs, sources, depends, extra_postargs)
    cc_args = self._get_cc_args(pp_opts, debug, extra_preargs)

    def one(obj):
        if obj in build:  # absent when the object is up to date
            src, ext = build[obj]
            self._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

    # Largest sources first: the longest compilations (the wrapper's) then end near the others.
    order = sorted(objects, key=lambda obj: -os.path.getsize(build[obj][0]) if obj in build else 0)
    with ThreadPoolExecutor(JOBS) as pool:
        list(pool.map(one, order))  # list(): re-raises the first compiler error
    return objects


if JOBS > 1 and all(hasattr(Compiler, name) for name in ("_setup_compile", "_get_cc_args", "_compile")):
    Compiler.compile = parallel_compile
else:
    print("parallel_setup.py: compiling serially", file=sys.stderr)

sys.path.insert(0, os.getcwd())
sys.argv[0] = "setup.py"
exec(compile(open("setup.py").read(), "setup.py", "exec"), {"__name__": "__main__", "__file__": "setup.py"})
EOF
step "compiling (log: $LOG)"
JOBS=$JOBS "$PYTHON" "$WORK/parallel_setup.py" build_ext --inplace -j 2 >>"$LOG" 2>&1 \
    || die "the build failed"
for module in _driver _pvt_struct; do
    ls pycuda/"$module".*so >/dev/null 2>&1 || die "the build made no pycuda/$module*.so"
done
if command -v readelf >/dev/null; then
    readelf -d pycuda/_driver.*so | grep -q 'NEEDED.*libcuda\.so' \
        || die "pycuda/_driver does not depend on libcuda.so.1"
fi

LOG=  # built: later failures need no compiler messages

# ---- 6. Install: the package folder, with the built modules in it, goes into TARGET_DIR. ----
# (The packages setup.py lists, pycuda and its subpackages, all live under pycuda/, including the
# cuda/*.hpp headers that SourceModule compiles against.)
step "installing pycuda into $TARGET"
rm -rf "$TARGET/pycuda"
cp -r pycuda "$TARGET/pycuda"
find "$TARGET/pycuda" -name '__pycache__' -prune -exec rm -rf {} +

# ---- 7. Check. -----------------------------------------------------------------------------
cd /
PYTHONPATH=$TARGET "$PYTHON" -c 'import pycuda; print("pycuda", pycuda.VERSION, "from", pycuda.__file__)' \
    || die "import pycuda failed from $TARGET"
if [ "${PYCUDA_SKIP_DRIVER_CHECK:-0}" != 1 ]; then
    PYTHONPATH=$TARGET "$PYTHON" -c '
import pycuda.driver as drv
drv.init()
print("pycuda.driver: CUDA", drv.get_version(), "driver", drv.get_driver_version(),
      "devices", [drv.Device(i).name() for i in range(drv.Device.count())])
' || die "import pycuda.driver or cuInit failed (is the NVIDIA driver present?)"
fi
rm -rf "$WORK"
step "done: PYTHONPATH=$TARGET"
