"""The FileCheck-style matcher of tests/filecheck.py, on small texts."""

from __future__ import annotations

import pytest

from filecheck import CheckError, match, parse_checks, pattern, unknown_directives, without_directives

OUTPUT = """\
extern "C" int polypragma_gemm_region0(int n, double *C)
{
  polypragma_check(cudaMalloc(&dev_C, n * sizeof(double)));
  polypragma_check(cudaMemcpy(dev_C, C, n * sizeof(double), cudaMemcpyHostToDevice));
  kernel0<<<grid, block>>>(dev_C, n);
  polypragma_check(cudaGetLastError());
  polypragma_check(cudaMemcpy(C, dev_C, n * sizeof(double), cudaMemcpyDeviceToHost));
  polypragma_check(cudaFree(dev_C));
  return 0;
}
"""


def checks(*lines: str, prefix: str = "CHECK-CUDA"):
    # two lines of other text first, so that the checks' line numbers are 3, 4, ...
    return parse_checks("// RUN: -- 1\n// covers: nothing\n" + "\n".join(lines) + "\n", prefix, "k.c")


def fails(*lines: str) -> str:
    with pytest.raises(CheckError) as failure:
        match(checks(*lines), OUTPUT, "k.c", "k.polypragma.cu")
    return str(failure.value)


def test_checks_in_order_pass():
    match(checks("// CHECK-CUDA: extern \"C\" int polypragma_gemm_region0(",
                 "// CHECK-CUDA: cudaMalloc(&dev_C",
                 "// CHECK-CUDA-NEXT: cudaMemcpy(dev_C, C,",
                 "// CHECK-CUDA-NOT: cudaMalloc",
                 "// CHECK-CUDA: kernel0<<<grid, block>>>",
                 "// CHECK-CUDA-NEXT: cudaGetLastError()",
                 "// CHECK-CUDA: cudaFree(dev_C)"), OUTPUT)


def test_regex_between_double_braces_and_spaces_match_any_run():
    match(checks("// CHECK-CUDA: polypragma_{{[a-z]+}}_region{{[0-9]+}}(int n,   double *C)",
                 "// CHECK-CUDA: {{^}}  return 0;{{$}}"), OUTPUT)
    assert pattern("a {{b+}} c").fullmatch("a \t bbb c")
    assert not pattern("a.b").search("axb")  # outside {{ }} every character is literal


def test_a_check_may_match_later_on_the_line_of_the_previous_match():
    match(checks("// CHECK-CUDA: cudaMemcpy(dev_C", "// CHECK-CUDA: cudaMemcpyHostToDevice"), OUTPUT)


def test_checks_out_of_order_fail():
    message = fails("// CHECK-CUDA: cudaFree", "// CHECK-CUDA: cudaMalloc")
    assert message.startswith("k.c:4: error: CHECK-CUDA: expected string not found in input")


def test_a_missing_line_reports_the_check_and_the_closest_candidate():
    message = fails("// CHECK-CUDA: kernel0<<<grid, block>>>",
                    "// CHECK-CUDA: polypragma_check(cudaGetLastErrors());")
    lines = message.splitlines()
    assert lines[0] == "k.c:4: error: CHECK-CUDA: expected string not found in input"
    assert lines[1] == "// CHECK-CUDA: polypragma_check(cudaGetLastErrors());"
    # the search started at the end of the previous match, on line 5 of the output
    assert lines[2] == "k.polypragma.cu:5: note: scanning from here"
    assert lines[4] == "k.polypragma.cu:6: note: possible intended match here"
    assert lines[5] == "    polypragma_check(cudaGetLastError());"


def test_no_candidate_is_named_when_no_line_is_alike():
    message = fails("// CHECK-CUDA: __shared__ double shared_A[32][33];")
    assert "expected string not found" in message and "possible intended match" not in message


def test_next_must_be_on_the_following_line():
    message = fails("// CHECK-CUDA: cudaMalloc", "// CHECK-CUDA-NEXT: kernel0<<<")
    assert message.splitlines()[0] == "k.c:4: error: CHECK-CUDA-NEXT: is not on the line after the previous match"
    assert "k.polypragma.cu:5: note: 'next' match was here" in message
    assert "k.polypragma.cu:3: note: previous match ended here" in message
    same = fails("// CHECK-CUDA: cudaMemcpy(dev_C", "// CHECK-CUDA-NEXT: cudaMemcpyHostToDevice")
    assert "is on the same line as the previous match" in same


def test_not_between_two_matches_and_after_the_last():
    message = fails("// CHECK-CUDA: cudaMalloc", "// CHECK-CUDA-NOT: <<<", "// CHECK-CUDA: cudaFree")
    assert message.splitlines()[0] == "k.c:4: error: CHECK-CUDA-NOT: excluded string found in input"
    assert "k.polypragma.cu:5: note: found here" in message
    # after the last positive check, a NOT covers the rest of the output; before the first, its start
    assert "k.c:4: error: CHECK-CUDA-NOT" in fails("// CHECK-CUDA: kernel0", "// CHECK-CUDA-NOT: cudaFree")
    assert "k.c:3: error: CHECK-CUDA-NOT" in fails("// CHECK-CUDA-NOT: extern", "// CHECK-CUDA: cudaFree")
    match(checks("// CHECK-CUDA: cudaFree", "// CHECK-CUDA-NOT: cudaMalloc"), OUTPUT)


def test_prefixes_are_told_apart():
    source = "// CHECK-C: for (int c0\n// CHECK-CUDA: kernel0\n// CHECK-C-NOT: omp\n"
    assert [c.directive for c in parse_checks(source, "CHECK-C")] == ["CHECK-C", "CHECK-C-NOT"]
    assert [c.text for c in parse_checks(source, "CHECK-CUDA")] == ["kernel0"]
    assert unknown_directives(source + "// CHECK-CUDA-NXT: x\n// CHECK: y\n", ["CHECK-C", "CHECK-CUDA"]) == [
        "line 4: CHECK-CUDA-NXT", "line 5: CHECK"]


def test_bad_check_lines_are_errors():
    with pytest.raises(CheckError, match=r"k.c:3: error: found an empty check string"):
        checks("// CHECK-CUDA:   ")
    with pytest.raises(CheckError, match=r"k.c:3: error: found 'CHECK-CUDA-NEXT' without a previous 'CHECK-CUDA'"):
        checks("// CHECK-CUDA-NEXT: x")
    with pytest.raises(CheckError, match=r"k.c:3: error: invalid check"):
        checks("// CHECK-CUDA: a{{(}}")


def test_check_lines_copied_into_the_output_do_not_match_themselves():
    source = "// CHECK-C: for (int c0 = 0;\nint main(void) { return 0; }\n"
    with pytest.raises(CheckError):
        match(parse_checks(source, "CHECK-C"), without_directives(source))
    assert without_directives(source).split("\n")[:2] == ["", "int main(void) { return 0; }"]
