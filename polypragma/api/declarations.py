"""Reading the signatures of the functions that hold a region from the C source.

They are read from the same preprocessed, parsed file the compiler reads
(:mod:`polypragma.frontend.preprocess`), so macros in extents (``double A[N][N]``) are expanded, and
typedefs are seen through with the compiler's own :class:`~polypragma.frontend.symbols.TypeTable`.
Standard names (``size_t``, ``int64_t``) are trusted by name: the stub headers the parser reads declare
them all as ``int``.
"""

from __future__ import annotations

import ctypes
import dataclasses
import re

from pycparser import c_ast, c_generator

from polypragma.api.signature import Parameter, Signature
from polypragma.frontend.locate import locate
from polypragma.frontend.symbols import TypeTable
from polypragma.scan import scan

_GENERATOR = c_generator.CGenerator()

# C integer types by their words (without 'signed' and 'int'), as ctypes knows their sizes here
_INTEGER_SIZES = {"char": 1, "short": ctypes.sizeof(ctypes.c_short), "": ctypes.sizeof(ctypes.c_int),
                  "long": ctypes.sizeof(ctypes.c_long), "long long": ctypes.sizeof(ctypes.c_longlong),
                  "_Bool": 1, "bool": 1}


def functions_with_regions(text: str, source: str, ast: c_ast.FileAST) -> list[Signature]:
    """The signatures of the functions of ``source`` (text ``text``, parsed as ``ast``) that hold a
    region, in the order of their first region."""
    types = TypeTable(ast)
    located = [w for w in locate(ast, scan(text, source), source) if w is not None]
    seen: dict[str, Signature] = {}
    for where in located:
        function = where.function
        if function.decl.name in seen:
            continue
        mine = [w for w in located if w.function is function]
        seen[function.decl.name] = dataclasses.replace(signature(function, types),
                                                       sole_region=_sole_region(function, mine))
    return list(seen.values())


def _sole_region(function: c_ast.FuncDef, located: list) -> int | None:
    """The index of the function's region when the function is that region and nothing else (its
    body holds the region's statements and pragmas only, and it returns nothing): then calling the
    region's host function is calling the function, which device arrays need."""
    if len(located) != 1 or len(located[0].path) != 1 or not _is_void(function.decl.type.type):
        return None
    items = located[0].items
    if all(isinstance(node, c_ast.Pragma) or any(node is item for item in items)
           for node in function.body.block_items or []):
        return located[0].region.index
    return None


def signature(function: c_ast.FuncDef, types: TypeTable) -> Signature:
    declaration = function.decl.type
    parameters = []
    for k, param in enumerate(declaration.args.params if declaration.args else []):
        if isinstance(param, c_ast.EllipsisParam):
            parameters.append(Parameter("...", "scalar", "...", "", "", unsupported="the function is variadic"))
            continue
        if isinstance(param, c_ast.Typename):  # (void), or a parameter without a name
            if _is_void(param.type):
                continue
            param = c_ast.Decl(f"arg{k}", [], [], [], [], param.type, None, None)
        parameters.append(_parameter(param, types))
    returns, returns_ctype = _return_kind(declaration.type, types, function.decl.name)
    return Signature(function.decl.name, tuple(parameters), returns, returns_ctype)


def _is_void(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType) \
        and node.type.names == ["void"]


def _return_kind(node: c_ast.Node, types: TypeTable, name: str) -> tuple[str, str]:
    text = _without_name(_GENERATOR.visit(node), name)
    if _is_void(node):
        return "", "void"
    if isinstance(node, c_ast.TypeDecl):
        number, _ = _element(node, types)
        return (number or "other"), text
    return "other", text


def _without_name(text: str, name: str | None) -> str:
    """C text of a declaration without its name: ``double [n][n]``, ``const float *``."""
    return re.sub(rf"\b{re.escape(name)}\b", "", text, count=1).strip() if name else text


