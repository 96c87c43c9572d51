"""Functions defined in the file that a region may call: the pure ones.

A call is modelled by the accesses of its arguments only, so the function must touch no memory the
region could see: its parameters are scalars (passed by value), it reads and writes only its
parameters and locals (no global variable, no pointer), calls only pure math functions and other
such functions (no recursion), and returns a value.  Such a function is also what a kernel can call:
the GPU targets emit it, with its callees, as a device function.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from pycparser import c_ast, c_generator

from polypragma.frontend.c_tree import has_side_effects, rewrite_children
from polypragma.frontend.library import PURE_FUNCTIONS
from polypragma.frontend.row_bounds import Assumptions, RowAssumption, admitted, row_condition
from polypragma.frontend.symbols import TypeTable
from polypragma.model import CType

class FileFunctions:
    """The function definitions of a translation unit, and which of them are pure."""

    def __init__(self, types: TypeTable):
        self.types = types
        self.definitions: dict[str, c_ast.FuncDef] = types.function_definitions
        self._pure: dict[str, bool] = {}
        self._why: dict[str, str] = {}

    def is_pure(self, name: str) -> bool:
        return self._check(name, ())

    def why_not(self, name: str) -> str:
        """Why ``name`` is not pure (for a diagnostic)."""
        self._check(name, ())
        return self._why.get(name, "")

    def callees(self, names: set[str]) -> list[str]:
        """``names`` and the file functions they call, callees first."""
        order: list[str] = []

        def visit(name: str) -> None:
            if name in order or name not in self.definitions:
                return
            for call in _calls(self.definitions[name].body):
                visit(call)
            order.append(name)

        for name in sorted(names):
            visit(name)
        return order

    def recursive(self, name: str) -> bool:
        """Whether ``name`` calls itself, directly or through other functions of the file."""
        seen: set[str] = set()
        pending = list(_calls(self.definitions[name].body)) if name in self.definitions else []
        while pending:
            callee = pending.pop()
            if callee == name:
                return True
            if callee in seen or callee not in self.definitions:
                continue
            seen.add(callee)
            pending.extend(_calls(self.definitions[callee].body))
        return False

    def device_definition(self, name: str) -> c_ast.FuncDef:
        """A copy of the definition without storage class or inline, for a kernel's unit."""
        definition = copy.deepcopy(self.definitions[name])
        definition.decl.storage = []
        definition.decl.funcspec = []
        return definition

    def _check(self, name: str, active: tuple[str, ...]) -> bool:
        if name in self._pure:
            return self._pure[name]
        if name in active:
            self._why[name] = "is recursive"
            return False
        definition = self.definitions.get(name)
        if definition is None:
            return False
        why = self._impure(definition, active + (name,))
        self._pure[name] = why is None
        if why is not None:
            self._why[name] = why
        return why is None

    def _impure(self, definition: c_ast.FuncDef, active: tuple[str, ...]) -> str | None:
        function_type = definition.decl.type
        result = self.types.ctype(function_type.type)
        if result.base == "void" and result.pointer_depth == 0:
            return "returns no value"
        if not result.is_scalar:
            return "returns a pointer"
        local: set[str] = set()
        for param in (function_type.args.params if function_type.args is not None else []):
            if isinstance(param, c_ast.Decl) and param.name:
                ctype = self.types.ctype(param.type)
                if not ctype.is_scalar:
                    return f"takes the pointer or array '{param.name}'"
                local.add(param.name)
        for node in _walk(definition.body):
            if isinstance(node, c_ast.Decl) and node.name:
                if "static" in (node.storage or []) or "extern" in (node.storage or []):
                    return f"declares the {'static' if 'static' in (node.storage or []) else 'extern'} '{node.name}'"
                if self.types.ctype(node.type).pointer_depth:
                    return f"declares the pointer '{node.name}'"
                local.add(node.name)
        for node in _walk(definition.body):
            if isinstance(node, c_ast.ID) and node.name not in local and node.name not in self.types.enumerators:
                return f"uses '{node.name}', which is not one of its parameters or locals"
            if isinstance(node, c_ast.UnaryOp) and node.op in ("*", "&"):
                return "dereferences or takes an address"
            if isinstance(node, (c_ast.Goto, c_ast.Label)):
                return "uses goto"
            if isinstance(node, c_ast.FuncCall):
                callee = node.name.name if isinstance(node.name, c_ast.ID) else None
                if callee is None:
                    return "calls through a function pointer"
                if callee in PURE_FUNCTIONS:
                    continue
                if callee in active:
                    return "is recursive" if callee == active[-1] else f"is recursive (through '{callee}')"
                if callee not in self.definitions or not self._check(callee, active):
                    return f"calls '{callee}', which may have side effects"
        return None


