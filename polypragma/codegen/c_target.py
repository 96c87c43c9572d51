"""The ``c`` target: sequential C, or OpenMP C with ``--openmp``.

Each statement instance is its original body reprinted with the AST's
expressions in place of the loop iterators, preceded by a ``#line``
directive that points back to the user's source.  With OpenMP the outermost
parallel loop of each nest gets ``#pragma omp parallel for``.  Where a nest has
none, its outermost loop that carries no dependence but integer reductions into
scalars (:mod:`polypragma.reductions`; exact in any order) gets it instead, with
the scalars in ``reduction`` clauses.  An array element's updates (a histogram's
bins) stay in order: atomic ones took five to seven times as long as the
sequential loop on a 2-core machine (8,000,000 updates of 16 to 65,536 bins).

Privatised temporaries (:mod:`polypragma.privatise`): the model gives them a copy per iteration of the
parallel loops that carry their anti and output dependences (``sum_private[p][r][q]``).  Here one
copy per thread is enough, as each of their live ranges stays inside one iteration of those loops and
one thread runs its iterations in order: the copy has the original array's shape (``sum_private[p]``),
is declared at the top of the generated block and again at the top of each OpenMP loop's body, where
each thread's own declaration hides the shared one.
"""

from __future__ import annotations

import islpy as isl
from pycparser import c_ast

from polypragma.codegen.ast_build import build_ast, is_parallel, reductions_carried
from polypragma.codegen.body import BodyPrinter
from polypragma.codegen.printer import CFamilyPrinter
from polypragma.isl_helpers import descendants
from polypragma.model import Array, Scop, c_expression
from polypragma.reductions import Reduction


def line_directive(line: int, file: str) -> str:
    escaped = file.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {line} "{escaped}"'


class _CollapsingBodyPrinter(BodyPrinter):
    """Statement bodies with each privatised array's per-iteration subscripts left out: the thread's
    copy has the original array's shape."""

    def __init__(self, substitutions: dict[str, str], collapsed: dict[str, tuple[int, int]]):
        super().__init__(substitutions)
        self.collapsed = collapsed  # copy -> (its rank, subscripts to leave out)

    def visit_ArrayRef(self, n: c_ast.ArrayRef) -> str:
        base, depth = n, 0
        while isinstance(base, c_ast.ArrayRef):
            base, depth = base.name, depth + 1
        if isinstance(base, c_ast.ID) and base.name in self.collapsed:
            rank, dropped = self.collapsed[base.name]
            if depth == rank:
                for _ in range(dropped):
                    n = n.name
                if not isinstance(n, c_ast.ArrayRef):
                    return self.visit(n)
        return super().visit_ArrayRef(n)


def private_declaration(array: Array, dropped: int, names: dict[str, str] | None = None) -> str:
    """``double sum_private[np];``: one thread's copy of a privatised array (its first ``rank -
    dropped`` dimensions)."""
    dims = []
    for d, extent in enumerate(array.extents[: array.rank - dropped]):
        if extent is None:
            extent = array.footprint.dim_max(d).add_constant_val(isl.Val.one(array.footprint.get_ctx()))
        dims.append(f"[{c_expression(extent, names)}]")
    return f"{array.element_type} {array.c_name}{''.join(dims)};"


def openmp_reduction(r: Reduction) -> bool:
    """Whether OpenMP runs the updates of ``r`` in parallel: an integer reduction (exact in any order)
    into a scalar, which a reduction clause combines (any operator)."""
    return not r.floating and isinstance(r.target, c_ast.ID)


