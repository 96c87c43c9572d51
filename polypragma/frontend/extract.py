"""Extract the polyhedral model (:class:`polypragma.model.Scop`) of a region.

The region is a list of block items between the two pragmas.  Walking them
builds, for every statement, its iteration domain (the loops and affine
``if`` conditions around it), its accesses, and the original schedule tree:
a sequence node per block, a band per loop.

What is a statement: an expression statement; a block without loops that
declares locals (the locals are private to one instance); an ``if`` whose
condition reads data (its writes become may-writes); the initialisation of a
local declared in the region.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import islpy as isl
from pycparser import c_ast, c_generator

from polypragma.diagnostics import Location, Unsupported
from polypragma.frontend.accesses import EXTERNAL_STATE, AccessCollector, AccessRecord, ExitOnData, Subscript
from polypragma.frontend.arrays import build_arrays
from polypragma.frontend.c_tree import assigned_name, rewrite_children, subtree
from polypragma.frontend.exits import Exit, apply_exits
from polypragma.frontend.functions import FileFunctions, inline_call
from polypragma.frontend.library import PURE_FUNCTIONS, is_assert
from polypragma.frontend.normalise import is_break, normalise
from polypragma.frontend.loops import loop_domain, loop_step
from polypragma.frontend.affine import AffineBuilder, NonAffine, constant_value
from polypragma.frontend.symbols import EXTENDED_TYPES, Scope, TypeTable
from polypragma.isl_helpers import coalesced
from polypragma.model import Array, Scop, Statement, Variable, c_expression
from polypragma.scan import Region

_INT_RANK = {"int": 1, "long": 2, "long long": 3}


@dataclass
class _Loop:
    c_name: str
    dim: str  # dimension name in isl spaces (unique along a path)
    reverse: bool
    ctype: str
    unsigned: bool = False
    modulus: int | None = None  # an unsigned iterator that wraps around: its value is the dimension mod this


@dataclass
class _Walk:
    loops: list[_Loop]
    domain: isl.Set  # over the loops' dimensions, unnamed tuple
    scope: Scope


@dataclass
class _Frame:
    """A block being walked: where a ``goto`` finds its label, and what it may skip."""
    items: list[c_ast.Node]
    depth: int  # loops around the block
    index: int = 0  # the item being walked
    first: int = 0  # index in the walk's statements of the first statement of that item


@dataclass
class _Hoisted:
    variable: Variable
    new_name: str
    at_region_level: bool


class RegionExtractor:
    def __init__(self, ctx: isl.Context, region: Region, items: list[c_ast.Node], scope: Scope,
                 types: TypeTable, reserved_names: set[str], *, source_lines: list[str] | None = None,
                 used_outside: dict[str, c_ast.Node] | None = None,
                 origins: dict[str, list[c_ast.Node]] | None = None, goto_targets: frozenset[str] = frozenset(),
                 as_written: ExitOnData | None = None, result_type: c_ast.Node | None = None):
        self._arguments = (ctx, region, items, scope, types, reserved_names)
        self._options = dict(source_lines=source_lines, used_outside=used_outside, origins=origins,
                             goto_targets=goto_targets, result_type=result_type)
        # the type the enclosing function returns (its declarator's type), for the value of a return the model
        # cannot place (see _region_as_statement)
        self.result_type = result_type
        # such a return, as the region-level variables the region as one statement sets instead: (taken, value)
        self.data_return: tuple[str, str | None] | None = None
        # set when a return or goto could not be modelled (a condition on data): the region is one
        # statement, run as written
        self.as_written = as_written
        self.ctx = ctx
        self.source_lines = source_lines or []
        self.used_outside = used_outside or {}
        self.origins = origins or {}
        self.region = region
        self.functions = FileFunctions(types)
        globals_ = set()
        scope_chain = scope
        while scope_chain is not None:  # the outermost scope holds the file's globals
            if scope_chain.parent is None:
                globals_ = set(scope_chain.names)
            scope_chain = scope_chain.parent
        self.not_inlined: dict[str, str] = {}  # void functions whose calls could not be inlined, and why
        self.globals = globals_
        self.external: list[tuple[str, isl.Set, AffineBuilder, c_ast.Node]] = []  # statements calling them

        def inline(call: c_ast.FuncCall):
            if isinstance(call.name, c_ast.ID) and call.name.name in _HINTS:
                return None  # dropped by the walk, even where the file defines a stub of it
            result = inline_call(call, self.functions.definitions, types, globals_ - self._local_names(scope))
            if isinstance(result, str):
                self.not_inlined.setdefault(call.name.name, result)
            return result

        # a label of the region that only gotos outside it target: the generated code would lose it
        inside = {n.name for item in items for n in subtree(item) if isinstance(n, c_ast.Goto)}
        for item in items:
            for n in subtree(item):
                if isinstance(n, c_ast.Label) and n.name in goto_targets and n.name not in inside:
                    raise Unsupported(f"label '{n.name}'", self.location(n),
                                      "is the target of a 'goto' outside the region; not supported")
        self.notes: dict[int, str] = {}  # why normalise left a statement as it was (by id)
        self.items = normalise(items, set(goto_targets), inline, set(self.used_outside), self.notes)
        self.outer = scope
        self.types = types
        self.reserved = set(reserved_names)
        self.statements: list[Statement] = []
        self.records: list[AccessRecord] = []
        self.read_only_scalars: set[str] = set()
        self.hoisted: dict[int, _Hoisted] = {}  # id(Variable.decl) -> hoisting
        self.hoisted_names: set[str] = set()
        self.outer_declarations: list[str] = []
        self.region_declarations: list[tuple[int, int, str, str]] = []  # see Scop.region_declarations
        self.hoisted_declarations: list[str] = []
        self.written: set[str] = set()
        self.declared_inside: set[str] = set()
        self.outer_iterators: set[str] = set()  # loop iterators declared before the region
        self.params: list[str] = []
        self.iterator_ctypes: list[str] = []
        self.device_unsupported: list[tuple] = []
        # iterators declared before the region, after a loop of the region's top level that leaves them
        # with a value the model knows (a function of the parameters), and not assigned otherwise
        self.exit_values: dict[str, isl.PwAff] = {}
        self.called: dict[str, c_ast.Node] = {}
        self.checked: set[int] = set()  # blocks of an assert and its statement (_with_asserts_joined)
        # returns and gotos: pseudo-statements (R_k and G_k, in self.statements while the walk builds the
        # schedule) whose instances are the points where they are reached and taken (frontend/exits.py)
        self.exits: list[Exit] = []
        self._frames: list[_Frame] = []
        self._pending: dict[str, list[Exit]] = {}  # gotos whose label the walk has not reached yet
        self._prepass()

    # -- locations and errors --------------------------------------------
    def location(self, node: c_ast.Node | None) -> Location:
        if node is None or node.coord is None:
            return self.region.location
        line, column = node.coord.line, node.coord.column or 1
        if isinstance(node, c_ast.UnaryOp) and node.op in ("*", "&", "-", "+", "!", "~") \
                and 0 < line <= len(self.source_lines):
            # pycparser places a prefix operator at its operand: find the operator itself
            text = self.source_lines[line - 1]
            k = min(column - 1, len(text)) - 1
            while k >= 0 and text[k] in " \t(":
                k -= 1
            if k >= 0 and text[k] == node.op:
                column = k + 1
        return Location(str(node.coord.file), line, column)

    def unsupported(self, construct: str, node: c_ast.Node | None, why: str = "is not supported") -> Unsupported:
        return Unsupported(construct, self.location(node), why)

    def not_affine(self, construct: str, exc: NonAffine, walk: "_Walk") -> Unsupported:
        """The diagnostic for ``construct`` that failed to be affine because of ``exc``."""
        reason = exc.what
        if isinstance(exc.node, c_ast.ID):
            name = exc.node.name
            variable = walk.scope.lookup(name)
            if name in self.outer_iterators and name not in {l.c_name for l in walk.loops}:
                reason = f"loop iterator '{name}' is used outside its loop"
            elif variable is not None and variable.declared_in_region:
                reason = f"'{name}' is a variable of the region"
            elif name in self.written:
                reason = f"'{name}' is written in the region"
            elif variable is None:
                reason = f"'{name}' is not a known integer variable"
            elif not (variable.ctype.is_scalar and variable.ctype.is_integer):
                reason = f"'{name}' is not an integer scalar"
        return Unsupported(construct, self.location(exc.node), f"is not affine: {reason}")

    def check_requirements(self, builder: AffineBuilder, points: isl.Set, construct: str) -> None:
        """Unsigned comparisons and conversions must see no negative value where they run."""
        for required, node in builder.requirements:
            if not points.is_subset(required) and self._unsigned_parameters(points).is_subset(required):
                # exact because parameters of unsigned types are not negative (the context says so); every
                # target spells them converted to the signed iterator type in the expressions isl builds
                # (Scop.signed_names)
                continue
            if not points.is_subset(required):
                raise self.unsupported(f"{construct} '{_text(node)}'", node,
                                       "mixes unsigned values with values that may be negative; "
                                       "not supported (C would wrap them around)")
        builder.requirements.clear()

    # -- the pre-pass: who is written, who is a parameter -----------------
    def _prepass(self) -> None:
        referenced: list[str] = []

        def lvalue_name(node: c_ast.Node) -> str | None:
            while isinstance(node, c_ast.ArrayRef):
                node = node.name
            return node.name if isinstance(node, c_ast.ID) else None

        def visit(node: c_ast.Node) -> None:
            if isinstance(node, c_ast.Assignment):
                name = lvalue_name(node.lvalue)
                if name:
                    self.written.add(name)
            elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
                name = lvalue_name(node.expr)
                if name:
                    self.written.add(name)
            elif isinstance(node, c_ast.Decl) and node.name:
                self.declared_inside.add(node.name)
            elif isinstance(node, c_ast.For) and isinstance(node.init, c_ast.Assignment):
                name = lvalue_name(node.init.lvalue)
                if name:
                    self.outer_iterators.add(name)
            elif isinstance(node, c_ast.ID):
                if node.name not in referenced:
                    referenced.append(node.name)
            elif isinstance(node, c_ast.FuncCall):
                # the callee's name is not a variable reference
                if node.args is not None:
                    visit(node.args)
                return
            for _, child in node.children():
                visit(child)

        for item in self.items:
            visit(item)
        self._assigned_in_statements = _assigned_outside_loop_headers(self.items)
        # the sizes of variable-length arrays used in the region are parameters too (the GPU targets
        # need the extents), even when the region itself never names them
        for name in list(referenced):
            variable = self.outer.lookup(name)
            if variable is not None and not variable.ctype.is_scalar:
                for dim in variable.ctype.dims:
                    if dim is not None:
                        visit(dim)
        for name in referenced:
            if name in self.written or name in self.declared_inside:
                continue
            variable = self.outer.lookup(name)
            if variable is not None and variable.ctype.is_scalar and variable.ctype.is_integer:
                self.params.append(name)

    # -- name resolution -------------------------------------------------
    def _resolver(self, walk: _Walk, extra: list[_Loop] | None = None):
        loops = walk.loops + (extra or [])

        def resolve(name: str):
            for position in range(len(loops) - 1, -1, -1):
                if loops[position].c_name == name:
                    if loops[position].modulus:
                        return ("wrapped", (position, loops[position].modulus))
                    return ("dim", position)
            local = walk.scope.lookup(name)
            if local is not None and local.declared_in_region:
                return None
            if name in self.exit_values:
                return ("value", self.exit_values[name])
            if name in self.params:
                return ("param", self.params.index(name))
            if name in self.types.enumerators:
                return ("const", self.types.enumerators[name])
            return None

        return resolve

    def _builder(self, walk: _Walk, extra: list[_Loop] | None = None) -> AffineBuilder:
        loops = walk.loops + (extra or [])

        def is_unsigned(name: str) -> bool:
            for loop in reversed(loops):
                if loop.c_name == name:
                    return loop.unsigned
            variable = self.outer.lookup(name) if name in self.params else None
            return variable is not None and variable.ctype.is_unsigned

        return AffineBuilder(self.ctx, self.params, [l.dim for l in loops], self._resolver(walk, extra),
                             is_unsigned)

    def _classify(self, walk: _Walk):
        loop_names = {l.c_name for l in walk.loops}

        def classify(name: str, variable: Variable | None) -> str | None:
            if name in loop_names:
                return "iterator"
            if variable is None:
                if name in self.types.enumerators:
                    return "const"
                if name in PURE_FUNCTIONS:
                    return "function"
                return None
            if isinstance(variable.decl, c_ast.Decl) and isinstance(variable.decl.type, c_ast.FuncDecl):
                return "function"
            if variable.declared_in_region:
                return "array"
            if name in self.exit_values:
                return "exit"
            if name in self.outer_iterators:
                return "stale-iterator"
            if variable.ctype.is_scalar:
                if name in self.written:
                    return "array"
                if name in self.params:
                    return "param"
                return "scalar-ro"
            return "array"

        return classify

    def _model_name(self, variable: Variable) -> str:
        if variable.decl is not None and id(variable.decl) in self.hoisted:
            return self.hoisted[id(variable.decl)].new_name
        return variable.name

    # -- walking -----------------------------------------------------------
    def extract(self) -> Scop:
        try:
            return self._extract()
        except ExitOnData as exc:
            if self.as_written is not None:
                raise
            # a return or goto the model cannot place: the region is one statement, run as written
            return RegionExtractor(*self._arguments, **self._options, as_written=exc)._extract()

    def _extract(self) -> Scop:
        universe = isl.Set.universe(isl.Space.create_from_names(self.ctx, set=[], params=self.params))
        walk = _Walk([], universe, self.outer.child())
        if self.as_written is not None:
            schedule = self._region_as_statement(walk)
        else:
            schedule = self._block(self.items, walk, region_level=True)
        if self._pending:
            name, pending = next(iter(self._pending.items()))
            raise ExitOnData(f"'goto {name}'", self.location(pending[0].node),
                             "jumps to a label that is not later in a block holding it")
        returns = ()
        if self.exits:
            schedule, returns = self._exits(schedule)
        if schedule is None:
            schedule = isl.Schedule.from_domain(isl.UnionSet.empty(universe.get_space().params()))
        self._external_globals()
        self._check_aliases()
        self._extended_types()
        arrays, statements, references = self._finish()
        context = self._context(arrays)
        functions = tuple(self.functions.device_definition(f) for f in self.functions.callees(set(self.called)))
        iterator_type = "int"
        for t in self.iterator_ctypes + [self.outer.lookup(p).ctype.base for p in self.params if self.outer.lookup(p)]:
            iterator_type = _wider(iterator_type, t)
        used_types = self.types.used_definitions(
            [s.body for s in statements] + list(functions)
            + [v.decl.type for v in self._accessed_variables() if v.decl is not None])
        return Scop(
            region=self.region,
            context=context,
            parameters=tuple(self.params),
            statements=tuple(statements),
            arrays=tuple(arrays),
            schedule=schedule,
            outer_declarations=tuple(self.outer_declarations),
            region_declarations=tuple(self.region_declarations),
            hoisted_declarations=tuple(self.hoisted_declarations),
            read_only_scalars=tuple(sorted(self.read_only_scalars)),
            outer_iterators=tuple(sorted(n for n in self.outer_iterators if self.outer.lookup(n) is not None)),
            iterator_type=iterator_type,
            reserved_names=frozenset(self.reserved),
            references=references,
            device_unsupported=tuple(self.device_unsupported),
            unsigned_parameters=frozenset(p for p in self.params if self.outer.lookup(p) is not None
                                          and self.outer.lookup(p).ctype.is_unsigned),
            functions=functions,
            type_declarations=tuple(d.text for d in used_types),
            type_declaration_lines=tuple(d.line for d in used_types if d.file == self.region.file),
            scalar_types={name: self.outer.lookup(name).ctype.resolved or self.outer.lookup(name).ctype.base
                          for name in [*self.params, *sorted(self.read_only_scalars)]},
            returns=returns,
            data_return=self.data_return,
        )

    def _exits(self, schedule: isl.Schedule) -> tuple[isl.Schedule | None, tuple]:
        """Cut the domains where a return or goto was taken before (frontend/exits.py).  A return that
        remains possible is returned with its condition on the parameters and the expression to return,
        for the c target to print after the generated code."""
        gotos = [e for e in self.exits if isinstance(e.node, c_ast.Goto)]
        for a in gotos:
            for b in gotos:
                if a.first < b.first < a.end < b.end:
                    raise ExitOnData(f"'goto {a.node.name}'", self.location(a.node),
                                     f"skips a part of what 'goto {b.node.name}' (line {b.node.coord.line}) skips")
        self.statements, schedule, taken = apply_exits(self.statements, schedule, self.exits)
        returns = []
        for exit in self.exits:
            if isinstance(exit.node, c_ast.Return) and not taken[exit.name].is_empty():
                returns.append((coalesced(taken[exit.name].params()), exit.node.expr, self.location(exit.node)))
        return schedule, tuple(returns)

    def _region_as_statement(self, walk: _Walk) -> isl.Schedule | None:
        """The region as one statement run as written (a return or goto on data is in it): its
        declarations are hoisted as at the top of any region, their initialisations assignments of it."""
        body: list[c_ast.Node] = []
        for item in self.items:
            decls = [item] if isinstance(item, c_ast.Decl) else item.decls if isinstance(item, c_ast.DeclList) else None
            if decls is None:
                body.append(item)
                continue
            for decl in decls:
                self._declaration(decl, walk, region_level=True, initialise=False)
                if decl.init is not None:
                    body.append(c_ast.Assignment("=", c_ast.ID(decl.name, coord=decl.coord), decl.init,
                                                 coord=decl.coord))
        for item in self.items:
            for decl in ([item] if isinstance(item, c_ast.Decl) else item.decls if isinstance(item, c_ast.DeclList)
                         else []):
                if isinstance(decl.init, c_ast.InitList):
                    raise self.unsupported(f"initializer list of '{decl.name}'", decl)
        coord = self.items[0].coord if self.items else None
        if any(isinstance(n, c_ast.Return) for item in body for n in subtree(item)):
            body = self._returns_as_flags(body, walk, coord)
        return self._statement(c_ast.Compound(body, coord=coord), walk, exits=True)

    def _returns_as_flags(self, body: list[c_ast.Node], walk: _Walk, coord) -> list[c_ast.Node]:
        """The region run as written, its returns made assignments of region-level variables, as kernels
        can run it: ``return e;`` becomes ``{ value = e; taken = 1; goto end; }`` with a label ``end`` closing
        the region, whose code after it returns ``value`` when ``taken`` (``Scop.data_return``; the CPU
        fallback of the GPU targets keeps the returns as written).  A value of a type that is not a number
        (a pointer, a struct) leaves the region to the c target, as before."""
        valued = [n for item in body for n in subtree(item) if isinstance(n, c_ast.Return) and n.expr is not None]
        ctype = self.types.ctype(self.result_type) if valued and self.result_type is not None else None
        if valued and (ctype is None or ctype.pointer_depth or ctype.dims
                       or not (ctype.is_integer or ctype.is_float)):
            self.device_unsupported.append((
                self.as_written.construct, self.as_written.location,
                f"{self.as_written.why}; the region is run as written on the c target, not supported by the GPU "
                "targets (they return only numbers from a region)"))
            return body
        # (named after the region: two regions of a function declare theirs in the same block)
        stem = f"polypragma_region{self.region.index}"
        taken, end = self._fresh(f"{stem}_returned"), f"{stem}_return"
        names = [(taken, c_ast.TypeDecl(taken, [], None, c_ast.IdentifierType(["int"])))]
        value = None
        if valued:
            value = self._fresh(f"{stem}_value")
            declarator = copy.deepcopy(self.result_type)
            node = declarator
            while not isinstance(node, c_ast.TypeDecl):
                node = node.type
            node.declname = value
            names.append((value, declarator))
        for name, declarator in names:
            # declared before the region (code after it reads them), 0 there: the CPU fallback never sets them
            self._declaration(c_ast.Decl(name, [], [], [], [], declarator, None, None), walk, region_level=True,
                              initialise=False)
            self.outer_declarations[-1] = self.outer_declarations[-1][:-1] + " = 0;"

        def assign(name: str, expr: c_ast.Node) -> c_ast.Node:
            return c_ast.Assignment("=", c_ast.ID(name, coord=expr.coord), expr, coord=expr.coord)

        def rewrite(node: c_ast.Node) -> c_ast.Node:
            if isinstance(node, c_ast.Return):
                items = [assign(value, node.expr)] if node.expr is not None else []
                items += [assign(taken, c_ast.Constant("int", "1", coord=node.coord)),
                          c_ast.Goto(end, coord=node.coord)]
                return c_ast.Compound(items, coord=node.coord)
            return rewrite_children(node, rewrite)

        self.data_return = (taken, value)
        zero = c_ast.Constant("int", "0", coord=coord)
        return ([c_ast.Assignment("=", c_ast.ID(taken, coord=coord), zero, coord=coord)]
                + [rewrite(copy.deepcopy(item)) for item in body] + [c_ast.Label(end, c_ast.EmptyStatement())])

    def _return(self, node: c_ast.Return, walk: _Walk) -> isl.Schedule | None:
        """A ``return`` where the enclosing conditions are affine: a pseudo-statement whose instances
        are the points where it is reached (see :meth:`_exits`).  Its value is computed after
        the generated code, when nothing else has run since: one naming the region's iterators or locals,
        which have no value there, makes the region one statement run as written."""
        loop_names = {l.c_name for l in walk.loops}
        for child in subtree(node.expr) if node.expr is not None else ():
            if isinstance(child, c_ast.ID):
                variable = walk.scope.lookup(child.name)
                if child.name in loop_names or child.name in self.outer_iterators \
                        or (variable is not None and variable.declared_in_region):
                    raise ExitOnData(
                        f"'return {_text(node.expr)}'", self.location(child),
                        f"returns a value computed from '{child.name}', a loop iterator or local of the region")
        if walk.domain.is_empty():
            return None
        return self._exit(node, walk, "R", 0, 0)

    def _exit(self, node: c_ast.Node, walk: _Walk, prefix: str, depth: int, first: int) -> isl.Schedule | None:
        name = f"{prefix}_{len(self.statements)}"
        domain = walk.domain.set_tuple_name(name)
        empty = isl.UnionMap.empty(domain.get_space().params())
        self.statements.append(Statement(
            name=name, domain=domain, body=node, iterators=tuple(l.c_name for l in walk.loops),
            iterator_types=tuple(l.ctype for l in walk.loops),
            line=node.coord.line if node.coord else self.region.begin_line,
            reads=empty, must_writes=empty, may_writes=empty))
        exit = Exit(name, node, depth, first, None if prefix == "R" else 0)
        self.exits.append(exit)
        if isinstance(node, c_ast.Goto):
            self._pending.setdefault(node.name, []).append(exit)
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domain))

    def _goto(self, node: c_ast.Goto, walk: _Walk) -> isl.Schedule | None:
        """A ``goto`` to a label later in a block that holds it (see frontend/exits.py): it skips the
        statements of that block from the item holding it up to the label, in the same iterations of the
        loops around the block."""
        for frame in reversed(self._frames):
            if any(isinstance(item, c_ast.Label) and item.name == node.name for item in frame.items[frame.index + 1:]):
                if walk.domain.is_empty():
                    return None
                return self._exit(node, walk, "G", frame.depth, frame.first)
        raise ExitOnData(f"'goto {node.name}'", self.location(node),
                         "jumps to a label that is not later in a block holding it")

    def _external_globals(self) -> None:
        """A function without a body may reach the file's globals: a statement calling one reads and may
        write every global the region accesses (accesses.py models its arguments)."""
        if not self.external:
            return
        root = self.outer
        while root.parent is not None:
            root = root.parent
        declared = {id(v.decl) for v in root.names.values() if v.decl is not None}
        accessed: dict[str, AccessRecord] = {}
        for record in self.records:
            # a global, or a member of a global struct (p__x shares the declaration of p)
            if record.variable is not EXTERNAL_STATE and id(record.variable.decl) in declared \
                    and not record.variable.declared_in_region:
                accessed.setdefault(record.name, record)
        for name, domain, builder, call in self.external:
            for record in accessed.values():
                whole = [Subscript(None, None, call)] * record.variable.ctype.rank
                for is_write in (False, True):
                    self.records.append(AccessRecord(name, record.variable, record.name, is_write, False, whole,
                                                     domain, builder, call))

    def _extended_types(self) -> None:
        """Values of GCC's extended types (``_Float16``, ``__float128``...): the c target keeps them as
        written; CUDA and OpenCL kernels have no such types (their half types differ), so the GPU
        targets refuse them, at the first use."""
        uses = [(record.variable.ctype.resolved or record.variable.ctype.base, record.node)
                for record in self.records]
        for statement in self.statements:
            uses += [(name, node) for node in subtree(statement.body) if isinstance(node, c_ast.Cast)
                     for name in _identifier_types(node.to_type)]
        for name, node in uses:
            if name in EXTENDED_TYPES:
                self.device_unsupported.append((f"value of type '{name}'", self.location(node),
                                                "is not supported by the GPU targets"))
                return

    def _check_aliases(self) -> None:
        """The model takes distinct arrays for disjoint memory.  A pointer set from another array the
        region accesses (``double *B = A + 1;``) breaks that when the region writes either: its
        dependences would be missed, so the region is refused (it once gave wrong results)."""
        accessed: dict[str, list] = {}
        for record in self.records:
            if not record.variable.declared_in_region:
                accessed.setdefault(record.variable.name, []).append(record)
        for name, records in accessed.items():
            variable = records[0].variable
            if variable.ctype.pointer_depth == 0:
                continue
            values = list(self.origins.get(name, []))
            if isinstance(variable.decl, c_ast.Decl) and variable.decl.init is not None:
                values.append(variable.decl.init)
            for value in values:
                sources = [n.name for n in subtree(value) if isinstance(n, c_ast.ID)
                           and n.name != name and n.name in accessed]
                for source in sources:
                    written = [r for r in records + accessed[source] if r.is_write]
                    if not written:
                        continue
                    first = written[0]
                    line = value.coord.line if value.coord is not None else "?"
                    raise self.unsupported(
                        f"pointer '{name}'", first.node,
                        f"is set from '{source}' at line {line} ('{_text(value)}') and may alias it, and the "
                        f"region writes '{first.variable.name}': not supported (the model takes different "
                        "arrays to be disjoint)")

    def _accessed_variables(self) -> list[Variable]:
        seen: dict[str, Variable] = {}
        for record in self.records:
            seen.setdefault(record.name, record.variable)
        for name in [*self.params, *sorted(self.read_only_scalars)]:
            variable = self.outer.lookup(name)
            if variable is not None:
                seen.setdefault(name, variable)
        return list(seen.values())

    def _block(self, items: list[c_ast.Node], walk: _Walk, region_level: bool = False) -> isl.Schedule | None:
        pieces = []
        items = self._with_asserts_joined(items)
        frame = _Frame(items, len(walk.loops))
        self._frames.append(frame)
        try:
            for k, item in enumerate(items):
                frame.index, frame.first = k, len(self.statements)
                if isinstance(item, c_ast.Label):
                    # the gotos to it skip up to here
                    for exit in self._pending.pop(item.name, []):
                        exit.end = len(self.statements)
                piece = self._item(item, walk, region_level)
                if piece is not None:
                    pieces.append(piece)
        finally:
            self._frames.pop()
        return _sequence(pieces)

    def _with_asserts_joined(self, items: list[c_ast.Node]) -> list[c_ast.Node]:
        """``items`` with each assert that a simple statement follows (an assignment, an increment) joined
        with it into a block that is one statement (noted in ``checked``): the check runs where the
        statement does, in the same kernel, and reads its data there, rather than in a statement the
        scheduler may place in a kernel of its own."""
        out: list[c_ast.Node] = []
        k = 0
        while k < len(items):
            item = items[k]
            following = items[k + 1] if k + 1 < len(items) else None
            if is_assert(item) and isinstance(following, (c_ast.Assignment, c_ast.UnaryOp)):
                joined = c_ast.Compound([item, following], coord=item.coord)
                self.checked.add(id(joined))
                out.append(joined)
                k += 2
            else:
                out.append(item)
                k += 1
        return out

    def _item(self, node: c_ast.Node, walk: _Walk, region_level: bool) -> isl.Schedule | None:
        if isinstance(node, (c_ast.EmptyStatement, c_ast.Pragma)) or node is None:
            return None
        if id(node) in self.checked:
            return self._statement(node, walk)
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name in _HINTS:
            # a hint to the compiler (pet's and PENCIL's assumptions and kills): no effect on what runs
            return None
        if isinstance(node, c_ast.Decl):
            return self._declaration(node, walk, region_level)
        if isinstance(node, c_ast.DeclList):
            return _sequence([p for p in (self._declaration(d, walk, region_level) for d in node.decls) if p])
        if isinstance(node, c_ast.For):
            return self._for(node, walk)
        if isinstance(node, c_ast.If):
            return self._if(node, walk)
        if isinstance(node, c_ast.Compound):
            items = node.block_items or []
            has_decls = any(isinstance(i, c_ast.Decl) for i in items)
            if has_decls and not _contains_for(node) and not self._variable_size_hoistable(items):
                # its locals private to each instance; a while loop in it is run as written anyway
                return self._statement(node, walk)
            inner = _Walk(walk.loops, walk.domain, walk.scope.child())
            return self._block(items, inner)
        if isinstance(node, (c_ast.While, c_ast.DoWhile)):
            # not a counted loop (normalise.py made those 'for' loops): one statement, run as written, its
            # accesses those of its condition and body (may-writes)
            return self._statement(node, walk)
        if isinstance(node, c_ast.Goto):
            return self._goto(node, walk)
        if isinstance(node, c_ast.Label):
            # a label some goto targets (normalise.py dropped the others): the goto ends its range here
            # when the label is an item of a block (_block), else it is not found and the region runs
            # as written
            return self._item(node.stmt, walk, region_level)
        if isinstance(node, (c_ast.Break, c_ast.Continue)):
            raise self.unsupported(f"'{type(node).__name__.lower()}' statement", node)
        if isinstance(node, c_ast.Return):
            return self._return(node, walk)
        if isinstance(node, c_ast.Switch):
            raise self.unsupported("'switch' statement", node, self.notes.get(id(node), "is not supported"))
        return self._statement(node, walk)

    def _variable_size_hoistable(self, items: list[c_ast.Node]) -> bool:
        """Whether a block declares an array of variable size that can be hoisted (its size reads constants
        and parameters only): the block is then walked as blocks with loops are, the array an array of the
        model that the GPU targets privatise per thread (kernels have no variable-length arrays, so a
        statement declaring one could not run there)."""
        found = False
        for item in items:
            if not isinstance(item, c_ast.Decl) or isinstance(item.type, c_ast.FuncDecl):
                continue
            dims = self.types.ctype(item.type).dims
            if all(d is not None and constant_value(d, self.types.enumerators) is not None for d in dims):
                continue
            if any(d is None or not self._hoistable_size(d) for d in dims) or item.init is not None:
                return False
            found = True
        return found

    def _hoistable_size(self, dim: c_ast.Node) -> bool:
        """Whether an array extent means the same at the top of the region: constants and parameters."""
        return all(isinstance(n, c_ast.Constant) or (isinstance(n, c_ast.ID) and (
            n.name in self.params or n.name in self.types.enumerators))
            for n in subtree(dim) if isinstance(n, (c_ast.ID, c_ast.Constant))) \
            and not any(isinstance(n, (c_ast.FuncCall, c_ast.ArrayRef, c_ast.Assignment)) for n in subtree(dim))

    def _declaration(self, decl: c_ast.Decl, walk: _Walk, region_level: bool,
                     initialise: bool = True) -> isl.Schedule | None:
        if isinstance(decl.type, c_ast.FuncDecl) or "typedef" in (decl.storage or []):
            raise self.unsupported("declaration of a function or type", decl)
        if "static" in (decl.storage or []):
            raise self.unsupported(f"static local '{decl.name}'", decl)
        ctype = self.types.ctype(decl.type)
        for dim in ctype.dims:
            # hoisted to the top of the region, its size must mean the same there: constants and
            # parameters (integers the region does not write) only
            if dim is None or not self._hoistable_size(dim):
                raise self.unsupported(f"array '{decl.name}' of variable size declared", decl,
                                       "in the region is not supported (its size may only use constants and "
                                       "parameters of the region)")
        if ctype.pointer_depth:
            raise self.unsupported(f"pointer '{decl.name}' declared", decl, "in the region is not supported")
        variable = Variable(decl.name, ctype, True, decl)
        walk.scope.add(variable)
        new_name = decl.name
        if not region_level:
            new_name = self._fresh(decl.name)
        self.reserved.add(new_name)
        self.hoisted_names.add(new_name)
        self.hoisted[id(decl)] = _Hoisted(variable, new_name, region_level)
        text = _declaration_text(decl, new_name)
        (self.outer_declarations if region_level else self.hoisted_declarations).append(text)
        if region_level and decl.coord is not None:
            initialised = f"{decl.name} = {_GENERATOR.visit(decl.init)};" if decl.init is not None else ""
            self.region_declarations.append((decl.coord.line, decl.coord.column or 1, decl.name, initialised))
        if decl.init is None or not initialise:
            return None
        if isinstance(decl.init, c_ast.InitList):
            raise self.unsupported(f"initializer list of '{decl.name}'", decl)
        assign = c_ast.Assignment("=", c_ast.ID(decl.name, coord=decl.coord), decl.init, coord=decl.coord)
        return self._statement(assign, walk)

    def _fresh(self, name: str) -> str:
        """A name for a hoisted local that hides nothing the region sees and no other hoisted local."""
        def taken(candidate: str) -> bool:
            return (candidate in self.hoisted_names or self.outer.lookup(candidate) is not None
                    or candidate in self.params or candidate in self.outer_iterators)

        if not taken(name):
            return name
        k = 1
        while taken(f"{name}_{k}") or f"{name}_{k}" in self.reserved:
            k += 1
        return f"{name}_{k}"

    # -- loops ---------------------------------------------------------------
    def _for(self, node: c_ast.For, walk: _Walk) -> isl.Schedule | None:
        scope = walk.scope.child()
        name, init, ctype_base, unsigned = self._loop_init(node, scope, walk)
        step = loop_step(node, name, self.types.enumerators)
        if not step:
            nxt = node.next
            what = f"loop increment '{_text(nxt)}'" if nxt is not None else "'for' loop without increment"
            raise self.unsupported(what, nxt if nxt is not None else node,
                                   "is not supported (it must add a non-zero constant to the iterator)")
        if node.cond is None:
            raise self.unsupported("'for' loop without a condition", node)
        dim = name
        used = {l.dim for l in walk.loops}
        k = 1
        while dim in used:
            dim = f"{name}_{k}"
            k += 1
        loop = _Loop(name, dim, step < 0, ctype_base, unsigned)
        modulus = _wrap_modulus(scope.lookup(name).ctype) if unsigned else None
        try:
            return self._for_loop(node, walk, scope, loop, init, step)
        except _Wraps:
            if modulus is None:
                raise
        # an unsigned iterator whose plain progression leaves its type's range (unsigned char k = 252;
        # k != 2; ++k): C wraps it around; model the progression by a counter whose value mod 2^w is
        # the iterator, as pet does
        loop.modulus = modulus
        return self._for_loop(node, walk, scope, loop, init, step)

    def _for_loop(self, node: c_ast.For, walk: _Walk, scope: Scope, loop: _Loop, init: c_ast.Node,
                  step: int) -> isl.Schedule | None:
        name, dim, unsigned, ctype_base = loop.c_name, loop.dim, loop.unsigned, loop.ctype
        inner_walk = _Walk(walk.loops, walk.domain, scope)
        builder = self._builder(inner_walk, [loop])
        position = len(walk.loops)
        try:
            lower = builder.pwaff(init)
        except NonAffine as exc:
            if self._opaque_loop(node, name, walk):
                return self._statement(node, walk)  # a start on data (k = rowptr[i]): as for a bound
            raise self.not_affine(f"loop start '{_text(init)}'", exc, inner_walk) from None
        if lower.involves_dims(isl.dim_type.in_, position, 1):
            raise self.unsupported(f"loop start '{_text(init)}' using its own iterator", init)
        outer_points = walk.domain.add_dims(isl.dim_type.set, 1).set_dim_name(isl.dim_type.set, position, dim)
        if unsigned and not loop.modulus:
            builder.requirements.append((lower.nonneg_set(), init))
        self.check_requirements(builder, outer_points, "loop start")
        try:
            condition = builder.condition(node.cond)
        except NonAffine as exc:
            if self._opaque_loop(node, name, walk):
                # a bound on data (j < len[i], j < f(n)): the loop is one statement of its own, its
                # iterator private, its accesses over the elements its subscripts may reach
                return self._statement(node, walk)
            raise self.not_affine(f"loop condition '{_text(node.cond)}'", exc, inner_walk) from None
        domain, evaluated = loop_domain(builder, walk.domain, position, lower, condition, step)
        wraps = unsigned and not loop.modulus
        if not domain.is_bounded():
            raise (_Wraps if wraps else Unsupported)(f"loop '{name}' with no bound on its iterations",
                                                     self.location(node))
        if wraps:
            modulus = _wrap_modulus(scope.lookup(name).ctype)
            in_range = builder.dim(position).nonneg_set().intersect(
                builder.dim(position).lt_set(builder.constant(modulus or 0)))
            if modulus is not None and modulus < 2 ** 32 and not evaluated.is_subset(in_range):
                # the plain progression leaves the type's range: C would wrap it around
                raise _Wraps(f"loop '{name}' of type '{ctype_base}'", self.location(node),
                             "leaves the range of its type and wraps around, without a bound on its iterations")
        self.check_requirements(builder, evaluated, "loop condition")
        self.iterator_ctypes.append(ctype_base)
        first = len(self.statements)
        body_walk = _Walk(walk.loops + [loop], domain, scope)
        if self._breaks_on_data(node, body_walk):
            # where the loop stops depends on data: one statement, run as written (as a bound on data)
            return self._statement(node, walk)
        self._breaks_taken = None
        child = self._loop_body(node.stmt, body_walk, loop, position)
        breaks_taken, self._breaks_taken = self._breaks_taken, None
        if child is None:
            return None
        partial = None
        for statement in self.statements[first:]:
            pa = isl.PwAff.from_aff(isl.Aff.var_on_domain(
                isl.LocalSpace.from_space(statement.domain.get_space()), isl.dim_type.set, position))
            if loop.reverse:
                pa = pa.neg()
            piece = isl.UnionMap.from_map(isl.Map.from_pw_aff(pa))
            partial = piece if partial is None else partial.union(piece)
        if loop.modulus:
            self.exit_values.pop(name, None)  # not modelled for a wrapping iterator: a stale value after it
        elif _leaves_early(node.stmt, breaks=breaks_taken is None):
            # a goto (or a break the model did not place) may leave it before its condition fails
            self.exit_values.pop(name, None)
        else:
            self._exit_value(node, name, walk, domain, lower, step, position, breaks_taken)
        if partial is None:
            return child
        return child.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(partial))

    def _exit_value(self, node: c_ast.For, name: str, walk: _Walk, domain: isl.Set, lower: isl.PwAff,
                    step: int, position: int, breaks_taken: isl.Set | None = None) -> None:
        """Record the value a loop of the region's top level leaves in an iterator declared before the
        region: the first value of its progression that fails the condition, i.e. the last iteration
        plus the step, or the start when it runs no iteration; where a break is taken (``breaks_taken``,
        the iteration it is taken at, if any), that iteration's value (a break skips the step)."""
        self.exit_values.pop(name, None)
        if walk.loops or not isinstance(node.init, c_ast.Assignment) or name in self._assigned_in_statements:
            return
        # { [] -> [i] : i in the loop }: its last iteration as a function of the parameters
        iterations = isl.Map.from_range(domain)
        last = iterations.lexmin() if step < 0 else iterations.lexmax()
        last_value = isl.PwMultiAff.from_map(last).get_pw_aff(0).add_constant_val(
            isl.Val(str(step), context=self.ctx))
        start = lower.drop_dims(isl.dim_type.in_, position, 1)  # it does not involve the iterator
        none = walk.domain.subtract(last_value.domain())
        value = coalesced(last_value.union_max(start.intersect_domain(none)))
        if breaks_taken is not None and not breaks_taken.is_empty():
            stops = isl.Map.from_range(breaks_taken)
            stop = isl.PwMultiAff.from_map(stops.lexmax() if step < 0 else stops.lexmin()).get_pw_aff(0)
            value = coalesced(stop.union_max(value.intersect_domain(walk.domain.subtract(stop.domain()))))
        self.exit_values[name] = value

    def _opaque_loop(self, node: c_ast.For, name: str, walk: _Walk) -> bool:
        """Whether a loop whose condition is not affine can be one statement: its condition reads data
        (not a written scalar or a stale iterator, which the diagnostics explain), its iterator is not
        read after the region, nor are those of the loops it holds (run as written inside it too)."""
        if name in self.used_outside or any(
                isinstance(n, c_ast.For) and isinstance(n.init, c_ast.Assignment)
                and isinstance(n.init.lvalue, c_ast.ID) and n.init.lvalue.name in self.used_outside
                for n in subtree(node.stmt)):
            return False
        reads_data = False
        start = node.init.decls[0].init if isinstance(node.init, c_ast.DeclList) else node.init.rvalue
        for child in [*subtree(node.cond), *subtree(start)]:
            if isinstance(child, (c_ast.ArrayRef, c_ast.FuncCall)):
                reads_data = True
            elif isinstance(child, c_ast.ID) and child.name != name \
                    and child.name not in {l.c_name for l in walk.loops}:
                variable = walk.scope.lookup(child.name)
                if variable is not None and not variable.ctype.is_scalar and not variable.declared_in_region:
                    continue  # an array read, as an element is (its accesses are the statement's)
                if child.name in self.written or (variable is not None and variable.declared_in_region) \
                        or (child.name in self.outer_iterators and child.name not in {l.c_name for l in walk.loops}):
                    return False
        return reads_data

    def _breaks_on_data(self, node: c_ast.For, walk: _Walk) -> bool:
        """Whether a ``break`` at the top level of the loop's body has a condition on data (a leading one
        joined the condition already), and the loop may be one statement: its iterator is not read after
        the region."""
        items = list(node.stmt.block_items or []) if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        name = walk.loops[-1].c_name
        if name in self.used_outside:
            return False
        for item in items:
            if is_break(item):
                try:
                    self._builder(walk).condition(item.cond)
                except NonAffine:
                    return any(isinstance(n, (c_ast.ArrayRef, c_ast.FuncCall, c_ast.StructRef))
                               for n in subtree(item.cond))
        return False

    def _loop_body(self, body: c_ast.Node, walk: _Walk, loop: _Loop, position: int) -> isl.Schedule | None:
        """The body of a loop; ``if (c) break;`` at its top level, with ``c`` affine, ends the loop at the
        first iteration where ``c`` holds: the statements before it run up to that iteration, the ones
        after it only before it (as pet models a break)."""
        items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
        if not any(is_break(item) for item in items):
            return self._item(body, walk, False)
        scope = walk.scope.child()
        # pairs of points of this loop, the second later in it, the enclosing iterations the same
        later = (isl.Map.lex_gt(walk.domain.get_space()) if loop.reverse
                 else isl.Map.lex_lt(walk.domain.get_space()))
        for d in range(position):
            later = later.equate(isl.dim_type.in_, d, isl.dim_type.out, d)
        domain = walk.domain
        # per segment (the items between two breaks), the iterations that reach it, within one iteration:
        # the conditions of the breaks before it failed; any: the iterations where some break is taken
        segments: list[tuple[list[c_ast.Node], isl.Set]] = []
        reach = domain
        any_taken = isl.Set.empty(domain.get_space())
        current: list[c_ast.Node] = []
        for item in items:
            if not is_break(item):
                current.append(item)
                continue
            segments.append((current, reach))
            current = []
            builder = self._builder(_Walk(walk.loops, domain, scope))
            try:
                condition = builder.condition(item.cond)
                self.check_requirements(builder, reach, "condition")
            except NonAffine as exc:
                statement = item.iftrue.block_items[0] if isinstance(item.iftrue, c_ast.Compound) else item.iftrue
                raise self.unsupported(
                    f"'break' statement under the condition '{_text(item.cond)}'", statement,
                    f"is not supported: the condition is not affine ({exc.what})") from None
            any_taken = any_taken.union(reach.intersect(condition))
            reach = coalesced(reach.subtract(condition))
        segments.append((current, reach))
        # the loop goes on at an iteration when no break was taken at an earlier one
        alive = coalesced(domain.subtract(any_taken.apply(later)))
        pieces: list[isl.Schedule] = []
        for segment, reached in segments:
            piece = self._block(segment, _Walk(walk.loops, coalesced(reached.intersect(alive)), scope))
            if piece is not None:
                pieces.append(piece)
        # where the loop stops at a break (set after the segments: their loops reset it)
        self._breaks_taken = coalesced(any_taken.intersect(alive))
        return _sequence(pieces)

    def _loop_init(self, node: c_ast.For, scope: Scope, walk: _Walk) -> tuple[str, c_ast.Node, str, bool]:
        init = node.init
        if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
            decl = init.decls[0]
            ctype = self.types.ctype(decl.type)
            if not (ctype.is_scalar and ctype.is_integer):
                raise self.unsupported(f"loop iterator '{decl.name}' of type '{ctype.base}'", decl,
                                       "is not supported (it must be an integer)")
            scope.add(Variable(decl.name, ctype, True, decl))
            return decl.name, decl.init, ctype.base, ctype.is_unsigned
        if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
            name = init.lvalue.name
            variable = scope.lookup(name)
            if variable is None or not (variable.ctype.is_scalar and variable.ctype.is_integer):
                raise self.unsupported(f"loop iterator '{name}'", init.lvalue,
                                       "is not supported (it must be an integer variable)")
            if any(l.c_name == name for l in walk.loops):
                raise self.unsupported(f"loop iterator '{name}' of an enclosing loop reused", init.lvalue,
                                       "by an inner loop is not supported")
            if name in self.used_outside:
                raise self.unsupported(
                    f"loop iterator '{name}'", init.lvalue,
                    f"is used outside the region (line {self.used_outside[name].coord.line}), which would see "
                    "its final value; not supported: declare it in the loop, 'for (int "
                    f"{name} = ...'")
            return name, init.rvalue, variable.ctype.base, variable.ctype.is_unsigned
        if id(node) in self.notes:
            raise self.unsupported(f"loop initialisation '{_text(init)}'", init,
                                   f"of a header with several variables is not supported: the header "
                                   f"{self.notes[id(node)]}")
        raise self.unsupported("loop initialisation" if init is not None else "'for' loop without initialisation",
                               init if init is not None else node, "is not of the form 'i = start'")

    # -- conditionals ----------------------------------------------------------
    def _if(self, node: c_ast.If, walk: _Walk) -> isl.Schedule | None:
        builder = self._builder(walk)
        try:
            condition = builder.condition(node.cond)
            self.check_requirements(builder, walk.domain, "condition")
        except NonAffine:
            # a condition on data: one statement, its writes are may-writes; the loops it guards run as
            # written inside it, unless one's iterator, declared before the region, is read after it
            if any(isinstance(n, c_ast.For) and isinstance(n.init, c_ast.Assignment)
                   and isinstance(n.init.lvalue, c_ast.ID) and n.init.lvalue.name in self.used_outside
                   for n in subtree(node)):
                raise self.unsupported(f"condition '{_text(node.cond)}'", node.cond,
                                       "depends on data and guards a loop whose iterator is read after the "
                                       "region; not supported") from None
            return self._statement(node, walk)
        then_walk = _Walk(walk.loops, coalesced(walk.domain.intersect(condition)), walk.scope.child())
        pieces = [self._item(node.iftrue, then_walk, False)]
        if node.iffalse is not None:
            else_walk = _Walk(walk.loops, coalesced(walk.domain.subtract(condition)), walk.scope.child())
            pieces.append(self._item(node.iffalse, else_walk, False))
        return _sequence([p for p in pieces if p is not None])

    # -- statements ------------------------------------------------------------
    def _statement(self, node: c_ast.Node, walk: _Walk, exits: bool = False) -> isl.Schedule | None:
        """One statement of the model; ``exits``: it may hold returns and gotos (it is the whole region)."""
        if walk.domain.is_empty():
            return None
        name = f"S_{len(self.statements)}"
        builder = self._builder(walk)
        collector = AccessCollector(
            name, walk.domain, builder, walk.scope.lookup, self._classify(walk), self._model_name,
            self.location, self.types.enumerators, self._file_function, self.types, exits=exits)
        collector.statement_node(node, may=isinstance(node, c_ast.If))
        for callee, call in collector.result.called.items():
            if callee not in self.called and callee not in self.functions.definitions:
                self.device_unsupported.append((
                    f"call to '{callee}'", self.location(call),
                    "is not supported by the GPU targets: it is declared pure, but the file does not define "
                    "it, so kernels have no version of it to call"))
            self.called.setdefault(callee, call)
        for loop in (n for n in subtree(node) if isinstance(n, c_ast.For)):
            if isinstance(loop.init, c_ast.Assignment) and isinstance(loop.init.lvalue, c_ast.ID):
                # a loop run as written sets the function's iterator: a value the model computed for an
                # earlier loop on it is stale (a loop stopped by a break on data left 5 where n was read)
                self.exit_values.pop(loop.init.lvalue.name, None)
        # the iterators of loops run as written that are declared outside the statement: no other statement
        # reads them (a read outside its loop is refused) and, unless the code after the region reads them,
        # each instance may have its own (a kernel's thread declares it)
        private_iterators: dict[str, str] = {}
        for loop in (n for n in subtree(node) if isinstance(n, c_ast.For)):
            if isinstance(loop.init, c_ast.Assignment) and isinstance(loop.init.lvalue, c_ast.ID):
                iterator = loop.init.lvalue.name
                variable = walk.scope.lookup(iterator)
                if iterator in self.used_outside or variable is None:
                    self.device_unsupported.append((
                        f"loop '{iterator}' run as written in a statement", self.location(loop),
                        "is not supported by the GPU targets when the code after the region reads its "
                        f"iterator (kernels have their own); declare it in the loop ('for (int {iterator} "
                        "= ...')"))
                    break
                private_iterators.setdefault(iterator, variable.ctype.resolved or variable.ctype.base)
        for member, why in collector.result.members[:1]:
            self.device_unsupported.append((f"struct member access '{_text(member)}'", self.location(member),
                                            f"is not supported by the GPU targets: {why}"))
        self._private_arrays(node)
        self.records.extend(collector.result.records)
        for call in collector.result.external[:1]:  # (the globals it may reach: once per statement)
            self.external.append((name, walk.domain, builder, call))
            callee = call.name.name
            why = collector.result.external_why.get(callee)
            self.device_unsupported.append((
                f"call to '{callee}'", self.location(call),
                f"is not supported by the GPU targets: '{callee}' {why}" if why is not None else
                "is not supported by the GPU targets: the file declares it without a body (or a library "
                "defines it), so kernels have no version of it to call"))
        self.read_only_scalars |= collector.result.read_only_scalars
        renames = {}
        for record in collector.result.records:
            if record.name != record.variable.name:
                renames[record.variable.name] = record.name
        for used in collector.result.exit_uses:
            renames[used] = f"({c_expression(self.exit_values[used])})"
        domain = walk.domain.set_tuple_name(name)
        empty = isl.UnionMap.empty(domain.get_space().params())
        statement = Statement(
            name=name, domain=domain, body=node,
            iterators=tuple(l.c_name for l in walk.loops),
            iterator_types=tuple(l.ctype for l in walk.loops),
            line=node.coord.line if node.coord else self.region.begin_line,
            reads=empty, must_writes=empty, may_writes=empty, renames=renames,
            private_iterators=tuple(private_iterators.items()),
        )
        self.statements.append(statement)
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domain))

    @staticmethod
    def _local_names(scope: Scope) -> set[str]:
        """The names the function declares (parameters and locals): they hide globals of the same name,
        so an inlined body that means a global cannot name them."""
        names: set[str] = set()
        while scope is not None and scope.parent is not None:
            names |= set(scope.names)
            scope = scope.parent
        return names

    def _file_function(self, name: str) -> str | None:
        if name not in self.functions.definitions:
            # a declaration without body: pure when the user says so
            return "" if name in self.types.declared_pure else None
        if name in self.not_inlined:
            return self.not_inlined[name]
        return "" if self.functions.is_pure(name) else self.functions.why_not(name)

    def _private_arrays(self, node: c_ast.Node) -> None:
        """Locals of a statement that are arrays of variable size: private to each instance, which the
        c target keeps as written; kernels cannot declare them (neither CUDA nor OpenCL has them)."""
        for child in subtree(node):
            if isinstance(child, c_ast.Decl) and not isinstance(child.type, c_ast.FuncDecl):
                dims = self.types.ctype(child.type).dims
                if any(d is None or constant_value(d, self.types.enumerators) is None for d in dims):
                    self.device_unsupported.append((
                        f"array '{child.name}' of variable size declared in a statement", self.location(child),
                        "is not supported by the GPU targets (device code has no variable-length arrays); "
                        "give it a constant size"))

    # -- after the walk: arrays and relations ------------------------------------------------
    def _finish(self) -> tuple[list[Array], list[Statement]]:
        def region_level(variable: Variable) -> bool:
            hoisted = self.hoisted.get(id(variable.decl)) if variable.decl is not None else None
            return hoisted is not None and hoisted.at_region_level

        arrays, reads, must, may, references = build_arrays(self.records, self._extents, region_level)
        statements = []
        for s in self.statements:
            empty = s.reads
            relations = [reads.get(s.name, empty), must.get(s.name, empty), may.get(s.name, empty)]
            if self.exits:
                # the accesses were collected over the domain before the returns and gotos cut it
                relations = [r.intersect_domain(isl.UnionSet.from_set(s.domain)) for r in relations]
            statements.append(replace(s, reads=relations[0], must_writes=relations[1], may_writes=relations[2]))
        return arrays, statements, tuple(references)

    def _extents(self, variable: Variable, shape) -> list[isl.PwAff | None]:
        universe_walk = _Walk([], isl.Set.universe(isl.Space.create_from_names(self.ctx, set=[], params=self.params)),
                              self.outer)
        builder = self._builder(universe_walk)
        if shape.delinearised:
            return [None] + [builder.pwaff(c_ast.ID(p)) for p in shape.sizes]
        out: list[isl.PwAff | None] = []
        for dim in variable.ctype.dims:
            try:
                out.append(builder.pwaff(dim) if dim is not None else None)
            except NonAffine:
                out.append(None)
        out += [None] * variable.ctype.pointer_depth
        return out

    def _unsigned_parameters(self, points: isl.Set) -> isl.Set:
        """``points`` where every parameter of an unsigned type is not negative, as its values are (then
        comparing it with an unsigned iterator needs no wrap-around)."""
        for k, name in enumerate(self.params):
            variable = self.outer.lookup(name)
            if variable is not None and variable.ctype.is_unsigned:
                parameter = isl.PwAff.from_aff(isl.Aff.var_on_domain(
                    isl.LocalSpace.from_space(points.get_space()), isl.dim_type.param, k))
                points = points.intersect(parameter.nonneg_set())
        return points

    def _context(self, arrays: list[Array]) -> isl.Set:
        """What the program implies about the parameters: declared extents are not negative, nor are
        parameters of unsigned types."""
        context = self._unsigned_parameters(
            isl.Set.universe(isl.Space.create_from_names(self.ctx, set=[], params=self.params).params()))
        for array in arrays:
            for extent in array.extents:
                if extent is not None:
                    context = context.intersect(extent.nonneg_set().params())
        return coalesced(context)


