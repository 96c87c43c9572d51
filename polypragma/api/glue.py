"""The C file that turns a generated file into a library Python can call.

It includes ``NAME.polypragma.c`` (so even ``static`` functions are reachable) and adds, per function
holding a region, an exported entry point ``polypragma_api_<name>`` with a uniform shape: scalars as
``long long``/``unsigned long long``/``double``, arrays as ``void *``, the function's value through a
pointer, and as its own value whether the call failed.  It also defines the hooks through which the
generated runtime reports in library mode (``POLYPRAGMA_LIBRARY``, see polypragma/codegen/host.py):
messages are kept in a buffer, read by Python after the call, instead of going to stderr, and a fatal
failure is recorded instead of ending the process.  With glibc, C's ``assert`` of the source does not end
the process either: its failure handler is renamed before the generated file declares it, and the
glue's reports the message and jumps back to the entry point, which returns 2 (Python raises
``AssertionError``); but from inside an OpenMP parallel loop, where no jump can leave the loop's threads,
it stops the process as C's does.
"""

from __future__ import annotations

from polypragma.api.signature import Signature

_SCALAR = {"int": "long long", "uint": "unsigned long long", "float": "double"}

_HOOKS = r"""
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char polypragma_api_buffer[32768];
static size_t polypragma_api_used;
static int polypragma_api_failed;

void polypragma_library_report(const char *format, ...)
{
  va_list arguments;
  size_t room = sizeof polypragma_api_buffer - polypragma_api_used;
  if (room <= 1)
    return;
  va_start(arguments, format);
  int written = vsnprintf(polypragma_api_buffer + polypragma_api_used, room, format, arguments);
  va_end(arguments);
  if (written > 0)
    polypragma_api_used += (size_t)written < room ? (size_t)written : room - 1;
}

void polypragma_library_fatal(void)
{
  polypragma_api_failed = 1;
}

int polypragma_library_stopped(void)
{
  return polypragma_api_failed;
}

/* the messages of the last call ("" when none) */
const char *polypragma_api_messages(void)
{
  return polypragma_api_buffer;
}

static void polypragma_api_begin(void)
{
  polypragma_api_used = 0;
  polypragma_api_buffer[0] = '\0';
  polypragma_api_failed = 0;
}

/* the entry point a failed assert of the source returns through (with glibc, see _ASSERTS) */
static jmp_buf polypragma_api_jump;

#ifdef __GLIBC__
void polypragma_api_assert_fail(const char *assertion, const char *file, unsigned int line, const char *function)
{
#ifdef _OPENMP
  if (omp_in_parallel()) {  /* no way back out of a parallel loop's threads: C's behaviour */
    fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function, assertion);
    abort();
  }
#endif
  polypragma_library_report("%s:%u: %s: Assertion `%s' failed.\n", file, line, function, assertion);
  polypragma_api_failed = 2;
  longjmp(polypragma_api_jump, 1);
}
#endif
"""

# before the generated file: glibc's assert calls __assert_fail, renamed so that the glue's handles it
_ASSERTS = r"""#include <setjmp.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __GLIBC__
#define __assert_fail polypragma_api_assert_fail
#endif"""


def glue(generated: str, signatures: list[Signature], prototypes: dict[str, str] | None = None,
         adopt: tuple[str, str] | None = None) -> str:
    """The text of the glue file for ``generated`` (the path of NAME.polypragma.c); ``prototypes``: of
    the cuda target's host functions taking device buffers, by name (see build.device_entries);
    ``adopt``: the opencl runtime's function adopting the caller's context and queue, and the source
    it names in its messages."""
    include = _c_text(generated)
    lines = ["/* polypragma's Python API: entry points into the functions of the generated file */",
             _ASSERTS, f'#include "{include}"', _HOOKS]
    if adopt is not None:
        # PyOpenCL arrays: the kernels run in their context, on their queue (see opencl_target.ADOPT)
        lines += ["int polypragma_api_opencl_adopt(void *context, void *queue)", "{",
                  "  polypragma_api_begin();",
                  f'  if ({adopt[0]}((cl_context)context, (cl_command_queue)queue, "{_c_text(adopt[1])}") != 0)',
                  "    polypragma_api_failed = 1;",
                  "  return polypragma_api_failed;",
                  "}", ""]
    for s in signatures:
        if any(p.unsupported for p in s.parameters):
            continue  # Python refuses the call, saying why
        params = ["void *polypragma_result"]
        for p in s.parameters:
            params.append(f"void *{p.name}" if p.kind == "array" else f"{_SCALAR.get(p.number, 'int')} {p.name}")
        call = f"{s.name}({', '.join(p.name for p in s.parameters)})"
        if s.returns in _SCALAR:
            call = f"*({_SCALAR[s.returns]} *)polypragma_result = {call}"
        elif s.returns:
            call = f"(void){call}"
        lines += [f"int polypragma_api_{s.name}({', '.join(params)})", "{",
                  "  (void)polypragma_result;",
                  "  polypragma_api_begin();",
                  "  if (setjmp(polypragma_api_jump) != 0)  /* a failed assert */",
                  "    return polypragma_api_failed;",
                  f"  {call};",
                  "  return polypragma_api_failed;",
                  "}", ""]
        if s.device_function:
            # the caller's device buffers, used in place: no fallback to the original loops is possible
            if s.device_function in (prototypes or {}):  # cuda: defined in the .cu
                lines.append(prototypes[s.device_function])
            lines += [f"int polypragma_api_{s.name}_device({', '.join(params)})", "{",
                      "  (void)polypragma_result;",
                      "  polypragma_api_begin();",
                      f"  if ({s.device_function}({', '.join(s.device_arguments)}) != 0 && !polypragma_api_failed) {{",
                      f'    polypragma_library_report("polypragma: {s.name}: the region did not run on the device (none '
                      "usable, POLYPRAGMA_DEVICE=cpu, or the failure above), and device arrays cannot fall back to "
                      'the original loops\\n");',
                      "    polypragma_api_failed = 1;",
                      "  }",
                      "  return polypragma_api_failed;",
                      "}", ""]
    return "\n".join(lines)


def _c_text(text: str) -> str:
    """``text`` inside a C string literal."""
    return text.replace("\\", "\\\\").replace('"', '\\"')
