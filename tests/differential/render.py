"""Print a generated program as a complete C file: arrays sized from the footprint of their
accesses, initialised from a seed, the region, and a checksum of every array and scalar."""

from __future__ import annotations

from dataclasses import dataclass

from program import Access, Array, Assign, If, Indirect, Interval, Loop, Scalar, ScalarRef, Term

INT_MODULUS = 997


@dataclass
class Program:
    parameters: list[tuple[str, int, int]]  # name, smallest and largest value
    arrays: list[Array]
    scalars: list[Scalar]
    body: list
    runs: list[tuple[int, ...]]  # seed, then one value per parameter

    def source(self) -> str:
        size_arrays(self)
        return render(self)


# -- footprint ----------------------------------------------------------------------------------


def loop_interval(loop: Loop, env: dict[str, Interval]) -> Interval:
    start, end = loop.start.interval(env), loop.end.interval(env)
    if loop.step > 0:
        lo, hi = start[0], end[1] - (1 if loop.compare == "<" else 0)
    else:
        lo, hi = end[0] + (1 if loop.compare == ">" else 0), start[1]
    return lo, max(lo, hi)


def _walk_accesses(nodes: list, env: dict[str, Interval], visit) -> None:
    for node in nodes:
        if isinstance(node, Loop):
            inner = dict(env)
            inner[node.var] = loop_interval(node, env)
            _walk_accesses(node.body, inner, visit)
        elif isinstance(node, If):
            _walk_accesses(node.then, env, visit)
            _walk_accesses(node.otherwise or [], env, visit)
        else:
            for ref in _refs(node):
                if isinstance(ref, Access):
                    visit(ref, env)
                    for subscript in ref.subscripts:
                        if isinstance(subscript, Indirect):  # (the index array's own access)
                            visit(subscript.index, env)


def _refs(statement: Assign):
    yield statement.target
    for term in statement.terms:
        for ref in (term.value, term.other):
            if isinstance(ref, (Access, ScalarRef)):
                yield ref
    if statement.data_guard is not None:
        yield statement.data_guard


def size_arrays(program: Program) -> None:
    """Offsets and extents of every array such that every access is in bounds."""
    env = {name: (lo, hi) for name, lo, hi in program.parameters}
    ranges: dict[str, list[Interval]] = {a.name: [(0, 0)] * a.rank for a in program.arrays}

    def visit(access: Access, where: dict[str, Interval]) -> None:
        current = ranges[access.array]
        ranges[access.array] = [
            (min(lo, a), max(hi, b)) for (lo, hi), (a, b) in
            zip(current, (s.interval(where) for s in access.subscripts))]

    _walk_accesses(program.body, env, visit)
    for array in program.arrays:
        array.offsets = [max(0, -lo) for lo, _ in ranges[array.name]]
        array.extents = [hi + offset + 1 for (_, hi), offset in zip(ranges[array.name], array.offsets)]


# -- C text --------------------------------------------------------------------------------------


class _Printer:
    def __init__(self, program: Program):
        self.arrays = {a.name: a for a in program.arrays}
        self.lines: list[str] = []

    def ref(self, ref) -> str:
        if isinstance(ref, ScalarRef):
            return ref.name
        array = self.arrays[ref.array]
        return ref.array + "".join(f"[{self.subscript(s.shifted(o))}]" for s, o in zip(ref.subscripts, array.offsets))

    def subscript(self, subscript) -> str:
        if isinstance(subscript, Indirect):
            read = self.ref(subscript.index)
            return f"{read} + {subscript.constant}" if subscript.constant else read
        return subscript.c()

    def value(self, term: Term, type_: str) -> str:
        if isinstance(term.value, str):  # an iterator or parameter
            base = f"(double){term.value}" if type_ == "double" else term.value
        else:
            base = self.ref(term.value)
        if term.function == "sqrt_fabs":
            base = f"sqrt(fabs({base}))"
        elif term.function == "fmax":
            base = f"fmax({base}, {self.ref(term.other)})"
        elif term.function == "ternary":
            other = self.ref(term.other)
            base = f"({base} > {other} ? {base} : {other})"
        return base

    def expression(self, statement: Assign) -> str:
        text = statement.constant
        for term in statement.terms:
            text += f" + {term.coefficient} * {self.value(term, statement.type)}"
        return text

    def statement(self, statement: Assign, indent: str) -> None:
        target = self.ref(statement.target)
        if statement.op == "++":
            text = f"{target}++;"
        elif statement.op == "mod":
            text = f"{target} = ({target} + {self.expression(statement)}) % {INT_MODULUS};"
        elif statement.type == "int":
            text = f"{target} = ({self.expression(statement)}) % {INT_MODULUS};"
        else:
            text = f"{target} {statement.op} {self.expression(statement)};"
        if statement.data_guard is not None:
            self.lines.append(f"{indent}if ({self.ref(statement.data_guard)} > 0)")
            indent += "  "
        self.lines.append(indent + text)

    def nodes(self, nodes: list, indent: str) -> None:
        for node in nodes:
            if isinstance(node, Loop):
                init = f"int {node.var}" if node.declare else node.var
                if node.step == 1:
                    step = f"{node.var}++"
                elif node.step == -1:
                    step = f"{node.var}--"
                elif node.step > 0:
                    step = f"{node.var} += {node.step}"
                else:
                    step = f"{node.var} = {node.var} - {-node.step}"
                self.lines.append(f"{indent}for ({init} = {node.start.c()}; {node.var} {node.compare} "
                                  f"{node.end.c()}; {step}) {{")
                self.nodes(node.body, indent + "  ")
                self.lines.append(indent + "}")
            elif isinstance(node, If):
                self.lines.append(f"{indent}if ({node.condition.text}) {{")
                self.nodes(node.then, indent + "  ")
                if node.otherwise:
                    self.lines.append(indent + "} else {")
                    self.nodes(node.otherwise, indent + "  ")
                self.lines.append(indent + "}")
            else:
                self.statement(node, indent)