# calls that only tell the compiler something (a condition that holds, an array whose values are dead):
# dropping them changes nothing a correct program does
_HINTS = frozenset({"__pencil_assume", "__pencil_kill", "__builtin_assume"})


class _Wraps(Unsupported):
    """A loop on an unsigned iterator that the plain model cannot bound or keep in its type's range: it
    is modelled again with the iterator wrapping around."""


def _wrap_modulus(ctype) -> int | None:
    """2 to the width of an unsigned integer type narrower than long (its values wrap around modulo it)."""
    words = (ctype.resolved or ctype.base).split()
    if "unsigned" not in words and (ctype.resolved or ctype.base) not in ("uint8_t", "uint16_t", "uint32_t"):
        return None
    if "long" in words:
        return None
    if "char" in words or ctype.resolved == "uint8_t":
        return 2 ** 8
    if "short" in words or ctype.resolved == "uint16_t":
        return 2 ** 16
    return 2 ** 32


def _leaves_early(node: c_ast.Node | None, breaks: bool = True) -> bool:
    """Whether a loop body holds a ``goto`` (which may leave it) or, with ``breaks``, a ``break`` of its
    loop."""
    if node is None:
        return False
    if isinstance(node, c_ast.Goto) or (breaks and isinstance(node, c_ast.Break)):
        return True
    if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
        return any(isinstance(n, c_ast.Goto) for n in subtree(node))
    return any(_leaves_early(child, breaks) for _, child in node.children())