def _parameter(param: c_ast.Decl, types: TypeTable) -> Parameter:
    node = param.type
    written = _GENERATOR.visit(param)
    dims: list = []
    texts: list[str] = []
    if isinstance(node, c_ast.PtrDecl):
        dims.append(None)
        texts.append("?")
        node = node.type
    while isinstance(node, c_ast.ArrayDecl):
        dims.append(_tree(node.dim, types))
        texts.append(_GENERATOR.visit(node.dim) if node.dim is not None else "?")
        node = node.type
    if isinstance(node, c_ast.FuncDecl):
        return Parameter(param.name, "array" if dims else "scalar", written, "", "",
                         unsupported="a pointer to a function")
    if isinstance(node, c_ast.PtrDecl):  # NumPy's arrays are not rows through pointers
        return Parameter(param.name, "array" if dims else "scalar", written, "", "",
                         unsupported="an array of rows through pointers ('double **A' and the like), which NumPy "
                                     "arrays are not: declare it 'double A[n][m]' (or a flat 'double *A') to pass "
                                     "a NumPy array")
    number, dtype = _element(node, types)
    const = "const" in getattr(node, "quals", [])
    if not dims:
        if not number:
            return Parameter(param.name, "scalar", written, "", "", unsupported="its type is not a number")
        return Parameter(param.name, "scalar", written, number, dtype)
    if not dtype:
        return Parameter(param.name, "array", written, "", "", tuple(dims), tuple(texts), const,
                         unsupported="no NumPy dtype matches its element type")
    return Parameter(param.name, "array", written, number, dtype, tuple(dims), tuple(texts), const)


def _element(node: c_ast.Node, types: TypeTable) -> tuple[str, str]:
    """(number kind, NumPy dtype name) of a TypeDecl; ("", "") when it is no number."""
    ctype = types.ctype(node)
    if ctype.dims or ctype.pointer_depth:  # a typedef of an array or pointer type
        return "", ""
    if ctype.is_float:
        words = ctype.resolved.split()
        if words == ["double"]:
            return "float", "float64"
        if words == ["float"]:
            return "float", "float32"
        return "", ""  # long double, _Float16...: no portable dtype
    if not ctype.is_integer:
        return "", ""
    if ctype.base.startswith("enum"):
        return "int", "int32"
    words = ctype.resolved.split()
    unsigned = ctype.is_unsigned or "unsigned" in words
    key = " ".join(w for w in words if w not in ("signed", "unsigned", "int"))
    size = _INTEGER_SIZES.get(key)
    if size is None:
        return "", ""
    if key in ("_Bool", "bool"):
        return "uint", "bool"
    return ("uint" if unsigned else "int"), f"{'u' if unsigned else ''}int{8 * size}"


def _tree(node: c_ast.Node | None, types: TypeTable):
    """An extent as an expression tree, or None when it is not declared or uses more than integer
    parameters, constants and arithmetic (then it is not checked)."""
    if node is None:
        return None
    if isinstance(node, c_ast.Constant):
        value = _integer_constant(node.value)
        return None if value is None else ("num", value)
    if isinstance(node, c_ast.ID):
        if node.name in types.enumerators:
            return ("num", types.enumerators[node.name])
        return ("id", node.name)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/", "%", "<<", ">>"):
        left, right = _tree(node.left, types), _tree(node.right, types)
        return None if left is None or right is None else (node.op, left, right)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        operand = _tree(node.expr, types)
        return None if operand is None else ("neg" if node.op == "-" else "pos", operand)
    if isinstance(node, c_ast.Cast):
        return _tree(node.expr, types)
    if isinstance(node, c_ast.TernaryOp) and isinstance(node.cond, c_ast.BinaryOp) \
            and node.cond.op in ("<", "<=", ">", ">=", "==", "!="):
        parts = [_tree(n, types) for n in (node.cond.left, node.cond.right, node.iftrue, node.iffalse)]
        return None if None in parts else ("?" + node.cond.op, *parts)
    return None


def _integer_constant(text: str) -> int | None:
    digits = text.rstrip("uUlL")
    try:
        if digits.lower().startswith("0x"):
            return int(digits, 16)
        if len(digits) > 1 and digits.startswith("0"):
            return int(digits, 8)
        return int(digits)
    except ValueError:
        return None
