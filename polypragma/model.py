"""The polyhedral model of one region: the data passed from the frontend on.

All sets and maps are isl objects in one :class:`islpy.Context` per
compilation.  Statement domains live in named spaces ``S_k[i, j, ...]``
whose dimensions are the enclosing loop iterators, outermost first; arrays in
spaces named after the C variable (``A[a0, a1]``), scalars written in the
region as zero-dimensional arrays (``s[]``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl
from pycparser import c_ast

from polypragma.diagnostics import Location
from polypragma.isl_helpers import coalesced, params_within
from polypragma.scan import Region


# the bits of C's integer types, as on the platforms polypragma targets (LP64: long as long long, which
# covers LLP64's narrower long too)
_INTEGER_BITS = {"char": 8, "short": 16, "int": 32, "long": 64}


def integer_range(ctype: str) -> tuple[int, int] | None:
    """The values of the C integer type ``ctype`` (its words: ``unsigned short``, ``long long int``), or
    None for any other type.  A plain ``char``, signed or not as the platform has it, may hold either."""
    words = ctype.split()
    if not words or any(w not in ("signed", "unsigned", "char", "short", "int", "long", "_Bool") for w in words):
        return None
    if words == ["_Bool"]:
        return 0, 1
    sized = [w for w in words if w in _INTEGER_BITS and w != "int"] or ["int"]
    bits = _INTEGER_BITS[sized[0]]
    if "unsigned" in words:
        return 0, 2**bits - 1
    if sized == ["char"] and "signed" not in words:
        return -2**(bits - 1), 2**bits - 1
    return -2**(bits - 1), 2**(bits - 1) - 1


_PLAIN_BINARY = {
    isl.ast_expr_op_type.add: "+", isl.ast_expr_op_type.sub: "-", isl.ast_expr_op_type.mul: "*",
    isl.ast_expr_op_type.div: "/", isl.ast_expr_op_type.pdiv_q: "/", isl.ast_expr_op_type.pdiv_r: "%",
    isl.ast_expr_op_type.zdiv_r: "%", isl.ast_expr_op_type.lt: "<", isl.ast_expr_op_type.le: "<=",
    isl.ast_expr_op_type.gt: ">", isl.ast_expr_op_type.ge: ">=", isl.ast_expr_op_type.eq: "==",
    isl.ast_expr_op_type.and_: "&&", isl.ast_expr_op_type.and_then: "&&", isl.ast_expr_op_type.or_: "||",
    isl.ast_expr_op_type.or_else: "||",
}


def c_expression(pa: isl.PwAff, names: dict[str, str] | None = None, context: isl.Set | None = None) -> str:
    """``pa`` (over the parameters) as a self-contained C expression, parameters spelt as ``names`` says
    (:attr:`Scop.signed_names`); with ``context`` (a set of parameters), valid where it holds only.

    isl's own ``to_C_str`` writes ``min``, ``max`` and ``floord``, which C does not define (host code
    once called ``min(16, n)``); here they are conditional expressions, fully parenthesised."""
    if not pa.get_domain_space().is_params():
        # over a set of no dimensions: isl's AST would misread it as over the parameters
        assert pa.get_domain_space().dim(isl.dim_type.set) == 0
        pa = pa.project_domain_on_params()
    if context is None:
        context = isl.Set.universe(pa.get_domain_space().params())
    else:
        pa = pa.gist(context)
    build = isl.AstBuild.from_context(context)
    return _plain_c(build.expr_from_pw_aff(coalesced(pa)), names or {})


def c_condition(condition: isl.Set, context: isl.Set, names: dict[str, str] | None = None) -> str:
    """``condition`` (a set of parameters) as a C expression, valid where ``context`` holds."""
    build = isl.AstBuild.from_context(context)
    return _plain_c(build.expr_from_set(coalesced(condition.gist(context))), names or {})


def _plain_c(e: isl.AstExpr, names: dict[str, str] | None = None) -> str:
    names = names or {}
    kind = e.get_type()
    if kind == isl.ast_expr_type.int:
        value = str(e.get_val())
        return f"({value})" if value.startswith("-") else value
    if kind == isl.ast_expr_type.id:
        return names.get(e.get_id().get_name(), e.get_id().get_name())
    op = e.get_op_type()
    args = [_plain_c(e.get_op_arg(k), names) for k in range(e.get_op_n_arg())]
    if op in _PLAIN_BINARY:
        return f"({args[0]} {_PLAIN_BINARY[op]} {args[1]})"
    if op == isl.ast_expr_op_type.minus:
        return f"(-{args[0]})"
    if op in (isl.ast_expr_op_type.min, isl.ast_expr_op_type.max):
        relation = "<" if op == isl.ast_expr_op_type.min else ">"
        text = args[0]
        for other in args[1:]:
            text = f"({text} {relation} {other} ? {text} : {other})"
        return text
    if op == isl.ast_expr_op_type.fdiv_q:
        n, d = args  # d is a positive constant
        return f"({n} < 0 ? -((-{n} + {d} - 1) / {d}) : {n} / {d})"
    if op in (isl.ast_expr_op_type.cond, isl.ast_expr_op_type.select):
        return f"({args[0]} ? {args[1]} : {args[2]})"
    raise ValueError(f"isl expression {e.to_C_str()} has no plain C form")


@dataclass(frozen=True)
class CType:
    """The C type of a variable, reduced to what the compiler needs."""

    base: str  # element type as written, e.g. "double", "unsigned long", "real_t"
    is_integer: bool
    is_float: bool
    # one entry per array dimension, outermost first: the C extent expression or None
    dims: tuple[c_ast.Node | None, ...] = ()
    pointer_depth: int = 0  # pointers below the array dimensions (double *A -> 1)
    is_unsigned: bool = False
    resolved: str = ""  # the element type with typedefs resolved, e.g. "double", "unsigned long"

    @property
    def extents(self) -> tuple[c_ast.Node | None, ...]:
        """The extent each subscript runs over, outermost first: the array dimensions' (None where not
        declared), then None for each pointer level below them."""
        return tuple(self.dims) + (None,) * self.pointer_depth

    @property
    def rank(self) -> int:
        """Number of subscripts an element access takes."""
        return len(self.dims) + self.pointer_depth

    @property
    def is_scalar(self) -> bool:
        return self.rank == 0


@dataclass(frozen=True)
class Member:
    """Where a member of a struct lives: the model makes ``p[i].x[j]`` an array ``p__x[i][j]`` of its own,
    while the device keeps the struct variable ``p`` whole (one buffer of structs, copied as the host
    holds it), so kernels print the access as written.

    ``struct`` is the C variable, ``type`` its element type as written (``struct particle``, a typedef
    name), ``rank`` the subscripts the struct variable takes (``p->x`` is ``p[0].x``), ``path`` the
    fields from it to the member, each with the subscripts it takes.  ``pointer``: the last field is a
    pointer (``p->a[i]`` with ``double *a``), so the member's elements are not in the struct but wherever it
    points (the GPU targets copy them as rows through pointers, see gpu/data.py)."""

    struct: str
    type: str
    rank: int
    path: tuple[tuple[str, int], ...]
    pointer: bool = False


@dataclass(frozen=True)
class Variable:
    """A C variable seen from a region."""

    name: str
    ctype: CType
    declared_in_region: bool = False
    decl: c_ast.Decl | None = None
    member: Member | None = None  # a member of a struct variable (p__x for p[i].x)


@dataclass(frozen=True)
class Array:
    """An array (or a scalar written in the region, with rank 0) the region accesses.

    ``extents`` holds one isl PwAff per dimension over the parameters, or
    None where the declaration does not give it (the outermost dimension of a
    pointer); ``footprint`` is the set of elements the region may touch.
    """

    name: str
    element_type: str
    rank: int
    extents: tuple[isl.PwAff | None, ...]
    footprint: isl.Set
    kind: str  # "array", "pointer" (flat, possibly delinearised), "scalar", "local"
    delinearised: bool = False
    resolved_type: str = ""  # element type with typedefs resolved
    c_name: str = ""  # the C variable (differs from name for renamed hoisted locals: same then)
    region_level: bool = False  # a local declared at the region's top level (visible after it)
    member: Member | None = None  # a member of a struct variable (p__x for p[i].x)

    def describe(self) -> str:
        dims = "".join(f"[{e}]" if e is not None else "[*]" for e in self.extent_strings())
        return f"{self.element_type} {self.name}{dims} ({self.kind})"

    def extent_strings(self) -> list[str | None]:
        """The extents as isl writes them over the parameters (for messages)."""
        out: list[str | None] = []
        for e in self.extents:
            if e is None:
                out.append(None)
            else:
                build = isl.AstBuild.from_context(isl.Set.universe(e.get_domain_space().params()))
                out.append(build.expr_from_pw_aff(e).to_C_str())
        return out


@dataclass(frozen=True)
class Statement:
    """One statement: an instance per point of ``domain``.

    ``body`` is the pycparser node to print (an expression, a block with
    private locals, or an ``if`` on data); ``iterators`` are the C names of
    the domain dimensions and ``renames`` maps C names in the body to the
    names they get in generated code (hoisted locals).
    """

    name: str
    domain: isl.Set
    body: c_ast.Node
    iterators: tuple[str, ...]
    iterator_types: tuple[str, ...]
    line: int
    reads: isl.UnionMap
    must_writes: isl.UnionMap
    may_writes: isl.UnionMap
    renames: dict[str, str] = field(default_factory=dict)
    # (name, C type) of the iterators of loops run as written in the body that are declared outside it and
    # dead after the region: kernels declare them in the statement (each thread its own)
    private_iterators: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Reference:
    """One array access written in a statement body: the C node (``A[i][k]``) and its relation
    ``{ S[i..] -> A[a..] }``.  A compound assignment ``A[i] += x`` gives a read and a write of the
    same node.  ``exact`` is False when a subscript could not be modelled (the relation then covers
    a whole dimension)."""

    statement: str
    array: str
    node: c_ast.Node
    is_write: bool
    must: bool
    exact: bool
    relation: isl.Map
    # for an inexact reference: the subscript that could not be modelled, why, and where it is, as
    # (construct, why, location) for a diagnostic ("subscript 'i * i' of 'A'", "is not affine", ...)
    unmodelled: tuple[str, str, Location] | None = None


@dataclass(frozen=True)
class Scop:
    """The model of one region."""

    region: Region
    context: isl.Set
    parameters: tuple[str, ...]
    statements: tuple[Statement, ...]
    arrays: tuple[Array, ...]
    schedule: isl.Schedule
    # C declarations to print before the generated block (region-level decls),
    # and hoisted locals to print at the top of it: (name in generated code, decl text)
    outer_declarations: tuple[str, ...] = ()
    hoisted_declarations: tuple[str, ...] = ()
    # the declarators of the region's top level, (line, column, name, their initialisation as an assignment
    # or ""), in order: the GPU targets declare them before the call (code after the region sees them) and
    # make them assignments in the original lines kept as the CPU fallback
    region_declarations: tuple[tuple[int, int, str, str], ...] = ()
    read_only_scalars: tuple[str, ...] = ()
    # loop iterators declared before the region: generated code does not set them
    # statements the region's generated code runs after it, and its original loops (the fallback) do not:
    # the rotations of a loop that rotated pointers and was unrolled (frontend/rotations.py), each as (the
    # loop's line, its C lines)
    epilogue: tuple[tuple[int, tuple[str, ...]], ...] = ()
    unrolled: tuple[str, ...] = ()  # the loops unrolled for it, described (--explain, -v)
    outer_iterators: tuple[str, ...] = ()
    iterator_type: str = "int"
    reserved_names: frozenset[str] = frozenset()
    # C types (typedefs resolved) of the parameters and read-only scalars
    scalar_types: dict[str, str] = field(default_factory=dict)
    # parameters of unsigned types: generated expressions read them as signed values (isl's n - 1 must not
    # wrap around when n is 0)
    unsigned_parameters: frozenset[str] = frozenset()
    # every array access of the bodies, array by array (for reference groups and promotion)
    references: tuple[Reference, ...] = ()
    # file-scope definitions (typedefs, structs, enums) the statements and arrays use, as C text in the
    # file's order: kernels in a separate unit (.cu, an OpenCL program) must repeat them
    type_declarations: tuple[str, ...] = ()
    # the lines of the region's file where those definitions start (file-scope code the GPU targets insert
    # into the generated C file, whose prototypes and host code name the types, goes after them)
    type_declaration_lines: tuple[int, ...] = ()
    # constructs the c target handles and the GPU targets cannot (a variable-length array private to a
    # statement: device code has none): (construct, location, why) for a located diagnostic
    device_unsupported: tuple[tuple[str, Location, str], ...] = ()
    # pure functions of the file the statements call, with their callees, callees first (copies without
    # storage class): kernels need them as device functions
    functions: tuple[c_ast.FuncDef, ...] = ()
    # early returns that remain possible: (condition on the parameters under which this return is the one
    # taken, the returned expression or None, where it is); at most one condition holds, and nothing of
    # the region runs after it, so the c target returns after the generated code
    returns: tuple[tuple[isl.Set, c_ast.Node | None, Location], ...] = ()
    # a return on data, in a region run as one statement (its returns become assignments, see
    # frontend/extract.py): the region-level variables it sets, (taken, the value or None); code after the
    # region returns the value when taken
    data_return: tuple[str, str | None] | None = None
    # the parameters for which the model holds, where it does not hold for all (a flat array's delinearised
    # view, ``A[i * lda + p]`` as ``A[i][p]`` where ``k <= lda``), within ``context``, which includes them: each
    # target runs its code only where they hold (checked at run time), and the original loops elsewhere
    assumed: isl.Set | None = None
    # why the model needs ``assumed``, each as a clause after "only there": "are the flat subscripts of 'A'
    # rows of a view that do not overlap", "do the subscripts through 'row' ... stay in that row"
    assumed_by: tuple[str, ...] = ()

    def parameter_ranges(self) -> isl.Set:
        """``context`` with each parameter within the range of its C type (:func:`integer_range`): the
        values it can take, where the type says."""
        bounds = {name: integer_range(self.scalar_types.get(name, "")) for name in self.parameters}
        return params_within(self.context, {name: b for name, b in bounds.items() if b is not None})

    @property
    def signed_names(self) -> dict[str, str]:
        """How expressions isl builds spell the parameters: those of unsigned types converted to the
        (signed) iterator type, since isl computes as on integers (n - 1 must be -1 when n is 0, and
        i <= n - 1 false then), which C's unsigned arithmetic would wrap around."""
        return {p: f"(({self.iterator_type}){p})" for p in sorted(self.unsigned_parameters)}

    def describe_assumed(self) -> str | None:
        """What --explain and -v say of ``assumed``."""
        if self.assumed is None:
            return None
        return (f"runs where {self.assumed_condition()} (checked at each call; the original loops run "
                f"elsewhere): only there {', and '.join(self.assumed_by)}")

    def assumed_condition(self) -> str | None:
        """``assumed`` as a C condition on the parameters (None where the model holds for all), written as
        a user would: ``lda >= k && ldb >= n``."""
        if self.assumed is None:
            return None
        universe = isl.Set.universe(self.assumed.get_space())
        pieces = coalesced(self.assumed).get_basic_sets()
        if any(p.dim(isl.dim_type.div) for p in pieces):
            return c_condition(self.assumed, universe, self.signed_names)
        disjuncts = []
        for piece in pieces:
            terms = [c_condition(isl.Set.from_basic_set(isl.BasicSet.universe(piece.get_space()).add_constraint(c)),
                                 universe, self.signed_names)[1:-1] for c in piece.get_constraints()]
            disjuncts.append(" && ".join(terms) if len(pieces) == 1 or len(terms) == 1 else f"({' && '.join(terms)})")
        return " || ".join(disjuncts)

    @property
    def domain(self) -> isl.UnionSet:
        result = isl.UnionSet.empty(self.context.get_space())
        for s in self.statements:
            result = result.union(isl.UnionSet.from_set(s.domain))
        return result

    def _union(self, attr: str) -> isl.UnionMap:
        result = isl.UnionMap.empty(self.context.get_space())
        for s in self.statements:
            result = result.union(getattr(s, attr))
        return result

    @property
    def reads(self) -> isl.UnionMap:
        return self._union("reads")

    @property
    def must_writes(self) -> isl.UnionMap:
        return self._union("must_writes")

    @property
    def may_writes(self) -> isl.UnionMap:
        """All writes, must and may."""
        return self._union("may_writes").union(self.must_writes)

    def written_arrays(self) -> tuple[Array, ...]:
        """The arrays (scalars written in the region included) some statement may write."""
        written = self.may_writes.range()
        return tuple(a for a in self.arrays
                     if not written.intersect(isl.UnionSet.from_set(a.footprint)).is_empty())

    def statement(self, name: str) -> Statement:
        for s in self.statements:
            if s.name == name:
                return s
        raise KeyError(name)