def _declaration(array: Array, vla: bool) -> str:
    extents = array.extent_names() if vla else [str(e) for e in array.extents]
    return f"{array.type} {array.name}" + "".join(f"[{e}]" for e in extents)


def _iterators(nodes: list, found: set[str]) -> set[str]:
    for node in nodes:
        if isinstance(node, Loop):
            if not node.declare:
                found.add(node.var)
            _iterators(node.body, found)
        elif isinstance(node, If):
            _iterators(node.then, found)
            _iterators(node.otherwise or [], found)
    return found


def render(program: Program) -> str:
    out = [f"// RUN: -- {' '.join(str(v) for v in run)}" for run in program.runs]
    out += ["// generated by tests/differential/generator.py", '#include "kernels.h"', ""]
    for array in program.arrays:
        out.append(f"static {_declaration(array, False)};")
    passed = [a for a in program.arrays if a.storage != "global"]
    params = [f"int {name}" for name, _, _ in program.parameters]
    for array in passed:
        if array.storage == "vla":
            params += [f"int {e}" for e in array.extent_names()]
    params += [_declaration(a, a.storage == "vla") for a in passed]
    out.append(f"static void kernel({', '.join(params)})")
    out.append("{")
    iterators = sorted(_iterators(program.body, set()))
    if iterators:
        out.append(f"  int {', '.join(iterators)};")
    for scalar in program.scalars:
        out.append(f"  {scalar.type} {scalar.name} = {scalar.initial};")
    out.append("#pragma scop")
    printer = _Printer(program)
    printer.nodes(program.body, "  ")
    out += printer.lines
    out.append("#pragma endscop")
    for scalar in program.scalars:
        kind = "print_scalar" if scalar.type == "double" else "print_int_scalar"
        out.append(f'  {kind}("{scalar.name}", {scalar.name});')
    out.append("}")
    out += ["", CHECKSUMS, "int main(int argc, char **argv)", "{",
            "  rng_seed(arg_int(argc, argv, 1, 1));"]
    for index, (name, _, _) in enumerate(program.parameters, start=2):
        out.append(f"  int {name} = arg_int(argc, argv, {index}, 1);")
    for array in program.arrays:
        first = f"&{array.name}" + "[0]" * array.rank
        if array.type == "double":
            out.append(f"  init_array_range({first}, {array.size()}, -1.0, 1.0);")
        else:
            lo, hi = array.values or (-50, 50)
            out.append(f"  init_int_array({first}, {array.size()}, {lo}, {hi});")
    arguments = [name for name, _, _ in program.parameters]
    for array in passed:
        if array.storage == "vla":
            arguments += [str(e) for e in array.extents]
    arguments += [a.name for a in passed]
    out.append(f"  kernel({', '.join(arguments)});")
    for array in program.arrays:
        first = f"&{array.name}" + "[0]" * array.rank
        kind = "checksum_double" if array.type == "double" else "checksum_int"
        out.append(f'  {kind}("{array.name}", {first}, {array.size()});')
    out += ["  return 0;", "}", ""]
    return "\n".join(out)


CHECKSUMS = """\
static void checksum_double(const char *name, const double *a, int count)
{
  double sum = 0.0, weighted = 0.0;
  for (int k = 0; k < count; k++) {
    sum += a[k];
    weighted += a[k] * (double)(k % 17 + 1);
  }
  printf("%s %.17g %.17g\\n", name, sum, weighted);
}

static void checksum_int(const char *name, const int *a, int count)
{
  long long sum = 0, weighted = 0;
  for (int k = 0; k < count; k++) {
    sum += a[k];
    weighted += (long long)a[k] * (k % 17 + 1);
  }
  printf("%s %lld %lld\\n", name, sum, weighted);
}
"""