def _assigned_outside_loop_headers(items: list[c_ast.Node]) -> set[str]:
    """Names assigned (or incremented) anywhere but in the initialisation and increment of a loop."""
    names: set[str] = set()

    def visit(node: c_ast.Node) -> None:
        if isinstance(node, c_ast.For):
            for part in (node.cond, node.stmt):
                if part is not None:
                    visit(part)
            return
        name = assigned_name(node)
        if name is not None:
            names.add(name)
        for _, child in node.children():
            visit(child)

    for item in items:
        visit(item)
    return names


def _identifier_types(node: c_ast.Node) -> list[str]:
    return [name for n in subtree(node) if isinstance(n, c_ast.IdentifierType) for name in n.names]


def _sequence(pieces: list[isl.Schedule]) -> isl.Schedule | None:
    if not pieces:
        return None
    result = pieces[0]
    for p in pieces[1:]:
        result = result.sequence(p)
    return result


def _contains_for(node: c_ast.Node) -> bool:
    if isinstance(node, c_ast.For):
        return True
    return any(_contains_for(child) for _, child in node.children())


def _contains_loop(node: c_ast.Node) -> bool:
    if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
        return True
    return any(_contains_loop(child) for _, child in node.children())


_GENERATOR = c_generator.CGenerator(reduce_parentheses=True)


def _text(node: c_ast.Node | None) -> str:
    return _GENERATOR.visit(node) if node is not None else ""


def _declaration_text(decl: c_ast.Decl, new_name: str) -> str:
    """``decl`` as C text without its initialiser, under ``new_name``."""
    import copy

    clone = copy.deepcopy(decl)
    clone.init = None
    clone.name = new_name
    # the initialiser becomes an assignment: a const local would then be assigned after its declaration
    clone.quals = [q for q in clone.quals if q != "const"]
    node = clone.type
    while not isinstance(node, c_ast.TypeDecl):
        node = node.type
    node.declname = new_name
    node.quals = [q for q in node.quals if q != "const"]
    return _GENERATOR.visit(clone) + ";"


def _wider(current: str, candidate: str) -> str:
    words = candidate.split()
    if "long" in words or candidate in ("size_t", "ssize_t", "ptrdiff_t", "int64_t", "uint64_t",
                                        "intptr_t", "uintptr_t", "intmax_t", "uintmax_t"):
        wanted = "long long" if words.count("long") == 2 else "long"
    elif "unsigned" in words or candidate in ("uint32_t",):
        wanted = "long"
    else:
        wanted = "int"
    return wanted if _INT_RANK[wanted] > _INT_RANK[current] else current
