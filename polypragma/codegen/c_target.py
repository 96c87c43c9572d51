"""The ``c`` target: sequential C, or OpenMP C with ``--openmp``.

Each statement instance is its original body reprinted with the AST's
expressions in place of the loop iterators, preceded by a ``#line``
directive that points back to the user's source.  With OpenMP the outermost
parallel loop of each nest gets ``#pragma omp parallel for``.
"""

from __future__ import annotations

import islpy as isl

from polypragma.codegen.ast_build import build_ast, is_parallel
from polypragma.codegen.body import BodyPrinter
from polypragma.codegen.printer import CFamilyPrinter
from polypragma.model import Scop


def line_directive(line: int, file: str) -> str:
    escaped = file.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {line} "{escaped}"'


class CPrinter(CFamilyPrinter):
    def __init__(self, scop: Scop, openmp: bool, line_file: str):
        super().__init__(scop.iterator_type)
        self.scop = scop
        self.openmp = openmp
        self.line_file = line_file
        self.statements = {s.name: s for s in scop.statements}
        self._parallel_depth = 0
        self._omp_loops: list[bool] = []

    def identifier(self, name: str) -> str:
        if name in self.scop.unsigned_parameters:
            # isl's expressions are signed arithmetic: n - 1 must be -1 when n is 0
            return f"(({self.iterator_type}){name})"
        return name

    def before_for(self, n: isl.AstNode, depth: int) -> list[str]:
        if self.openmp and self._parallel_depth == 0 and is_parallel(n):
            # an iterator declared before the region is private to the statements that loop on it as
            # written (a loop bounded by data): each thread needs its own
            private = f" private({', '.join(self.scop.outer_iterators)})" if self.scop.outer_iterators else ""
            return [f"#pragma omp parallel for{private}"]
        return []

    def enter_for(self, n: isl.AstNode) -> None:
        opened = self.openmp and self._parallel_depth == 0 and is_parallel(n)
        self._omp_loops.append(opened)
        self._parallel_depth += opened

    def leave_for(self, n: isl.AstNode) -> None:
        self._parallel_depth -= self._omp_loops.pop()

    def user(self, n: isl.AstNode, depth: int) -> list[str]:
        call = n.user_get_expr()
        statement = self.statements[call.get_op_arg(0).get_id().get_name()]
        substitutions = dict(statement.renames)
        for k, (name, ctype) in enumerate(zip(statement.iterators, statement.iterator_types)):
            value = self.expr(call.get_op_arg(k + 1))
            if ctype != self.iterator_type:
                value = f"(({ctype})({value}))"
            elif not value.isidentifier() and not value.lstrip("-").isdigit():
                value = f"({value})"
            substitutions[name] = value
        body = BodyPrinter(substitutions).statement(statement.body, len(self.pad(depth)))
        return [line_directive(statement.line, self.line_file), *body]


def generate(scop: Scop, schedule: isl.Schedule, dependences: isl.UnionMap, *, openmp: bool,
             line_file: str) -> tuple[list[str], set[str]]:
    """The lines that replace the region, and the helper macros they use."""
    ast = build_ast(schedule, scop.context, dependences, scop.reserved_names)
    printer = CPrinter(scop, openmp, line_file)
    inner = printer.node(ast, 1)
    lines = list(scop.outer_declarations)
    lines.append("{")
    lines += [printer.pad(1) + d for d in scop.hoisted_declarations]
    lines += inner
    # the original loops set these; the generated ones do not (their values after the region are unspecified)
    lines += [f"{printer.pad(1)}(void){name};" for name in scop.outer_iterators]
    lines += _returns(scop, printer)
    lines.append("}")
    return lines, printer.helpers_used


def _returns(scop: Scop, printer: CPrinter) -> list[str]:
    """``if (condition) return value;`` for each early return the region may take: the generated code
    ran exactly the instances before it, and the value is computed now, as nothing ran since."""
    lines = []
    build = isl.AstBuild.from_context(scop.context)
    for condition, value, location in scop.returns:
        test = printer.expr(build.expr_from_set(condition.gist(scop.context)))
        returned = BodyPrinter({}).visit(value) if value is not None else ""
        statement = f"return {returned};" if value is not None else "return;"
        lines += [line_directive(location.line, printer.line_file),
                  f"{printer.pad(1)}{statement}" if test == "1" else f"{printer.pad(1)}if ({test}) {statement}"]
    return lines
