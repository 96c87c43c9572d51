"""Functions defined in the file that a region may call: the pure ones.

A call is modelled by the accesses of its arguments only, so the function must touch no memory the
region could see: its parameters are scalars (passed by value), it reads and writes only its
parameters and locals (no global variable, no pointer), calls only pure math functions and other
such functions (no recursion), and returns a value.  Such a function is also what a kernel can call:
the GPU targets emit it, with its callees, as a device function.
"""

from __future__ import annotations

import copy

from pycparser import c_ast, c_generator

from polypragma.frontend.accesses import PURE_FUNCTIONS
from polypragma.frontend.symbols import TypeTable

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
                globals_: set[str]) -> c_ast.Compound | str | None:
    """The body of the ``void`` function ``call`` calls, its parameters replaced by the arguments, or None
    when that would not mean the same: a pointer or array argument that is not a plain name, an argument
    with side effects, a parameter the function assigns, a name other than its parameters, locals and
    the file's globals, a ``return`` other than a last one, or a ``goto`` (then why, for a diagnostic;
    None for a function the file does not define or that returns a value)."""
    name = call.name.name if isinstance(call.name, c_ast.ID) else None
    definition = definitions.get(name)
    if definition is None:
        return None
    function_type = definition.decl.type
    if types.ctype(function_type.type).base != "void" or types.ctype(function_type.type).pointer_depth:
        return None
    _G = c_generator.CGenerator()
    params = [p for p in (function_type.args.params if function_type.args is not None else [])
              if isinstance(p, c_ast.Decl) and p.name]
    args = list(call.args.exprs) if call.args is not None else []
    if len(params) != len(args):
        return "cannot be inlined: the call does not pass one argument per parameter"
    substitution: dict[str, c_ast.Node] = {}
    for param, arg in zip(params, args):
        if any(isinstance(n, (c_ast.Assignment, c_ast.FuncCall)) or
               (isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")) for n in _walk(arg)):
            return f"cannot be inlined: the argument '{_G.visit(arg)}' has side effects"
        if types.ctype(param.type).is_scalar and any(
                isinstance(n, (c_ast.ArrayRef, c_ast.StructRef)) or (isinstance(n, c_ast.UnaryOp) and n.op == "*")
                for n in _walk(arg)):
            # C reads it once, at the call; the body might change that element before reading it again
            return f"cannot be inlined: the argument '{_G.visit(arg)}' reads memory"
        if not types.ctype(param.type).is_scalar and not isinstance(arg, c_ast.ID):
            return (f"cannot be inlined: the argument '{_G.visit(arg)}' for the pointer or array "
                    f"'{param.name}' is not the name of an array")
        substitution[param.name] = arg
    body = copy.deepcopy(definition.body)
    items = list(body.block_items or [])
    if items and isinstance(items[-1], c_ast.Return) and items[-1].expr is None:
        body.block_items = items = items[:-1]
    local = {n.name for n in _walk(body) if isinstance(n, c_ast.Decl) and n.name}
    if local & set(substitution):
        return "cannot be inlined: it declares a local named as a parameter"
    for node in _walk(body):
        if isinstance(node, (c_ast.Return, c_ast.Goto, c_ast.Label)):
            return "cannot be inlined: it returns early or uses goto"
        if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID) \
                and node.lvalue.name in substitution:
            return f"cannot be inlined: it assigns its parameter '{node.lvalue.name}'"
        if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--", "&") \
                and isinstance(node.expr, c_ast.ID) and node.expr.name in substitution:
            return f"cannot be inlined: it changes or takes the address of its parameter '{node.expr.name}'"
        if isinstance(node, c_ast.ID) and node.name not in substitution and node.name not in local \
                and node.name not in globals_ and node.name not in types.enumerators:
            return f"cannot be inlined: it uses '{node.name}', which the region's function does not see as it does"
    written = {n.lvalue.name for n in _walk(body) if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID)}
    for param, arg in zip(params, args):
        if types.ctype(param.type).is_scalar and any(isinstance(n, c_ast.ID) and n.name in written for n in _walk(arg)):
            return f"cannot be inlined: the body assigns a variable the argument '{_G.visit(arg)}' reads"
    _substitute(body, substitution)
    body.coord = call.coord
    return body


def _substitute(node: c_ast.Node, substitution: dict[str, c_ast.Node]) -> None:
    """Replace the IDs named in ``substitution`` below ``node`` (not member names, not callees)."""
    for attribute in _SUBSTITUTABLE:
        child = getattr(node, attribute, None)
        if isinstance(child, c_ast.ID) and child.name in substitution \
                and not (isinstance(node, c_ast.StructRef) and attribute == "field") \
                and not (isinstance(node, c_ast.FuncCall) and attribute == "name"):
            replacement = copy.deepcopy(substitution[child.name])
            setattr(node, attribute, replacement)
    for attribute in ("exprs", "block_items"):
        children = getattr(node, attribute, None)
        if isinstance(children, list):
            for k, child in enumerate(children):
                if isinstance(child, c_ast.ID) and child.name in substitution:
                    children[k] = copy.deepcopy(substitution[child.name])
    for _, child in node.children():
        if not isinstance(child, c_ast.ID):
            _substitute(child, substitution)


_SUBSTITUTABLE = ("lvalue", "rvalue", "left", "right", "expr", "cond", "iftrue", "iffalse", "subscript", "name",
                  "init", "next", "stmt", "field")


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