def inline_call(call: c_ast.FuncCall, definitions: dict[str, c_ast.FuncDef], types: TypeTable,
                globals_: set[str], variable_type: Callable[[str], CType | None] = lambda name: None,
                assumptions: Assumptions | None = None, result: str | None = None) -> c_ast.Compound | str | None:
    """The body of the ``void`` function ``call`` calls, its parameters replaced by the arguments, or None
    when that would not mean the same: a pointer or array argument that is not a plain name, an argument
    with side effects, a parameter the function assigns, a name other than its parameters, locals and
    the file's globals, a ``return`` other than a last one, or a ``goto`` (then why, for a diagnostic;
    None for a function the file does not define or that returns a value).  A row given for a pointer
    parameter whose subscripts stay in it only for some values of names the region does not change
    (``set_row(m, A[i])`` with ``row[j]``, ``j < m``, in rows of 20) is inlined where ``assumptions`` is
    given, which receives the condition (``m <= 20``) for the run-time check.  With ``result``, the
    function returns a number instead, as its last statement, ``return e;``, which becomes ``result = e;``
    (``result`` a fresh name the caller declares)."""
    name = call.name.name if isinstance(call.name, c_ast.ID) else None
    definition = definitions.get(name)
    if definition is None:
        return None
    function_type = definition.decl.type
    returned = types.ctype(function_type.type)
    if (returned.base == "void" and not returned.pointer_depth) != (result is None) or returned.pointer_depth \
            or not returned.is_scalar:
        return None
    _G = c_generator.CGenerator()
    params = [p for p in (function_type.args.params if function_type.args is not None else [])
              if isinstance(p, c_ast.Decl) and p.name]
    args = list(call.args.exprs) if call.args is not None else []
    if len(params) != len(args):
        return "cannot be inlined: the call does not pass one argument per parameter"
    substitution: dict[str, c_ast.Node] = {}
    # pointer and array parameters given a row or an element of an array (A[i], &A[i][j], A + k)
    parts: dict[str, tuple[str, c_ast.ArrayRef]] = {}
    reading: list[c_ast.Node] = []  # scalar arguments that read memory
    for param, arg in zip(params, args):
        if has_side_effects(arg, PURE_FUNCTIONS):
            return f"cannot be inlined: the argument '{_G.visit(arg)}' has side effects"
        if types.ctype(param.type).is_scalar and any(
                isinstance(n, (c_ast.ArrayRef, c_ast.StructRef)) or (isinstance(n, c_ast.UnaryOp) and n.op == "*")
                for n in _walk(arg)):
            if any(isinstance(n, c_ast.StructRef) or (isinstance(n, c_ast.UnaryOp) and n.op == "*")
                   for n in _walk(arg)):
                return f"cannot be inlined: the argument '{_G.visit(arg)}' reads memory"
            reading.append(arg)  # read where the body reads it: the same value unless the body writes it
        if not types.ctype(param.type).is_scalar and not isinstance(arg, c_ast.ID):
            part = array_part(arg)
            if isinstance(part, str):
                return (f"cannot be inlined: the argument '{_G.visit(arg)}' for the pointer or array "
                        f"'{param.name}' {part}")
            parts[param.name] = part
            continue
        substitution[param.name] = arg
    rows = {name: part[1] for name, part in parts.items() if part[0] == "row"}
    pending: list[RowAssumption] = []
    function_name = name
    if rows:
        # (its scalars given their values: 'k < len' is 'k < m' where the call passes m)
        scalars_given = substitute(copy.deepcopy(definition.body), substitution, {})
        for name, row in rows.items():
            refusal = (f"cannot be inlined: its subscripts through '{name}', given the row '{_G.visit(row)}', may "
                       "reach past the row's end")
            condition = row_condition(row, [scalars_given], name, variable_type)
            if not admitted(condition, assumptions):
                return refusal
            if condition is not True:
                pending.append(RowAssumption(condition, f"do the subscripts through '{name}' of '{function_name}', "
                                             f"given the row '{_G.visit(row)}', stay in that row",
                                             f"call to '{function_name}'", refusal, call))
    body = copy.deepcopy(definition.body)
    items = list(body.block_items or [])
    if result is not None:
        if not items or not isinstance(items[-1], c_ast.Return) or items[-1].expr is None:
            return "cannot be inlined: its last statement is not the 'return' of its value"
        last = items[-1]
        body.block_items = items = items[:-1] + [c_ast.Assignment("=", c_ast.ID(result, coord=last.coord), last.expr,
                                                                  coord=last.coord)]
    elif items and isinstance(items[-1], c_ast.Return) and items[-1].expr is None:
        body.block_items = items = items[:-1]
    local = {n.name for n in _walk(body) if isinstance(n, c_ast.Decl) and n.name} | ({result} if result else set())
    replaced = set(substitution) | set(parts)
    if local & replaced:
        return "cannot be inlined: it declares a local named as a parameter"
    for node in _walk(body):
        if isinstance(node, (c_ast.Return, c_ast.Goto, c_ast.Label)):
            return "cannot be inlined: it returns early or uses goto"
        if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID) \
                and node.lvalue.name in replaced:
            return f"cannot be inlined: it assigns its parameter '{node.lvalue.name}'"
        if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--", "&") \
                and isinstance(node.expr, c_ast.ID) and node.expr.name in replaced:
            return f"cannot be inlined: it changes or takes the address of its parameter '{node.expr.name}'"
        if isinstance(node, c_ast.ID) and node.name not in replaced and node.name not in local \
                and node.name not in globals_ and node.name not in types.enumerators:
            return f"cannot be inlined: it uses '{node.name}', which the region's function does not see as it does"
    # (the body's own locals are other variables: those named as the arguments' are renamed below)
    written = {n.lvalue.name for n in _walk(body) if isinstance(n, c_ast.Assignment)
               and isinstance(n.lvalue, c_ast.ID)} - local
    for param, arg in zip(params, args):
        # a subscript of a row or element argument is evaluated once, at the call, as a scalar is
        if (types.ctype(param.type).is_scalar or param.name in parts) and any(
                isinstance(n, c_ast.ID) and n.name in written for n in _walk(arg)):
            return f"cannot be inlined: the body assigns a variable the argument '{_G.visit(arg)}' reads"
    if reading:
        # C reads such an argument once, at the call; the body may read it again only where nothing it
        # writes can have changed it (distinct arrays are disjoint in the model)
        written_arrays = set()
        for node in _walk(body):
            target = node.lvalue if isinstance(node, c_ast.Assignment) else \
                node.expr if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--") else None
            if isinstance(target, (c_ast.ArrayRef, c_ast.UnaryOp)):
                name = _base_name(target)
                if name in parts:
                    name = _base_name(parts[name][1])
                elif name in substitution:
                    name = _base_name(substitution[name])
                written_arrays.add(name)
        for arg in reading:
            read = {_base_name(n) for n in _walk(arg) if isinstance(n, c_ast.ArrayRef)}
            if read & written_arrays or None in written_arrays:
                return (f"cannot be inlined: the argument '{_G.visit(arg)}' reads memory the body writes "
                        "(C reads it once, at the call)")
    if parts:
        # (given whole to a function of the file, inlined in turn with the row or element as its argument)
        through = {id(n.name) for n in _walk(body) if isinstance(n, c_ast.ArrayRef)} | \
            {id(n.expr) for n in _walk(body) if isinstance(n, c_ast.UnaryOp) and n.op == "*"
             and isinstance(n.expr, c_ast.ID) and parts.get(n.expr.name, ("",))[0] == "element"} | \
            {id(a) for n in _walk(body) if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)
             and n.name.name in definitions and n.args is not None for a in n.args.exprs}
        for node in _walk(body):
            if isinstance(node, c_ast.ID) and node.name in parts and id(node) not in through:
                return (f"cannot be inlined: it uses its pointer parameter '{node.name}' other than through a "
                        "subscript" + (" or '*'" if parts[node.name][0] == "element" else ""))
    # the body's locals must not capture the names the arguments read (copy(B[i], A[i]) into a body
    # looping on its own 'i')
    argument_names = {n.name for arg in args for n in _walk(arg) if isinstance(n, c_ast.ID)}
    taken = set(globals_) | local | argument_names | {p.name for p in params}
    renames = {}
    for name_ in sorted(local & argument_names):
        fresh, k = f"{name_}_{name}", 1
        while fresh in taken:
            fresh, k = f"{name_}_{name}_{k}", k + 1
        taken.add(fresh)
        renames[name_] = fresh
    if renames:
        _rename_locals(body, renames)
    body = substitute(body, substitution, parts)
    body.coord = call.coord
    if pending:
        assumptions.made.extend(pending)
    return body