class CPrinter(CFamilyPrinter):
    def __init__(self, scop: Scop, openmp: bool, line_file: str, privatised: tuple = (), reductions=()):
        super().__init__(scop.iterator_type, scop.signed_names)
        self.scop = scop
        self.openmp = openmp
        self.line_file = line_file
        self.statements = {s.name: s for s in scop.statements}
        self.reductions: dict[str, Reduction] = {r.statement: r for r in reductions}
        self._parallel_depth = 0
        self._omp_loops: list[bool] = []
        arrays = {a.name: a for a in scop.arrays}
        self.collapsed = {p.copy: (arrays[p.copy].rank, len(p.members)) for p in privatised}
        self.private_declarations = [private_declaration(arrays[p.copy], len(p.members), scop.signed_names)
                                     for p in privatised]
        self.using_copies = {r.statement for r in scop.references if r.array in self.collapsed}
        self.copies_outside_omp = False  # a statement outside OpenMP loops uses a copy: declare it on top

    def for_node(self, n: isl.AstNode, depth: int) -> list[str]:
        out = super().for_node(n, depth)
        if self.private_declarations and out[0].startswith("#pragma omp parallel for"):
            out[2:2] = [self.pad(depth + 1) + d for d in self.private_declarations]
        return out

    def _opens(self, n: isl.AstNode) -> tuple[str, ...] | None:
        """Whether loop ``n`` is an OpenMP loop (None: not), and the reductions it carries: a loop
        parallel but for reductions only where no loop inside it is parallel as it is."""
        if not self.openmp or self._parallel_depth:
            return None
        if is_parallel(n):
            return ()
        carried = reductions_carried(n)
        if carried is None or any(d.get_type() == isl.ast_node_type.for_ and is_parallel(d) for d in descendants(n)):
            return None
        return carried

    def before_for(self, n: isl.AstNode, depth: int) -> list[str]:
        carried = self._opens(n)
        if carried is None:
            return []
        # an iterator declared before the region is private to the statements that loop on it as
        # written (a loop bounded by data): each thread needs its own
        private = f" private({', '.join(self.scop.outer_iterators)})" if self.scop.outer_iterators else ""
        combined: dict[str, set[str]] = {}
        for name in carried:
            r = self.reductions[name]
            combined.setdefault(r.op, set()).add(BodyPrinter(self.statements[name].renames).visit(r.target))
        clauses = "".join(f" reduction({op}:{', '.join(sorted(names))})" for op, names in sorted(combined.items()))
        return [f"#pragma omp parallel for{private}{clauses}"]

    def enter_for(self, n: isl.AstNode) -> None:
        opened = self._opens(n) is not None
        self._omp_loops.append(opened)
        self._parallel_depth += opened

    def leave_for(self, n: isl.AstNode) -> None:
        self._parallel_depth -= self._omp_loops.pop()

    def user(self, n: isl.AstNode, depth: int) -> list[str]:
        call = n.user_get_expr()
        statement = self.statements[call.get_op_arg(0).get_id().get_name()]
        substitutions = self.substitutions(statement, call)
        if statement.name in self.using_copies and not self._parallel_depth:
            self.copies_outside_omp = True
        printer = _CollapsingBodyPrinter(substitutions, self.collapsed) if self.collapsed else \
            BodyPrinter(substitutions)
        body = printer.statement(statement.body, len(self.pad(depth)))
        line = statement.line
        items = statement.body.block_items if isinstance(statement.body, c_ast.Compound) else None
        if items and items[0].coord is not None and items[0].coord.line == line:
            line -= 1  # the block's brace takes a line of its own before its first statement's
        return [line_directive(line, self.line_file), *body]


def generate(scop: Scop, schedule: isl.Schedule, dependences: isl.UnionMap, *, openmp: bool,
             line_file: str, privatised: tuple = (), reductions=None) -> tuple[list[str], set[str]]:
    """The lines that replace the region, and the helper macros they use; ``privatised``: the
    temporaries of ``scop`` that have a copy per thread (polypragma.privatise.Privatised);
    ``reductions``: those OpenMP runs in parallel (a ReductionDependences of :func:`openmp_reduction`'s)."""
    ast = build_ast(schedule, scop.context, dependences, scop.reserved_names, reductions if openmp else None)
    printer = CPrinter(scop, openmp, line_file, privatised, reductions.reductions if reductions is not None else ())
    inner = printer.node(ast, 1)
    lines = list(scop.outer_declarations)
    lines.append("{")
    lines += [printer.pad(1) + d for d in scop.hoisted_declarations]
    if printer.copies_outside_omp:
        lines += [printer.pad(1) + d for d in printer.private_declarations]
    lines += inner
    # the original loops set these; the generated ones do not (their values after the region are unspecified)
    lines += [f"{printer.pad(1)}(void){name};" for name in scop.outer_iterators]
    lines += epilogue_lines(scop, line_file, printer.pad(1))
    lines += return_lines(scop, printer, line_file)
    lines.append("}")
    return lines, printer.helpers_used


def guarded(scop: Scop, lines: list[str], original: list[str], line_file: str) -> list[str]:
    """``lines`` (generate's) run where the parameters are those the model holds for (Scop.assumed),
    ``original`` (the region's lines, fallback.fallback_lines) elsewhere."""
    declarations = len(scop.outer_declarations)
    return [*lines[:declarations], f"if ({scop.assumed_condition()})", *lines[declarations:],
            "else {  /* outside the parameters the code above is for: the original loops */",
            line_directive(scop.region.begin_line + 1, line_file), *original, "}"]


def epilogue_lines(scop: Scop, line_file: str, pad: str) -> list[str]:
    """What the generated code runs after the region (Scop.epilogue), each part at its loop's line."""
    return [line for at, text in scop.epilogue for line in (line_directive(at, line_file), *(pad + t for t in text))]


def return_lines(scop: Scop, printer: CFamilyPrinter, line_file: str) -> list[str]:
    """``if (condition) return value;`` for each early return the region may take: the generated code
    ran exactly the instances before it, and the value is computed now, as nothing ran since (the GPU
    targets print them after the call, whose CPU fallback takes the returns as written)."""
    lines = []
    build = isl.AstBuild.from_context(scop.context)
    for condition, value, location in scop.returns:
        test = printer.expr(build.expr_from_set(condition.gist(scop.context)))
        returned = BodyPrinter({}).visit(value) if value is not None else ""
        statement = f"return {returned};" if value is not None else "return;"
        lines += [line_directive(location.line, line_file),
                  f"{printer.pad(1)}{statement}" if test == "1" else f"{printer.pad(1)}if ({test}) {statement}"]
    if scop.data_return is not None:
        taken, value = scop.data_return
        lines.append(f"{printer.pad(1)}if ({taken}) return{' ' + value if value else ''};")
    return lines
