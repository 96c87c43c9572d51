"""Array accesses of a statement body, and their access relations.

Collecting happens per statement while the region is walked: reads, must
and may writes, with each subscript either affine or, failing that, a
polynomial for delinearisation (see :mod:`polypragma.frontend.arrays`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import islpy as isl
from pycparser import c_ast

from polypragma.diagnostics import Unsupported
from polypragma.frontend.affine import AffineBuilder, NonAffine, Polynomial, polynomial
from polypragma.frontend.library import PURE_FUNCTIONS, is_assert
from polypragma.model import CType, Member, Variable


class ExitOnData(Unsupported):
    """A ``return`` or ``goto`` the model cannot place (under a condition on data, in a loop run as
    written, or to a label that is not later in a block holding it): the extractor then takes the whole
    region as one statement run as written (the c target), which may hold them."""

    def __init__(self, construct: str, location, why: str):
        super().__init__(construct, location, why)
        self.construct, self.location, self.why = construct, location, why


@dataclass
class Subscript:
    """One subscript: its affine value, or failing that its polynomial form."""

    affine: isl.PwAff | None
    poly: Polynomial | None
    node: c_ast.Node


@dataclass
class AccessRecord:
    statement: str
    variable: Variable
    name: str  # array name in the model
    is_write: bool
    must: bool
    subscripts: list[Subscript]  # empty for a scalar
    domain: isl.Set  # the statement's points, in the builder's (unnamed) space
    builder: AffineBuilder
    node: c_ast.Node


@dataclass
class StatementAccesses:
    records: list[AccessRecord] = field(default_factory=list)
    read_only_scalars: set[str] = field(default_factory=set)
    called: dict[str, c_ast.Node] = field(default_factory=dict)  # pure functions called, with a call
    exit_uses: set[str] = field(default_factory=set)  # loop iterators read after their loops
    # struct member accesses kernels cannot make, each with why (a field that is a pointer, a struct type
    # the kernels cannot name)
    members: list[tuple[c_ast.Node, str]] = field(default_factory=list)
    external: list[c_ast.FuncCall] = field(default_factory=list)  # calls to functions without a body
    external_why: dict[str, str] = field(default_factory=dict)  # for a function of the file: why it is not pure


# what a function without a body may do besides its arguments (output, its own state): every call reads
# and writes it, so the calls keep their order
EXTERNAL_STATE = Variable("polypragma_external_state", CType("int", True, False))


class AccessCollector:
    """Walks one statement body and records its accesses.

    ``classify(name)`` tells what a name means at this point of the region:
    ``"iterator"``, ``"param"``, ``"const"``, ``"private"`` (a local of the
    statement), ``"scalar-ro"`` (read-only scalar from outside),
    ``"array"`` (an array or a scalar modelled as a zero-dimensional array) or
    None for an unknown name.
    """

    def __init__(self, statement: str, domain: isl.Set, builder: AffineBuilder,
                 lookup: Callable[[str], Variable | None],
                 classify: Callable[[str, Variable | None], str | None],
                 model_name: Callable[[Variable], str],
                 location: Callable[[c_ast.Node], object],
                 enums: dict[str, int], file_function: Callable[[str], str | None] | None = None,
                 types=None, exits: bool = False):
        self.statement = statement
        self.domain = domain
        self.builder = builder
        self.lookup = lookup
        self.classify = classify
        self.model_name = model_name
        self.location = location
        self.enums = enums
        # file_function(name): "" for a pure function the file defines (callable), why not for another
        # function it defines, None for a function it does not define
        self.file_function = file_function
        self.types = types  # the TypeTable, for struct members
        self.result = StatementAccesses()
        self.private: list[set[str]] = [set()]
        self.loops = 0  # loops of the statement around the node being walked (a break stays inside)
        self.exits = exits  # the statement is the whole region: returns, gotos and labels stay inside it

    # -- helpers -------------------------------------------------------
    def _is_private(self, name: str) -> bool:
        return any(name in scope for scope in self.private)

    def _unsupported(self, construct: str, node: c_ast.Node, why: str = "is not supported"):
        return Unsupported(construct, self.location(node), why)

    # -- walking -------------------------------------------------------
    def statement_node(self, node: c_ast.Node, may: bool = False) -> None:
        if node is None or isinstance(node, (c_ast.EmptyStatement, c_ast.Pragma)):
            return
        if isinstance(node, c_ast.Compound):
            self.private.append(set())
            for item in node.block_items or []:
                self.statement_node(item, may)
            self.private.pop()
        elif isinstance(node, c_ast.Decl):
            ctype_name = node.name
            if node.init is not None:
                if isinstance(node.init, c_ast.InitList):
                    raise self._unsupported("initializer list", node)
                self.expression(node.init, may)
            self.private[-1].add(ctype_name)
        elif isinstance(node, c_ast.If):
            self.expression(node.cond, may)
            self.statement_node(node.iftrue, True)
            self.statement_node(node.iffalse, True)
        elif isinstance(node, c_ast.For):
            # a loop with a bound on data, as one statement: its iterator is private, and its
            # subscripts, not affine in the statement's iterators, reach whole dimensions
            self.private.append(set())
            init = node.init
            if isinstance(init, c_ast.DeclList):
                for decl in init.decls:
                    self.statement_node(decl, may)
            elif isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
                self.private[-1].add(init.lvalue.name)
                self.expression(init.rvalue, may)
            else:
                raise self._unsupported("loop initialisation", node)
            self.loops += 1
            self.expression(node.cond, may)
            self.expression(node.next, True)
            self.statement_node(node.stmt, True)
            self.loops -= 1
            self.private.pop()
        elif isinstance(node, (c_ast.While, c_ast.DoWhile)):
            # a loop on data, as one statement: its condition is read, its body may run (or not)
            self.loops += 1
            self.expression(node.cond, may)
            self.statement_node(node.stmt, True)
            self.loops -= 1
        elif isinstance(node, (c_ast.Break, c_ast.Continue)) and self.loops:
            return  # inside a loop of the statement: its control stays in the statement
        elif isinstance(node, c_ast.Return):
            # a return the model can place sits under affine conditions only (extract.py)
            if self.exits:
                self.expression(node.expr, may)
                return
            if self.loops:
                raise ExitOnData("'return' statement", self.location(node), "inside a loop run as written (a while "
                                 "loop, or a loop bounded by data) is not supported")
            raise ExitOnData("'return' statement", self.location(node),
                             "under a condition on data (or in a block declaring locals) is not supported")
        elif isinstance(node, c_ast.Goto):
            if not self.exits:
                raise ExitOnData(f"'goto {node.name}' statement", self.location(node),
                                 "under a condition on data (or in a loop run as written) is not supported")
        elif isinstance(node, c_ast.Label) and self.exits:
            self.statement_node(node.stmt, may)
        elif isinstance(node, (c_ast.Goto, c_ast.Break, c_ast.Continue, c_ast.Label, c_ast.Switch)):
            raise self._unsupported(f"'{type(node).__name__.lower()}' statement", node)
        else:
            self.expression(node, may)

    def expression(self, node: c_ast.Node, may: bool) -> None:
        if node is None:
            return
        if isinstance(node, c_ast.Assignment):
            compound = node.op != "="
            self.expression(node.rvalue, may)
            self.lvalue(node.lvalue, may, also_read=compound)
        elif isinstance(node, c_ast.UnaryOp):
            if node.op in ("++", "--", "p++", "p--"):
                variable = self.lookup(node.expr.name) if isinstance(node.expr, c_ast.ID) else None
                if isinstance(variable, Variable) and variable.ctype.rank:
                    raise self._unsupported(
                        f"pointer '{node.expr.name}' stepped", node,
                        "is not supported (only a pointer set just before a loop and stepped by the same amount in "
                        "each of its iterations, whose elements are then known, and not read after the loop)")
                self.lvalue(node.expr, may, also_read=True)
            elif node.op in ("&", "*"):
                raise self._unsupported(
                    "address-of '&'" if node.op == "&" else "pointer dereference '*'", node)
            elif node.op == "sizeof":
                return
            else:
                self.expression(node.expr, may)
        elif isinstance(node, c_ast.BinaryOp):
            self.expression(node.left, may)
            self.expression(node.right, may or node.op in ("&&", "||"))
        elif isinstance(node, c_ast.TernaryOp):
            self.expression(node.cond, may)
            self.expression(node.iftrue, True)
            self.expression(node.iffalse, True)
        elif isinstance(node, c_ast.Cast):
            self.expression(node.expr, may)
        elif isinstance(node, c_ast.FuncCall):
            name = node.name.name if isinstance(node.name, c_ast.ID) else None
            # C's assert reads its condition (a failed one stops the program)
            checks = is_assert(node) and (self.file_function is None or self.file_function(name) is None)
            if name not in PURE_FUNCTIONS and not checks:
                shown = f"call to '{name}'" if name else "call through a function pointer"
                why = self.file_function(name) if name and self.file_function is not None else None
                if why == "":
                    self.result.called.setdefault(name, node)
                elif why is not None:
                    # a function of the file that is not pure and cannot be inlined: modelled as one
                    # without a body is (what it does stays behind the call)
                    self.result.external_why.setdefault(name, why)
                    self._external_call(node, name, may)
                    return
                elif name is None:
                    raise self._unsupported(shown, node, "may have side effects and is not supported")
                else:
                    self._external_call(node, name, may)
                    return
            for arg in (node.args.exprs if node.args else []):
                self.expression(arg, may)
        elif isinstance(node, (c_ast.ArrayRef, c_ast.ID, c_ast.StructRef)):
            self.reference(node, is_write=False, must=True)
        elif isinstance(node, c_ast.Constant):
            return
        elif isinstance(node, c_ast.ExprList):
            for e in node.exprs:
                self.expression(e, may)
        else:
            raise self._unsupported(f"expression '{type(node).__name__}'", node)

    def _external_call(self, node: c_ast.FuncCall, name: str, may: bool) -> None:
        """A call to a function the file declares without a body (or a library's, or one of the file's that
        is not pure and cannot be inlined), modelled as pet models one without a body: it reads its
        arguments, and reads and may write the whole of every array or variable it is given the address of
        (read only where the parameter points to const; a struct's members each); it reads and writes the
        external state, so such calls keep their order.  The extractor adds the file's globals the region
        accesses, which the function may also reach."""
        function = self.lookup(name)
        params = None
        if function is not None and isinstance(function.decl, c_ast.Decl) \
                and isinstance(function.decl.type, c_ast.FuncDecl) and function.decl.type.args is not None:
            params = [p for p in function.decl.type.args.params if isinstance(p, (c_ast.Decl, c_ast.Typename))]
        self.result.external.append(node)
        for k, arg in enumerate(node.args.exprs if node.args else []):
            target = arg
            while isinstance(target, c_ast.Cast):
                target = target.expr
            addressed = isinstance(target, c_ast.UnaryOp) and target.op == "&"
            if addressed:
                target = target.expr
            while isinstance(target, c_ast.BinaryOp) and target.op in ("+", "-"):
                self.expression(target.right, may)
                target = target.left
            subscripts = []
            base = target
            while isinstance(base, c_ast.ArrayRef):
                subscripts.append(base.subscript)
                base = base.name
            if isinstance(base, c_ast.ID) and self._is_private(base.name) and (addressed or subscripts == []):
                for subscript in subscripts:
                    self.expression(subscript, may)
                continue  # a local of the statement: nothing to model
            variable = self.lookup(base.name) if isinstance(base, c_ast.ID) else None
            by_reference = variable is not None and (addressed or len(subscripts) < variable.ctype.rank) \
                and not (isinstance(variable.decl, c_ast.Decl) and isinstance(variable.decl.type, c_ast.FuncDecl))
            if not by_reference:
                self.expression(arg, may)
                continue
            for subscript in subscripts:
                self.expression(subscript, may)
            kind = self.classify(base.name, variable)
            if kind != "array":
                raise self._unsupported(f"call to '{name}'", node,
                                        f"may write '{base.name}' through its argument '{_text(arg)}', which the "
                                        "region may not write (a parameter, iterator or constant); not supported")
            const = params is not None and k < len(params) and _points_to_const(params[k].type)
            targets = [variable]
            if self.types is not None and isinstance(variable.decl, c_ast.Decl) \
                    and self.types.aggregate(variable.decl.type) is not None:
                # a struct: the model's arrays are its members (p__x), each reached whole
                leaves = self._leaves(variable.decl.type, [])
                if leaves is None:
                    raise self._unsupported(f"call to '{name}'", node,
                                            f"is given '{_text(arg)}', which holds a union; not supported")
                targets = [self._member(arg, variable, kind, fields) for fields in leaves]
            for target_variable in targets:
                whole = [Subscript(None, None, arg)] * target_variable.ctype.rank
                for is_write in (False, True) if not const else (False,):
                    self.result.records.append(AccessRecord(
                        self.statement, target_variable, self.model_name(target_variable), is_write, False,
                        whole, self.domain, self.builder, arg))
        for is_write in (False, True):
            self.result.records.append(AccessRecord(
                self.statement, EXTERNAL_STATE, EXTERNAL_STATE.name, is_write, not may, [], self.domain,
                self.builder, node))

    def lvalue(self, node: c_ast.Node, may: bool, also_read: bool) -> None:
        if not isinstance(node, (c_ast.ArrayRef, c_ast.ID, c_ast.StructRef)):
            if isinstance(node, c_ast.UnaryOp) and node.op == "*":
                raise self._unsupported("pointer dereference '*'", node)
            raise self._unsupported(f"assignment to '{type(node).__name__}'", node)
        if also_read:
            self.reference(node, is_write=False, must=True)
        self.reference(node, is_write=True, must=not may)

    def reference(self, node: c_ast.Node, is_write: bool, must: bool) -> None:
        """An access through ``node``: ``A[..][..]`` or a plain name."""
        subscripts: list[c_ast.Node] = []
        base = node
        while isinstance(base, c_ast.ArrayRef):
            subscripts.insert(0, base.subscript)
            base = base.name
        fields: list[str] = []
        while isinstance(base, c_ast.StructRef) and self.types is not None:
            # p[i].x[j]: the member x of the elements of p, an array of its own with subscripts [i][j];
            # p->x[j] is p[0].x[j]
            fields.insert(0, base.field.name)
            if base.type == "->":
                subscripts.insert(0, c_ast.Constant("int", "0", coord=base.coord))
            base = base.name
            while isinstance(base, c_ast.ArrayRef):
                subscripts.insert(0, base.subscript)
                base = base.name
        for s in subscripts:
            self.expression(s, False)
        if isinstance(base, c_ast.StructRef):
            raise self._unsupported("struct member access", base)
        if not isinstance(base, c_ast.ID):
            raise self._unsupported("subscript of a computed pointer", node)
        name = base.name
        if self._is_private(name):
            if subscripts:
                # arrays private to the statement: nothing to model
                return
            return
        variable = self.lookup(name)
        kind = self.classify(name, variable)
        if kind is None:
            raise self._unsupported(f"use of undeclared name '{name}'", base)
        if fields:
            variable = self._member(node, variable, kind, fields)
            kind = "array"
        elif variable is not None and self.types is not None and kind in ("array", "scalar-ro") \
                and self.types.aggregate(variable.decl.type) is not None \
                and len(subscripts) == variable.ctype.rank:
            # its members are arrays of their own: an access to the whole struct (b[i] = a) is an access
            # to each of them, whole where a member is an array
            leaves = self._leaves(variable.decl.type, [])
            if leaves is None or variable.declared_in_region or not isinstance(variable.decl, c_ast.Decl):
                raise self._unsupported(f"access to the whole struct '{name}'", node,
                                        "is not supported (access its members)")
            for fields in leaves:
                member = self._member(node, variable, kind, fields)
                inner = member.ctype.rank - len(subscripts)
                subs = [self._subscript(s) for s in subscripts] + [Subscript(None, None, node)] * inner
                self.result.records.append(AccessRecord(
                    self.statement, member, self.model_name(member), is_write, must, subs,
                    self.domain, self.builder, node))
            return
        if kind in ("iterator", "param", "const"):
            if is_write:
                what = {"iterator": "loop iterator", "param": "loop bound or subscript parameter",
                        "const": "constant"}[kind]
                raise self._unsupported(f"write to {what} '{name}'", node,
                                        "inside the region is not supported")
            if subscripts:
                raise self._unsupported(f"subscript of scalar '{name}'", node)
            return
        if kind == "scalar-ro":
            if is_write:
                raise AssertionError("written scalar classified read-only")
            if subscripts:
                raise self._unsupported(f"subscript of scalar '{name}'", node)
            self.result.read_only_scalars.add(name)
            return
        if kind == "exit":
            # a loop iterator after its loop: its final value, a function of the parameters
            if is_write or subscripts:
                raise self._unsupported(f"write to or subscript of loop iterator '{name}' after its loop", node)
            self.result.exit_uses.add(name)
            return
        if kind == "stale-iterator":
            raise self._unsupported(f"use of loop iterator '{name}' outside its loop", node)
        if kind == "function":
            raise self._unsupported(f"use of function '{name}' as a value", node)
        assert variable is not None
        rank = variable.ctype.rank
        if len(subscripts) != rank:
            if is_write and not subscripts:
                raise self._unsupported(f"assignment to pointer or array '{name}'", node)
            if len(subscripts) < rank:
                raise self._unsupported(f"use of array '{name}' without all its subscripts", node)
            raise self._unsupported(f"too many subscripts on '{name}'", node)
        subs = [self._subscript(s) for s in subscripts]
        self.result.records.append(AccessRecord(
            self.statement, variable, self.model_name(variable), is_write, must, subs,
            self.domain, self.builder, node))

    def _leaves(self, declarator: c_ast.Node, fields: list[str]) -> list[list[str]] | None:
        """The paths of the members of the struct ``declarator`` declares, down to members that are not
        structs; None where a union (its members overlap) or an unknown struct is met."""
        aggregate = self.types.aggregate(declarator)
        if aggregate is None:
            return [fields]
        if isinstance(aggregate, c_ast.Union) or not aggregate.decls:
            return None
        out: list[list[str]] = []
        for decl in aggregate.decls:
            if not isinstance(decl, c_ast.Decl) or not decl.name:
                return None
            inner = self._leaves(decl.type, fields + [decl.name])
            if inner is None:
                return None
            out += inner
        return out

    def _member(self, node: c_ast.Node, variable: Variable | None, kind: str, fields: list[str]) -> Variable:
        """The model's variable for member ``fields`` of the elements of ``variable``: ``p[i].x[j]`` is
        an access ``p__x[i][j]`` (members of a struct do not overlap, so each is an array of its own)."""
        shown = ".".join([variable.name if variable is not None else "?"] + fields)
        if variable is None or kind not in ("array", "scalar-ro") or variable.declared_in_region \
                or not isinstance(variable.decl, c_ast.Decl):
            raise self._unsupported(f"struct member access '{shown}'", node)
        dims = list(variable.ctype.dims) + [None] * variable.ctype.pointer_depth
        declarator = variable.decl.type
        ctype = variable.ctype
        path: list[tuple[str, int]] = []
        pointer = False
        for position, field_name in enumerate(fields):
            aggregate = self.types.aggregate(declarator)
            if isinstance(aggregate, c_ast.Union):
                raise self._unsupported(f"union member access '{shown}'", node,
                                        "is not supported (the members of a union overlap)")
            member = self.types.member(declarator, field_name)
            if member is None:
                raise self._unsupported(f"struct member access '{shown}'", node)
            declarator = member.type
            ctype = self.types.ctype(declarator)
            # the last member a pointer to its elements (p->a[i]): the GPU targets copy what it points to as
            # rows through pointers, the row's pointer read from the host's struct; other pointers they refuse
            pointer = position == len(fields) - 1 and ctype.pointer_depth == 1 and not ctype.dims
            if ctype.pointer_depth and not pointer:
                self.result.members.append((node, f"member '{field_name}' is a pointer, and a copy of the struct "
                                                  "on the device would hold a host address"))
            dims += list(ctype.dims) + [None] * ctype.pointer_depth
            path.append((field_name, len(ctype.dims) + ctype.pointer_depth))
        dims = dims[:len(dims) - ctype.pointer_depth]
        combined = CType(ctype.base, ctype.is_integer, ctype.is_float, tuple(dims), ctype.pointer_depth,
                         ctype.is_unsigned, ctype.resolved)
        struct_type = variable.ctype.base
        if not any(struct_type in d.defines for d in self.types.definitions):
            self.result.members.append((node, f"its struct type '{struct_type}' is not defined at file scope "
                                              "under a tag or typedef name, so kernels cannot name it"))
        where = Member(variable.name, struct_type, variable.ctype.rank, tuple(path), pointer)
        return Variable("__".join([variable.name] + fields), combined, False, variable.decl, where)

    def _subscript(self, node: c_ast.Node) -> Subscript:
        try:
            return Subscript(self.builder.pwaff(node), None, node)
        except NonAffine:
            pass

        def is_symbol(name: str) -> bool:
            meaning = self.builder.resolve(name)
            return meaning is not None and meaning[0] in ("dim", "param")

        return Subscript(None, polynomial(node, is_symbol, self.enums), node)


def _points_to_const(node: c_ast.Node) -> bool:
    """Whether a parameter's type is a pointer (or array) to const data."""
    while isinstance(node, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        node = node.type
    return isinstance(node, c_ast.TypeDecl) and "const" in (node.quals or [])


def _text(node: c_ast.Node) -> str:
    from pycparser import c_generator

    return c_generator.CGenerator().visit(node)