def _base_name(node: c_ast.Node) -> str | None:
    """The array a subscript or dereference reaches (``A`` for ``A[i][j]`` and ``*A``), or None."""
    while isinstance(node, (c_ast.ArrayRef, c_ast.UnaryOp)):
        node = node.name if isinstance(node, c_ast.ArrayRef) else node.expr
    return node.name if isinstance(node, c_ast.ID) else None


def array_part(arg: c_ast.Node) -> tuple[str, c_ast.ArrayRef] | str:
    """A row or an element of an array as an argument for a pointer or array parameter: ``A[i]`` (a
    row: the parameter's subscripts follow), ``&A[i][j]`` or ``A + k`` (an element: the parameter's
    first subscript adds to the last one), as ("row" or "element", the subscripted array); subscripts
    must read no memory (C evaluates them once, at the call).  Otherwise why not."""
    kind = "row"
    while isinstance(arg, c_ast.BinaryOp) and arg.op == "+" and isinstance(arg.left, c_ast.BinaryOp) \
            and arg.left.op == "+":
        # (x + i) + 1: x + (i + 1)
        arg = c_ast.BinaryOp("+", arg.left.left, c_ast.BinaryOp("+", arg.left.right, arg.right), coord=arg.coord)
    if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(arg.expr, c_ast.ArrayRef):
        kind, arg = "element", arg.expr
    elif isinstance(arg, c_ast.BinaryOp) and arg.op == "+" and isinstance(arg.left, (c_ast.ID, c_ast.ArrayRef)):
        kind, arg = "element", c_ast.ArrayRef(arg.left, arg.right, coord=arg.coord)
    if not isinstance(arg, c_ast.ArrayRef):
        return "is not the name of an array, a row or the address of an element"
    if kind == "element" and isinstance(arg.name, c_ast.ArrayRef):
        # &A[i][j]: the callee may step from it into the next rows, which the model's A[i][j + k] misses
        return "is the address of an element of a row (the callee may reach other rows through it)"
    base = arg
    while isinstance(base, c_ast.ArrayRef):
        if any(isinstance(n, (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall))
               or (isinstance(n, c_ast.UnaryOp) and n.op in ("*", "&")) for n in _walk(base.subscript)):
            return "has a subscript that reads memory"
        base = base.name
    if not isinstance(base, c_ast.ID):
        return "is not the name of an array, a row or the address of an element"
    return kind, arg


