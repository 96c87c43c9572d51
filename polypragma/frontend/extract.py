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
from dataclasses import replace

import islpy as isl
from pycparser import c_ast

from polypragma.diagnostics import Location, Unsupported
from polypragma.frontend.accesses import AccessCollector, AccessRecord, ExitOnData
from polypragma.frontend.affine import AffineBuilder, NonAffine, constant_value
from polypragma.frontend.arrays import build_arrays
from polypragma.frontend.c_tree import (assigned_outside_loop_headers, contains_for, declaration_text,
                                        subtree, text, writes)
from polypragma.frontend import memory_calls
from polypragma.frontend.rotations import Epilogue
from polypragma.frontend.exits import Exit, ExitWalk
from polypragma.frontend.functions import FileFunctions, inline_call
from polypragma.frontend.library import PURE_FUNCTIONS, is_assert
from polypragma.frontend.loop_walk import LoopWalk
from polypragma.frontend.member_parameters import member_parameters
from polypragma.frontend.normalise import normalise
from polypragma.frontend.region_checks import check_aliases, extended_type_use, external_call_records
from polypragma.frontend.row_bounds import Assumptions
from polypragma.frontend.symbols import Scope, TypeTable
from polypragma.frontend.walk import Frame, Hoisted, Loop, Walk, sequence
from polypragma.isl_helpers import coalesced
from polypragma.model import Array, Reference, Scop, Statement, Variable, c_expression
from polypragma.scan import Region

_INT_RANK = {"int": 1, "long": 2, "long long": 3}


