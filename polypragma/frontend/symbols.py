"""C declarations seen from a region: variable types and scopes."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast, c_generator

from polypragma.frontend.c_tree import subtree
from polypragma.frontend.preprocess import is_stub_header
from polypragma.model import CType, Variable

_GENERATOR = c_generator.CGenerator()
_PURE_PRAGMA = re.compile(r"\s*polypragma\s+pure\s*\(([\w\s,]+)\)\s*$")
# extended types the parser learns from include/polypragma_types.h: kept by their own names (the c target
# prints them as written; kernels cannot declare them), integer or floating
EXTENDED_TYPES = {"_Float16": False, "_Float32": False, "_Float64": False, "_Float32x": False,
                  "_Float64x": False, "_Float128": False, "__float128": False, "__float80": False, "__fp16": False,
                  "__bf16": False, "__int128": True, "__uint128_t": True, "__int128_t": True}
_INTEGER_WORDS = {"char", "short", "int", "long", "signed", "unsigned", "_Bool", "bool"}
_INTEGER_TYPEDEFS = {
    "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "off_t",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "int_fast8_t", "int_fast16_t", "int_fast32_t", "int_fast64_t",
    "uint_fast8_t", "uint_fast16_t", "uint_fast32_t", "uint_fast64_t",
    "int_least8_t", "int_least16_t", "int_least32_t", "int_least64_t",
    "uint_least8_t", "uint_least16_t", "uint_least32_t", "uint_least64_t",
    "intmax_t", "uintmax_t",
}
_FLOAT_WORDS = {"float", "double"}
_STANDARD_RESOLVED = {
    "size_t": "unsigned long", "ssize_t": "long", "ptrdiff_t": "long", "intptr_t": "long",
    "uintptr_t": "unsigned long", "off_t": "long", "intmax_t": "long", "uintmax_t": "unsigned long",
    "int8_t": "signed char", "int16_t": "short", "int32_t": "int", "int64_t": "long",
    "uint8_t": "unsigned char", "uint16_t": "unsigned short", "uint32_t": "unsigned int", "uint64_t": "unsigned long",
}
_UNSIGNED_TYPEDEFS = {"size_t", "uintptr_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "uintmax_t",
                      "uint_fast8_t", "uint_fast16_t", "uint_fast32_t", "uint_fast64_t",
                      "uint_least8_t", "uint_least16_t", "uint_least32_t", "uint_least64_t"}


@dataclass(frozen=True)
class TypeDefinition:
    """A file-scope definition of types or constants: a typedef, a struct, union or enum."""

    text: str  # C text, ending with ';'
    defines: frozenset[str]  # typedef names, 'struct tag' (and union, enum), enumerators
    uses: frozenset[str]  # the names of the same kinds its text refers to
    file: str = ""  # where it starts (generated file-scope code that names its types goes after it)
    line: int = 0


class TypeTable:
    """The typedefs of a translation unit, to see through ``typedef double real;``, and the
    definitions of types and enumerators that generated kernels must repeat (a ``.cu`` file or an
    OpenCL program does not see the user's file)."""

    def __init__(self, ast: c_ast.FileAST):
        self.typedefs: dict[str, c_ast.Node] = {}
        self.enumerators: dict[str, int] = {}
        self.definitions: list[TypeDefinition] = []
        # the functions the file defines (not the stub headers), by name
        self.function_definitions: dict[str, c_ast.FuncDef] = {}
        self.aggregates: dict[str, c_ast.Struct | c_ast.Union] = {}  # 'struct tag' -> its definition
        # functions the user declares pure ('#pragma polypragma pure(f, g)' at file scope)
        self.declared_pure: set[str] = set()
        for node in ast.ext:
            if isinstance(node, c_ast.Pragma):
                match = _PURE_PRAGMA.match(node.string)
                if match:
                    self.declared_pure |= {name.strip() for name in match.group(1).split(",")}
            if isinstance(node, c_ast.FuncDef) and node.coord is not None \
                    and not is_stub_header(str(node.coord.file)):
                self.function_definitions[node.decl.name] = node
            if isinstance(node, c_ast.Typedef):
                self.typedefs[node.name] = node.type
            self._collect_enums(node)
            for child in subtree(node):
                if isinstance(child, (c_ast.Struct, c_ast.Union)) and child.decls is not None and child.name:
                    self.aggregates.setdefault(_tag(child), child)
            self._collect_definition(node)

    def aggregate(self, node: c_ast.Node) -> c_ast.Struct | c_ast.Union | None:
        """The struct or union (with its members) that the declarator ``node`` has as element type."""
        while not isinstance(node, c_ast.TypeDecl):
            if not isinstance(node, (c_ast.ArrayDecl, c_ast.PtrDecl)):
                return None
            node = node.type
        inner = node.type
        if isinstance(inner, (c_ast.Struct, c_ast.Union)):
            if inner.decls is None:
                return self.aggregates.get(_tag(inner))
            return inner
        if isinstance(inner, c_ast.IdentifierType) and len(inner.names) == 1 and inner.names[0] in self.typedefs:
            return self.aggregate(self.typedefs[inner.names[0]])
        return None

    def member(self, node: c_ast.Node, field: str) -> c_ast.Decl | None:
        """The declaration of member ``field`` of the struct or union that ``node`` declares."""
        aggregate = self.aggregate(node)
        if aggregate is None:
            return None
        return next((d for d in aggregate.decls or [] if isinstance(d, c_ast.Decl) and d.name == field), None)

    def _collect_definition(self, node: c_ast.Node) -> None:
        if node.coord is None or is_stub_header(str(node.coord.file)):
            return  # the target's own headers give the standard types
        if isinstance(node, c_ast.Typedef):
            self.definitions.append(TypeDefinition(
                _definition_text(node), frozenset({node.name}) | _defined_names(node.type),
                _used_type_names(node.type), str(node.coord.file), node.coord.line))
        elif isinstance(node, c_ast.Decl) and not isinstance(node.type, c_ast.FuncDecl):
            for child in subtree(node.type):
                if isinstance(child, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and (
                        getattr(child, "decls", None) is not None or getattr(child, "values", None) is not None):
                    self.definitions.append(TypeDefinition(
                        _definition_text(child), _defined_names(child), _used_type_names(child),
                        str(node.coord.file), node.coord.line))
                    break

    def used_definitions(self, nodes: list[c_ast.Node]) -> tuple[TypeDefinition, ...]:
        """The definitions ``nodes`` rely on, with those they rely on in turn, in the file's order."""
        wanted: set[str] = set()
        for node in nodes:
            if node is not None:
                wanted |= _used_type_names(node)
        chosen: set[int] = set()
        changed = True
        while changed:
            changed = False
            for k, definition in enumerate(self.definitions):
                if k not in chosen and definition.defines & wanted:
                    chosen.add(k)
                    wanted |= definition.uses
                    changed = True
        return tuple(self.definitions[k] for k in sorted(chosen))

    def _collect_enums(self, node: c_ast.Node) -> None:
        for child in subtree(node):
            if isinstance(child, c_ast.Enum) and child.values is not None:
                value = -1
                for e in child.values.enumerators:
                    if e.value is not None:
                        from polypragma.frontend.affine import constant_value

                        v = constant_value(e.value, self.enumerators)
                        value = v if v is not None else value + 1
                    else:
                        value += 1
                    self.enumerators[e.name] = value

    def ctype(self, node: c_ast.Node) -> CType:
        """The :class:`CType` of a declarator (``Decl.type``)."""
        dims: list[c_ast.Node | None] = []
        pointers = 0
        while True:
            if isinstance(node, c_ast.ArrayDecl):
                if pointers == 1 and not dims:
                    # a pointer to arrays, double (*A)[N], is subscripted as double A[][N] is
                    pointers = 0
                    dims.append(None)
                    dims.append(node.dim)
                elif pointers:
                    # pointer to array etc.: treat as an opaque pointer level
                    pointers += 1
                else:
                    dims.append(node.dim)
                node = node.type
            elif isinstance(node, c_ast.PtrDecl):
                pointers += 1
                node = node.type
            elif isinstance(node, c_ast.TypeDecl):
                inner = node.type
                if isinstance(inner, c_ast.IdentifierType):
                    names = inner.names
                    if len(names) == 1 and names[0] in _UNSIGNED_TYPEDEFS | _INTEGER_TYPEDEFS:
                        # standard names: trust the name, not the stub header's typedef
                        return CType(names[0], True, False, tuple(dims), pointers,
                                     names[0] in _UNSIGNED_TYPEDEFS, _STANDARD_RESOLVED.get(names[0], "long"))
                    if len(names) == 1 and names[0] in EXTENDED_TYPES:
                        integer = EXTENDED_TYPES[names[0]]
                        return CType(names[0], integer, not integer, tuple(dims), pointers,
                                     names[0] == "__uint128_t", names[0])
                    if len(names) == 1 and names[0] in self.typedefs:
                        resolved = self.ctype(self.typedefs[names[0]])
                        return CType(
                            base=names[0],
                            is_integer=resolved.is_integer,
                            is_float=resolved.is_float,
                            dims=tuple(dims) + resolved.dims,
                            pointer_depth=pointers + resolved.pointer_depth,
                            is_unsigned=resolved.is_unsigned,
                            resolved=resolved.resolved,
                        )
                    words = set(names)
                    is_float = bool(words & _FLOAT_WORDS)
                    is_integer = not is_float and (
                        bool(words & _INTEGER_WORDS) or (len(names) == 1 and names[0] in _INTEGER_TYPEDEFS)
                    )
                    unsigned = is_integer and ("unsigned" in words or "_Bool" in words or "bool" in words)
                    return CType(" ".join(names), is_integer, is_float, tuple(dims), pointers, unsigned,
                                 " ".join(names))
                # struct, union, enum
                kind = type(inner).__name__.lower()
                name = getattr(inner, "name", None) or ""
                is_enum = isinstance(inner, c_ast.Enum)
                return CType(f"{kind} {name}".strip(), is_enum, False, tuple(dims), pointers)
            elif isinstance(node, c_ast.FuncDecl):
                return CType("function", False, False, tuple(dims), pointers)
            else:
                return CType("?", False, False, tuple(dims), pointers)


def _definition_text(node: c_ast.Node) -> str:
    return "\n".join(line.rstrip() for line in (_GENERATOR.visit(node) + ";").splitlines())


def _tag(node: c_ast.Node) -> str | None:
    name = getattr(node, "name", None)
    return f"{type(node).__name__.lower()} {name}" if name else None


def _defined_names(node: c_ast.Node) -> frozenset[str]:
    """The struct, union and enum tags and the enumerators a type definition introduces."""
    names: set[str] = set()
    for child in subtree(node):
        if isinstance(child, (c_ast.Struct, c_ast.Union)) and child.decls is not None and child.name:
            names.add(_tag(child))
        elif isinstance(child, c_ast.Enum) and child.values is not None:
            if child.name:
                names.add(_tag(child))
            names |= {e.name for e in child.values.enumerators}
    return frozenset(names)


def _used_type_names(node: c_ast.Node) -> frozenset[str]:
    """Typedef names, tags and identifiers (possibly enumerators) that ``node`` refers to."""
    names: set[str] = set()
    for child in subtree(node):
        if isinstance(child, c_ast.IdentifierType):
            names |= set(child.names)
        elif isinstance(child, c_ast.ID):
            names.add(child.name)
        elif isinstance(child, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and child.name:
            names.add(_tag(child))
    return frozenset(names)


class Scope:
    """A chain of name -> Variable maps, innermost last."""

    def __init__(self, parent: "Scope | None" = None):
        self.parent = parent
        self.names: dict[str, Variable] = {}

    def lookup(self, name: str) -> Variable | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def add(self, variable: Variable) -> None:
        self.names[variable.name] = variable

    def child(self) -> "Scope":
        return Scope(self)


def declare(scope: Scope, decl: c_ast.Decl, types: TypeTable, in_region: bool = False) -> None:
    """Add the variable a ``Decl`` introduces (if any) to ``scope``."""
    if decl.name is None or isinstance(decl.type, c_ast.FuncDecl):
        return
    if "typedef" in (decl.storage or []):
        return
    scope.add(Variable(decl.name, types.ctype(decl.type), in_region, decl))


def scope_at(ast: c_ast.FileAST, func: c_ast.FuncDef, path: list[c_ast.Compound], types: TypeTable,
             upto: c_ast.Node) -> Scope:
    """The scope seen at statement ``upto``: globals, parameters, and the
    declarations of the enclosing blocks ``path`` (outermost first) before it."""
    scope = Scope()
    for node in ast.ext:
        if isinstance(node, c_ast.Decl):
            declare(scope, node, types)
        elif isinstance(node, c_ast.FuncDef) and node is func:
            break
    scope = scope.child()
    params = func.decl.type.args
    if params is not None:
        for p in params.params:
            if isinstance(p, c_ast.Decl):
                declare(scope, p, types)
    for depth, block in enumerate(path):
        scope = scope.child()
        stop = path[depth + 1] if depth + 1 < len(path) else upto
        for item in block.block_items or []:
            if item is stop or _contains(item, stop):
                if isinstance(item, c_ast.For) and isinstance(item.init, c_ast.DeclList):
                    for d in item.init.decls:
                        declare(scope, d, types)
                break
            if isinstance(item, c_ast.Decl):
                declare(scope, item, types)
    return scope


def _contains(node: c_ast.Node, target: c_ast.Node) -> bool:
    return any(n is target for n in subtree(node))