def substitute(node: c_ast.Node, substitution: dict[str, c_ast.Node],
             parts: dict[str, tuple[str, c_ast.ArrayRef]]) -> c_ast.Node:
    """``node`` with its parameters replaced by the arguments, in one pass (an argument is not rewritten
    again, even where it names a parameter of the callee): a name by its argument, and for a row
    ``A[i]``, ``x[k]`` by ``A[i][k]``; for an element ``&A[i][j]``, ``x[k]`` by ``A[i][j + k]`` and ``*x`` by
    ``A[i][j]``; a row or element given whole (to a call) by ``A[i]`` or ``&A[i][j]``.  Member names and callees
    are not parameters."""
    if isinstance(node, c_ast.ID) and node.name in substitution:
        return copy.deepcopy(substitution[node.name])
    if isinstance(node, c_ast.ID) and node.name in parts:
        kind, target = parts[node.name]
        return copy.deepcopy(target) if kind == "row" else c_ast.UnaryOp("&", copy.deepcopy(target), coord=node.coord)
    if isinstance(node, c_ast.ArrayRef) and isinstance(node.name, c_ast.ID) and node.name.name in parts:
        kind, target = parts[node.name.name]
        subscript = substitute(node.subscript, substitution, parts)
        if kind == "row":
            return c_ast.ArrayRef(copy.deepcopy(target), subscript, coord=node.coord)
        element = copy.deepcopy(target)
        element.subscript = c_ast.BinaryOp("+", element.subscript, subscript, coord=node.coord)
        return element
    if isinstance(node, c_ast.UnaryOp) and node.op == "*" and isinstance(node.expr, c_ast.ID) \
            and node.expr.name in parts and parts[node.expr.name][0] == "element":
        return copy.deepcopy(parts[node.expr.name][1])
    # a member's name and the callee's name are not variables
    skip = ("field",) if isinstance(node, c_ast.StructRef) else ("name",) if isinstance(node, c_ast.FuncCall) else ()
    return rewrite_children(node, lambda child: substitute(child, substitution, parts), skip)


def _rename_locals(body: c_ast.Node, renames: dict[str, str]) -> None:
    """Rename the locals of an inlined body (declarations and uses)."""
    for node in _walk(body):
        if isinstance(node, c_ast.ID) and node.name in renames:
            node.name = renames[node.name]
        elif isinstance(node, c_ast.Decl) and node.name in renames:
            node.name = renames[node.name]
            inner = node.type
            while not isinstance(inner, c_ast.TypeDecl) and hasattr(inner, "type"):
                inner = inner.type
            if isinstance(inner, c_ast.TypeDecl):
                inner.declname = node.name


def _calls(node: c_ast.Node) -> list[str]:
    return [n.name.name for n in _walk(node) if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)]


def _walk(node: c_ast.Node):
    yield node
    for _, child in node.children():
        if isinstance(node, c_ast.FuncCall) and child is node.name:
            continue  # the callee's name is not a variable
        if isinstance(node, c_ast.StructRef) and child is node.field:
            continue  # nor is a member's name
        yield from _walk(child)