class RegionExtractor(LoopWalk, ExitWalk):
    """The walk over a region that builds its model.  Its ``for`` loops are :class:`LoopWalk`'s
    (frontend/loop_walk.py), its returns and gotos :class:`ExitWalk`'s (frontend/exits.py); what is asked of
    the accesses once the walk is over, frontend/region_checks.py's."""

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

        variable_type = self._variable_type(items, scope, types)
        self.assumptions = Assumptions(self._unchanged_by(items, scope, variable_type))
        lowering: list = []  # (names taken, variables assigned), found at the first memcpy, memset or value call

        def lowered() -> list:
            if not lowering:
                lowering.extend((self._taken_names(items, scope), assigned_outside_loop_headers(items)))
            return lowering

        def inline(call: c_ast.FuncCall):
            if isinstance(call.name, c_ast.ID) and call.name.name in _HINTS:
                return None  # dropped by the walk, even where the file defines a stub of it
            if isinstance(call.name, c_ast.ID) and call.name.name in memory_calls.LOWERED \
                    and call.name.name not in self.functions.definitions:
                result = memory_calls.lower(call, variable_type, types, *lowered(), self.assumptions)
            else:
                result = inline_call(call, self.functions.definitions, types, globals_ - self._local_names(scope),
                                     variable_type, self.assumptions)
            if isinstance(result, str):
                self.not_inlined.setdefault(call.name.name, result)
            return result

        def inline_value(call: c_ast.FuncCall, left: str | None = None):
            name = call.name.name if isinstance(call.name, c_ast.ID) else None
            if name not in self.functions.definitions or self.functions.is_pure(name) or self.functions.recursive(name):
                return None  # (a pure function runs as a function of the kernels; a recursive one stays a call)
            if left is not None:  # (a call that stays a call where it is: why, unless it is inlined elsewhere)
                self.not_inlined.setdefault(name, f"is not inlined where it is called {left}")
                return None
            taken = lowered()[0]
            fresh, k = f"{name}_value", 1
            while fresh in taken:
                fresh, k = f"{name}_value_{k}", k + 1
            result = inline_call(call, self.functions.definitions, types, globals_ - self._local_names(scope),
                                 variable_type, self.assumptions, result=fresh)
            if not isinstance(result, c_ast.Compound):
                if isinstance(result, str):
                    self.not_inlined.setdefault(name, result)
                return None
            taken.add(fresh)
            returned = copy.deepcopy(self.functions.definitions[name].decl.type.type)
            returned.declname, returned.quals = fresh, []
            return c_ast.Decl(fresh, [], [], [], [], returned, None, None, coord=call.coord), result

        # a label of the region that only gotos outside it target: the generated code would lose it
        inside = {n.name for item in items for n in subtree(item) if isinstance(n, c_ast.Goto)}
        for item in items:
            for n in subtree(item):
                if isinstance(n, c_ast.Label) and n.name in goto_targets and n.name not in inside:
                    raise Unsupported(f"label '{n.name}'", self.location(n),
                                      "is the target of a 'goto' outside the region; not supported")
        self.notes: dict[int, str] = {}  # why normalise left a statement as it was (by id)
        self.epilogue = Epilogue()  # what the generated code runs after the region (Scop.epilogue)
        self.items = normalise(items, set(goto_targets), inline, set(self.used_outside), self.notes, variable_type,
                               self.assumptions, inline_value, self.epilogue)
        if self.epilogue.refused is not None:  # (the pointers it assigns have no model)
            raise self.unsupported(*self.epilogue.refused)
        self.outer = scope
        self.types = types
        self.reserved = set(reserved_names)
        self.items, members = member_parameters(self.items, scope.lookup, types, self.reserved)
        for variable, _ in members:
            scope.add(variable)
        self.statements: list[Statement] = []
        self.records: list[AccessRecord] = []
        self.read_only_scalars: set[str] = set()
        self.hoisted: dict[int, Hoisted] = {}  # id(Variable.decl) -> hoisting
        self.hoisted_names: set[str] = set()
        self.outer_declarations: list[str] = [declaration for _, declaration in members]
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
        self._frames: list[Frame] = []
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
            source = self.source_lines[line - 1]
            k = min(column - 1, len(source)) - 1
            while k >= 0 and source[k] in " \t(":
                k -= 1
            if k >= 0 and source[k] == node.op:
                column = k + 1
        return Location(str(node.coord.file), line, column)

    def unsupported(self, construct: str, node: c_ast.Node | None, why: str = "is not supported") -> Unsupported:
        return Unsupported(construct, self.location(node), why)

    def not_affine(self, construct: str, exc: NonAffine, walk: "Walk") -> Unsupported:
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
                raise self.unsupported(f"{construct} '{text(node)}'", node,
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
        self._assigned_in_statements = assigned_outside_loop_headers(self.items)
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
    def _resolver(self, walk: Walk, extra: list[Loop] | None = None):
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

    def _builder(self, walk: Walk, extra: list[Loop] | None = None) -> AffineBuilder:
        loops = walk.loops + (extra or [])

        def is_unsigned(name: str) -> bool:
            for loop in reversed(loops):
                if loop.c_name == name:
                    return loop.unsigned
            variable = self.outer.lookup(name) if name in self.params else None
            return variable is not None and variable.ctype.is_unsigned

        return AffineBuilder(self.ctx, self.params, [l.dim for l in loops], self._resolver(walk, extra),
                             is_unsigned)

    def _classify(self, walk: Walk):
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
        walk = Walk([], universe, self.outer.child())
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
        self.records += external_call_records(self.records, self.external, self.outer)
        check_aliases(self.records, self.origins, self.location)
        extended = extended_type_use(self.records, self.statements)
        if extended is not None:
            self.device_unsupported.append((f"value of type '{extended[0]}'", self.location(extended[1]),
                                            "is not supported by the GPU targets"))
        arrays, statements, references, (assumed, assuming) = self._finish()
        context = self._context(arrays)
        if assumed is not None:
            assumed = coalesced(assumed.gist(context))
            if assumed.plain_is_universe():
                assumed = None
            else:
                schedule = schedule.intersect_domain(schedule.get_domain().intersect_params(assumed))
                context = coalesced(context.intersect(assumed))
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
            epilogue=tuple((node.coord.line, tuple(text(node).rstrip("\n").split("\n")))
                           for node in self.epilogue.statements),
            unrolled=tuple(self.epilogue.described),
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
            assumed=assumed,
            assumed_by=assuming if assumed is not None else (),
        )

    def _accessed_variables(self) -> list[Variable]:
        seen: dict[str, Variable] = {}
        for record in self.records:
            seen.setdefault(record.name, record.variable)
        for name in [*self.params, *sorted(self.read_only_scalars)]:
            variable = self.outer.lookup(name)
            if variable is not None:
                seen.setdefault(name, variable)
        return list(seen.values())

    def _block(self, items: list[c_ast.Node], walk: Walk, region_level: bool = False) -> isl.Schedule | None:
        pieces = []
        items = self._with_asserts_joined(items)
        frame = Frame(items, len(walk.loops))
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
        return sequence(pieces)

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

    def _item(self, node: c_ast.Node, walk: Walk, region_level: bool) -> isl.Schedule | None:
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
            return sequence([p for p in (self._declaration(d, walk, region_level) for d in node.decls) if p])
        if isinstance(node, c_ast.For):
            return self._for(node, walk)
        if isinstance(node, c_ast.If):
            return self._if(node, walk)
        if isinstance(node, c_ast.Compound):
            items = node.block_items or []
            has_decls = any(isinstance(i, c_ast.Decl) for i in items)
            if has_decls and not contains_for(node) and not self._variable_size_hoistable(items):
                # its locals private to each instance; a while loop in it is run as written anyway
                return self._statement(node, walk)
            inner = Walk(walk.loops, walk.domain, walk.scope.child())
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

    def _declaration(self, decl: c_ast.Decl, walk: Walk, region_level: bool,
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
            raise self.unsupported(f"pointer '{decl.name}' declared", decl, self.notes.get(
                id(decl), "in the region is not supported (but for one set to an array, a row or an element of a "
                "one-dimensional array and then only subscripted, or stepped by the same amount in each "
                "iteration of a loop)"))
        variable = Variable(decl.name, ctype, True, decl)
        walk.scope.add(variable)
        new_name = decl.name
        if not region_level:
            new_name = self._fresh(decl.name)
        self.reserved.add(new_name)
        self.hoisted_names.add(new_name)
        self.hoisted[id(decl)] = Hoisted(variable, new_name, region_level)
        declared = declaration_text(decl, new_name)
        (self.outer_declarations if region_level else self.hoisted_declarations).append(declared)
        if region_level and decl.coord is not None:
            initialised = f"{decl.name} = {text(decl.init)};" if decl.init is not None else ""
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

    # -- conditionals ----------------------------------------------------------
    def _if(self, node: c_ast.If, walk: Walk) -> isl.Schedule | None:
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
                raise self.unsupported(f"condition '{text(node.cond)}'", node.cond,
                                       "depends on data and guards a loop whose iterator is read after the "
                                       "region; not supported") from None
            return self._statement(node, walk)
        then_walk = Walk(walk.loops, coalesced(walk.domain.intersect(condition)), walk.scope.child())
        pieces = [self._item(node.iftrue, then_walk, False)]
        if node.iffalse is not None:
            else_walk = Walk(walk.loops, coalesced(walk.domain.subtract(condition)), walk.scope.child())
            pieces.append(self._item(node.iffalse, else_walk, False))
        return sequence([p for p in pieces if p is not None])

    # -- statements ------------------------------------------------------------
    def _statement(self, node: c_ast.Node, walk: Walk, exits: bool = False) -> isl.Schedule | None:
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
            self.device_unsupported.append((f"struct member access '{text(member)}'", self.location(member),
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

    def _taken_names(self, items: list[c_ast.Node], scope: Scope) -> set[str]:
        """The names the loops of a lowered memcpy or memset must not take: every name of the region, of the
        scopes around it and of the file's functions (which calls inline)."""
        taken = {n.name for node in items + list(self.functions.definitions.values())
                 for n in subtree(node) if isinstance(n, (c_ast.ID, c_ast.Decl)) and n.name}
        chain = scope
        while chain is not None:
            taken |= set(chain.names)
            chain = chain.parent
        return taken

    @staticmethod
    def _variable_type(items: list[c_ast.Node], scope: Scope, types: TypeTable):
        """For :func:`memory_calls.lower` and :func:`normalise`: the type of a variable by name, one declared
        before the region, or in it, each declaration of the same type, and not before (None: unknown)."""
        declared: dict[str, list[c_ast.Decl]] = {}
        for item in items:
            for node in subtree(item):
                if isinstance(node, c_ast.Decl) and node.name and not isinstance(node.type, c_ast.FuncDecl):
                    declared.setdefault(node.name, []).append(node)

        def variable_type(name: str):
            outer = scope.lookup(name)
            decls = declared.get(name, [])
            if not decls:
                return outer.ctype if outer is not None else None
            if outer is not None and not any(outer.decl is d for d in decls):
                return None  # (one hides a variable of the function: which is meant depends on the place)
            # declared in several blocks (loops' iterators): known where every declaration agrees
            kinds = {(c.base, c.resolved, c.pointer_depth, c.is_unsigned, tuple(text(d) for d in c.dims))
                     for c in (types.ctype(d.type) for d in decls)}
            return types.ctype(decls[0].type) if len(kinds) == 1 else None

        return variable_type

    @staticmethod
    def _unchanged_by(items: list[c_ast.Node], scope: Scope, variable_type):
        """Whether a condition reads only integer variables declared before the region that the region
        neither declares again nor changes: the region's parameters, which a check before it can read."""
        def fixed(condition: c_ast.Node) -> bool:
            for node in subtree(condition):
                if not isinstance(node, c_ast.ID):
                    continue
                ctype = variable_type(node.name)
                if scope.lookup(node.name) is None or ctype is None or not ctype.is_integer or ctype.rank \
                        or any(writes(item, node.name) for item in items):
                    return False
            return True

        return fixed

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
        if name in memory_calls.LOWERED and name in self.not_inlined:
            return self.not_inlined[name]  # a call left as it is: why (modelled as any external call)
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
    def _finish(self) -> tuple[list[Array], list[Statement], tuple[Reference, ...],
                               tuple[isl.Set | None, tuple[str, ...]]]:
        def region_level(variable: Variable) -> bool:
            hoisted = self.hoisted.get(id(variable.decl)) if variable.decl is not None else None
            return hoisted is not None and hoisted.at_region_level

        arrays, reads, must, may, references, (assumed, viewed) = build_arrays(self.records, self._extents,
                                                                               region_level)
        assuming = (f"are the flat subscripts of {', '.join(repr(name) for name in viewed)} rows of a view that "
                    "do not overlap",) if viewed else ()
        for holds, reason in self._row_assumptions():
            assumed = holds if assumed is None else assumed.intersect(holds)
            assuming += (reason,)
        statements = []
        for s in self.statements:
            empty = s.reads
            relations = [reads.get(s.name, empty), must.get(s.name, empty), may.get(s.name, empty)]
            domain = s.domain if assumed is None else s.domain.intersect_params(assumed)
            if self.exits or assumed is not None:
                # the accesses were collected over the domain before the returns and gotos cut it (and
                # before the assumptions of delinearised views)
                relations = [r.intersect_domain(isl.UnionSet.from_set(domain)) for r in relations]
            statements.append(replace(s, domain=domain, reads=relations[0], must_writes=relations[1],
                                      may_writes=relations[2]))
        if assumed is not None:
            arrays = [replace(a, footprint=coalesced(a.footprint.intersect_params(assumed))) for a in arrays]
            references = [replace(r, relation=r.relation.intersect_params(assumed)) for r in references]
        return arrays, statements, tuple(references), (assumed, assuming)

    def _row_assumptions(self) -> list[tuple[isl.Set, str]]:
        """The parameters for which the subscripts through each pointer to a row replaced under a condition
        (row_bounds.RowAssumption) stay in the row, with why, for Scop.assumed."""
        out = []
        for assumption in self.assumptions.made:
            try:
                holds = self._region_builder().condition(assumption.condition).params()
            except NonAffine:
                holds = None
            if holds is None or any(n.name not in self.params for n in subtree(assumption.condition)
                                    if isinstance(n, c_ast.ID)):
                raise Unsupported(assumption.construct, self.location(assumption.node), assumption.refusal)
            out.append((holds, f"{assumption.reason} (line {assumption.node.coord.line})"))
        return out

    def _region_builder(self) -> AffineBuilder:
        """A builder of expressions on the region's parameters, outside every loop."""
        universe_walk = Walk([], isl.Set.universe(isl.Space.create_from_names(self.ctx, set=[], params=self.params)),
                              self.outer)
        return self._builder(universe_walk)

    def _extents(self, variable: Variable, shape) -> list[isl.PwAff | None]:
        builder = self._region_builder()
        if shape.delinearised:
            return [None] + [builder.pwaff(c_ast.ID(p)) for p in shape.sizes]
        out: list[isl.PwAff | None] = []
        for dim in variable.ctype.extents:
            try:
                out.append(builder.pwaff(dim) if dim is not None else None)
            except NonAffine:
                out.append(None)
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
