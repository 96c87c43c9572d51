"""``memcpy``, ``memmove`` and ``memset`` of whole elements, as the loops they mean.

``memcpy(B[i], A[i - 1], n * sizeof(double))`` copies ``n`` elements: it is the statement
``for (int k = 0; k < n; k++) B[i][k] = A[i - 1][k];``, whose accesses the model reads exactly (a call
to a function without a body is modelled as reading and perhaps writing the whole of each array it is
given, and kernels have no version of it).  ``memset(x, 0, n * sizeof x[0])`` is the loop that stores
``0``; a ``memset`` of another byte value only into elements of one byte (``char``), where the byte is
the element.

A call is lowered when C says it copies or sets whole elements of one arithmetic type:

* each pointer argument is an array or pointer variable, a row or element of one (``A``, ``A[i]``,
  ``&A[i][j]``, ``A + k``, ``A[i] + k``), of the element type the size names;
* the byte count is a product of factors, one of them ``sizeof`` of that type (``sizeof(double)``,
  ``sizeof *A``, ``sizeof A[0][0]``), the others the element count, which is a name or constant or a sum
  of such (not a product of two variables, which the model cannot bound), or the count is ``sizeof A``
  of an array of constant extents;
* a copy of more than one row of a multi-dimensional array (``memcpy(B, A, n * m * sizeof(double))``
  into ``double B[n][m]``) becomes a loop per dimension when both arrays have the same extents below the
  first and the count's factors name them.

``memmove`` copies as if through a temporary, which a loop does where it runs away from the overlap: a
move within one row of one array, between offsets a constant apart (``memmove(&h[1], &h[0], (n - 1) *
sizeof h[0])``, a history shifted up by one), is the loop that runs down when it moves elements up and up
when it moves them down.

Anything else is left as the call it is (:func:`lower` says why): a ``memmove`` between arrays that may
overlap otherwise, bytes of one type copied into another, structs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from polypragma.frontend.affine import constant_value, linear_form
from polypragma.frontend.c_tree import has_side_effects, subtree, text
from polypragma.frontend.row_bounds import Assumptions, RowAssumption, admitted, span_condition
from polypragma.frontend.symbols import TypeTable
from polypragma.model import CType

LOWERED = frozenset({"memcpy", "memmove", "memset"})
_CHAR = frozenset({"char", "signed char", "unsigned char"})


@dataclass(frozen=True)
class _Pointer:
    """Where a pointer argument points: into dimension ``len(fixed)`` of array ``name`` (of type
    ``ctype``), at ``offset`` (None: 0), the subscripts before it ``fixed``."""

    name: str
    ctype: CType
    fixed: tuple[c_ast.Node, ...]
    offset: c_ast.Node | None

    @property
    def below(self) -> tuple[c_ast.Node | None, ...]:
        """The extents of the dimensions below the one it points into (pointer levels: None)."""
        return self.ctype.extents[len(self.fixed) + 1:]


def lower(call: c_ast.FuncCall, variable: Callable[[str], CType | None], types: TypeTable,
          taken: set[str], assigned: set[str], assumptions: Assumptions | None = None) -> c_ast.Compound | str | None:
    """The loops a call to ``memcpy``, ``memmove`` or ``memset`` means (a block; one element is an assignment), why
    it is left as a call (a reason that follows the function's name in a diagnostic), or None for a
    call to another function.  ``variable(name)``: the type of a variable the call names (None: unknown).
    ``taken``: names the loops' iterators must not take (those chosen are added).  ``assigned``: the
    region's variables assigned other than as loop iterators, which cannot bound a loop.  Elements of a
    row that stay in it only where a condition on the region's parameters holds (``memset(A[i], 0, m *
    sizeof(double))`` in rows of 20: ``m <= 20``) are lowered where ``assumptions`` is given, which receives
    the condition."""
    name = call.name.name if isinstance(call.name, c_ast.ID) else None
    if name not in LOWERED:
        return None
    args = list(call.args.exprs) if call.args is not None else []
    if len(args) != 3:
        return "is left as a call: it is not given three arguments"
    for arg in args:
        if has_side_effects(arg):
            return f"is left as a call: its argument '{text(arg)}' has side effects"
    copies = name != "memset"
    target = _pointer(args[0], variable)
    source = _pointer(args[1], variable) if copies else None
    for arg, pointer in ((args[0], target), (args[1], source)) if copies else ((args[0], target),):
        if isinstance(pointer, str):
            return f"is left as a call: its argument '{text(arg)}' {pointer}"
    element = _element(target.ctype)
    if element is None:
        return f"is left as a call: '{target.name}' has elements of type '{target.ctype.base}', not numbers"
    if source is not None and _element(source.ctype) != element:
        return (f"is left as a call: it copies bytes of '{source.ctype.base}' elements into '{target.ctype.base}' "
                "elements")
    pending: list[tuple[_Pointer, c_ast.Node, c_ast.Node]] = []
    counts = _counts(args[2], element, target, source, variable, types, assumptions, pending)
    if isinstance(counts, str):
        return "is left as a call: " + counts
    changed = sorted({n.name for count in counts for n in subtree(count) if isinstance(n, c_ast.ID)} & assigned)
    if changed:
        return f"is left as a call: its count reads '{changed[0]}', which the region assigns"
    if name == "memset":
        value, byte = args[1], constant_value(args[1], types.enumerators)
        if byte != 0 and element not in _CHAR:
            return (f"is left as a call: it sets each byte of '{target.ctype.base}' elements to '{text(value)}' "
                    "(only 0 or elements of one byte are the loop that stores the value)")
        stored = value
        if element in _CHAR and not (byte is not None and 0 <= byte < 128):
            # memset stores the value converted to unsigned char
            stored = c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(
                None, [], None, c_ast.IdentifierType(["unsigned", "char"]))), value)
    down = False  # the loop runs from the last element to the first
    if name == "memmove":
        moved = _moved(target, source, counts, types)
        if isinstance(moved, str):
            return "is left as a call: " + moved
        down = moved > 0
    if len(counts) == 1 and constant_value(counts[0]) == 1:
        counts = []  # one element: the assignment alone
    iterators = []
    for _ in counts:
        fresh, k = "k", 1
        while fresh in taken:
            fresh, k = f"k{k}", k + 1
        taken.add(fresh)
        iterators.append(fresh)
    ids = [c_ast.ID(i, coord=call.coord) for i in iterators]
    lhs = _element_at(target, ids, call.coord)
    rhs = _element_at(source, ids, call.coord) if source is not None else stored
    body: c_ast.Node = c_ast.Assignment("=", lhs, rhs, coord=call.coord)
    wide = any(_is_wide(n, variable) for count in counts for n in subtree(count))
    for iterator, count in reversed(list(zip(iterators, counts))):
        at = call.coord
        first = c_ast.BinaryOp("-", count, c_ast.Constant("int", "1", coord=at), coord=at) if down else \
            c_ast.Constant("int", "0", coord=at)
        declaration = c_ast.Decl(iterator, [], [], [], [], c_ast.TypeDecl(
            iterator, [], None, c_ast.IdentifierType(["long" if wide else "int"])), first, None, coord=at)
        condition = c_ast.BinaryOp(">=", c_ast.ID(iterator, coord=at), c_ast.Constant("int", "0", coord=at),
                                   coord=at) if down else \
            c_ast.BinaryOp("<", c_ast.ID(iterator, coord=at), count, coord=at)
        body = c_ast.For(c_ast.DeclList([declaration], coord=at), condition,
                         c_ast.UnaryOp("p--" if down else "p++", c_ast.ID(iterator, coord=at), coord=at),
                         body, coord=at)
    for pointer, condition, count in pending:
        assumptions.made.append(RowAssumption(
            condition, f"does '{name}' stay in the row of '{pointer.name}' it starts in", f"call to '{name}'",
            f"is not supported: '{name}' {_past_row(pointer, count)}", call))
    return c_ast.Compound([body], coord=call.coord)


def _moved(target: _Pointer, source: _Pointer, counts: list[c_ast.Node], types: TypeTable) -> int | str:
    """How many elements a ``memmove`` moves its elements up (down where negative) within one row, or why
    a loop would not copy as it does."""
    if target.name != source.name:
        return (f"it moves elements of '{source.name}' into '{target.name}', which may overlap it (memcpy says "
                "they do not)")
    if len(counts) != 1 or [text(f) for f in target.fixed] != [text(f) for f in source.fixed]:
        return "it moves elements across rows of its array (only a move within a row is a loop)"
    zero = c_ast.Constant("int", "0")
    forms = [linear_form(p.offset if p.offset is not None else zero, types.enumerators) for p in (target, source)]
    if forms[0] is None or forms[1] is None:
        return "its offsets are not sums of names and constants"
    difference = {n: forms[0].get(n, 0) - forms[1].get(n, 0) for n in set(forms[0]) | set(forms[1])}
    if any(c for n, c in difference.items() if n):
        return "its offsets are not a constant apart (which way the elements move is not known)"
    return difference.get("", 0)


def _pointer(node: c_ast.Node, variable: Callable[[str], CType | None]) -> _Pointer | str:
    """Where argument ``node`` points (or why that is not known)."""
    while isinstance(node, c_ast.Cast):  # (void *)A
        node = node.expr
    offset = None
    if isinstance(node, c_ast.BinaryOp) and node.op == "+":
        node, offset = node.left, node.right
    elif isinstance(node, c_ast.UnaryOp) and node.op == "&" and isinstance(node.expr, c_ast.ArrayRef):
        node, offset = node.expr.name, node.expr.subscript
    if offset is not None and constant_value(offset) == 0:
        offset = None
    fixed: list[c_ast.Node] = []
    while isinstance(node, c_ast.ArrayRef):
        fixed.insert(0, node.subscript)
        node = node.name
    if not isinstance(node, c_ast.ID):
        return "is not an array, a row or an element of one"
    ctype = variable(node.name)
    if ctype is None:
        return "names a variable whose type the region does not know"
    if len(fixed) >= ctype.rank:
        return "is not a pointer into an array"
    return _Pointer(node.name, ctype, tuple(fixed), offset)


def _element(ctype: CType) -> str | None:
    """The element type of an array of numbers, spelled one way (``long int`` is ``long``), or None."""
    if not (ctype.is_integer or ctype.is_float) or not ctype.resolved:
        return None
    words = ctype.resolved.split()
    if "int" in words and len(words) > 1:
        words.remove("int")
    if "signed" in words and "char" not in words:
        words.remove("signed")
    return " ".join(words) or "int"


def _counts(size: c_ast.Node, element: str, target: _Pointer, source: _Pointer | None,
            variable: Callable[[str], CType | None], types: TypeTable, assumptions: Assumptions | None = None,
            pending: list | None = None) -> list[c_ast.Node] | str:
    """The number of iterations of each loop the byte count ``size`` means (outermost first), or why it
    is not a number of whole elements.  Elements that stay in their row only where a condition holds are
    a reason, unless ``assumptions`` can check it: ``pending`` then receives (pointer, condition, count)."""
    if isinstance(size, c_ast.UnaryOp) and size.op == "sizeof" and isinstance(size.expr, c_ast.ID) \
            and size.expr.name == target.name and not target.fixed and target.offset is None:
        # sizeof A: the whole array, when its extents are constants
        extents = tuple(target.ctype.dims)
        if target.ctype.pointer_depth or any(e is None or constant_value(e, types.enumerators) is None
                                             for e in extents):
            return f"its byte count '{text(size)}' is the size of a pointer or of an array of variable size"
        if source is not None and (source.fixed or source.offset is not None
                                   or _texts(source.ctype.dims) != _texts(extents)):
            return f"its byte count '{text(size)}' is not the size of the array it copies from"
        return list(extents)
    factors = _factors(size)
    sizes = [f for f in factors if isinstance(f, c_ast.UnaryOp) and f.op == "sizeof"]
    if not sizes and element in _CHAR:
        rest = factors  # elements of one byte: the count of bytes is the count of elements
    elif len(sizes) != 1:
        return f"its byte count '{text(size)}' is not a count of elements times 'sizeof' of their type"
    else:
        measured = _measured(sizes[0].expr, variable, types)
        if measured != element:
            return (f"its byte count '{text(size)}' does not count elements of type '{target.ctype.base}'"
                    + (f" ('{text(sizes[0])}' is the size of '{measured}')" if measured else ""))
        rest = [f for f in factors if f is not sizes[0]]
    below = target.below
    if source is not None and _texts(source.below) != _texts(below):
        if len(below) + len(source.below) and not all(e is None for e in below + source.below):
            return (f"it copies between '{source.name}' and '{target.name}', which have different extents below "
                    "the dimension it copies along")
    inner: list[c_ast.Node] = []
    if below and any(e is not None for e in below):
        # rows of a multi-dimensional array: the count names each extent below the first
        remaining = list(rest)
        for extent in below:
            match = next((f for f in remaining if extent is not None and text(f) == text(extent)), None)
            if match is None:
                return (f"its byte count '{text(size)}' is not a whole number of rows of '{target.name}' (it "
                        "should be a product of the row count and the extents below it)")
            remaining.remove(match)
            inner.append(extent)
        rest = remaining
    variables = [f for f in rest if constant_value(f, types.enumerators) is None]
    if len(variables) > 1:
        return (f"its element count is a product of variables ('{text(size)}'), whose loop the model "
                "cannot bound")
    for factor in variables:
        for n in subtree(factor):
            if isinstance(n, (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall, c_ast.TernaryOp)) or (
                    isinstance(n, c_ast.UnaryOp) and n.op in ("*", "sizeof")) or (
                    isinstance(n, c_ast.BinaryOp) and n.op not in ("+", "-", "*")):
                return f"its element count '{text(factor)}' is not a sum of names and constants"
            if isinstance(n, c_ast.BinaryOp) and n.op == "*" and constant_value(n.left, types.enumerators) \
                    is None and constant_value(n.right, types.enumerators) is None:
                return (f"its element count is a product of variables ('{text(size)}'), whose loop the model "
                        "cannot bound")
    count: c_ast.Node = c_ast.Constant("int", "1")
    for factor in rest:
        count = factor if text(count) == "1" else c_ast.BinaryOp("*", count, factor)
    for pointer in (target, source):
        if pointer is not None and not _within_row(pointer, count, types):
            condition = span_condition(pointer.offset, count, pointer.ctype.extents[len(pointer.fixed)]) \
                if assumptions is not None else False
            if not admitted(condition, assumptions):
                return _past_row(pointer, count)
            if condition is not True:
                pending.append((pointer, condition, count))
    return [count] + inner


def _past_row(pointer: _Pointer, count: c_ast.Node) -> str:
    return (f"it may reach past the end of a row of '{pointer.name}' ('{text(count)}' from "
            f"'{text(pointer.offset) if pointer.offset is not None else '0'}' in rows of "
            f"'{text(pointer.ctype.dims[len(pointer.fixed)])}'), where the loop's subscripts would not "
            "reach the next row as the bytes do")


def _within_row(pointer: _Pointer, count: c_ast.Node, types: TypeTable) -> bool:
    """Whether ``count`` elements from where ``pointer`` points stay in the dimension it points into:
    always for the outermost one (C's object ends there) and for one element, else when offset + count -
    extent is a constant not above 0."""
    j = len(pointer.fixed)
    extent = pointer.ctype.extents[j]
    if j == 0 or extent is None or constant_value(count, types.enumerators) == 1:
        return True  # (one element: the one the argument names, in its row as every subscript is taken to be)
    terms = [(1, pointer.offset), (1, count), (-1, extent)]
    total: dict[str, int] = {}
    for sign, node in terms:
        form = linear_form(node, types.enumerators) if node is not None else {}
        if form is None:
            return False
        for key, value in form.items():
            total[key] = total.get(key, 0) + sign * value
    return all(v == 0 for k, v in total.items() if k) and total.get("", 0) <= 0


def _factors(node: c_ast.Node) -> list[c_ast.Node]:
    if isinstance(node, c_ast.BinaryOp) and node.op == "*":
        return _factors(node.left) + _factors(node.right)
    if isinstance(node, c_ast.Cast):
        return _factors(node.expr)
    return [node]


def _measured(node: c_ast.Node, variable: Callable[[str], CType | None], types: TypeTable) -> str | None:
    """The element type whose size ``sizeof`` of ``node`` is (a type name, or an element of a variable:
    ``*A``, ``A[0][0]``), or None."""
    if isinstance(node, c_ast.Typename):
        ctype = types.ctype(node.type)
        return _element(ctype) if ctype.is_scalar else None
    depth = 0
    while True:
        if isinstance(node, c_ast.ArrayRef):
            node, depth = node.name, depth + 1
        elif isinstance(node, c_ast.UnaryOp) and node.op == "*":
            node, depth = node.expr, depth + 1
        else:
            break
    ctype = variable(node.name) if isinstance(node, c_ast.ID) else None
    return _element(ctype) if ctype is not None and ctype.rank == depth else None


def _texts(extents) -> tuple[str | None, ...]:
    return tuple(text(e) if e is not None else None for e in extents)


def _element_at(pointer: _Pointer, iterators: list[c_ast.ID], coord) -> c_ast.Node:
    node: c_ast.Node = c_ast.ID(pointer.name, coord=coord)
    for subscript in pointer.fixed:
        node = c_ast.ArrayRef(node, subscript, coord=coord)
    first = iterators[0] if iterators else c_ast.Constant("int", "0", coord=coord)
    if pointer.offset is not None:
        first = c_ast.BinaryOp("+", pointer.offset, first, coord=coord) if iterators else pointer.offset
    node = c_ast.ArrayRef(node, first, coord=coord)
    for iterator in iterators[1:]:
        node = c_ast.ArrayRef(node, iterator, coord=coord)
    return node


def _is_wide(node: c_ast.Node, variable: Callable[[str], CType | None]) -> bool:
    """Whether a count holding ``node`` may pass ``int``'s range: a name of a wider type, a big constant."""
    if isinstance(node, c_ast.ID):
        ctype = variable(node.name)
        return ctype is not None and ("long" in ctype.resolved.split() or ctype.resolved == "unsigned long"
                                      or ctype.is_unsigned and "int" in ctype.resolved.split())
    if isinstance(node, c_ast.Constant) and node.type != "char":
        value = constant_value(node)
        return value is not None and abs(value) > 2**31 - 1
    return False
