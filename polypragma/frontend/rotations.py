"""Loops that end by rotating pointers, unrolled so that each copy of the body names its arrays.

A time loop that swaps two buffers at the end of each step is how stencils are written in C::

    for (int t = 0; t < steps; t++) {
      for (int i = 1; i < n - 1; i++)
        b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3;
      double *tmp = a; a = b; b = tmp;
    }

Which array ``a`` names depends on the parity of ``t``, so no access of the body is an access of one
array.  Unrolled by the rotation's period (2 for a swap, ``k`` for ``k`` pointers rotated), each copy
reads and writes named arrays again::

    for (int t = 0; t < steps; t += 2) {
      { for (...) b[i] = ... a[...] ...; }
      if (t + 1 < steps) { for (...) a[i] = ... b[...] ...; }
    }

The rotation is ``tmp = P1; P1 = P2; ...; Pk = tmp;`` last in the body (``tmp`` declared there or
before; the last statement may be a block or ``do { ... } while (0)`` holding it, as a ``SWAP`` macro
writes it); after ``m`` iterations ``Pj`` holds what ``P(j+m mod k)`` held before the loop, which is the
renaming of the ``m``-th copy.  The loop's pointers must keep their values elsewhere in the body, and
the body must run to its end (no ``break``, ``continue``, ``goto`` or ``return``).

The unrolled loop leaves the pointers as they were; the code after the region may read them (or they
are globals), so the region's generated code ends with the loop's rotations alone (its *epilogue*:
``for (int t = 0; t < steps; t++) { double *tmp = a; a = b; b = tmp; }``, ``Scop.epilogue``), which
the original loops, the fallback, do not need.  So the loop is one of the region's top-level statements
(whose bounds are then the region's parameters, the same at its end), the region has no ``return`` or
``goto`` that could leave it before the loop, and nothing in the region after the loop reads the pointers.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable

from pycparser import c_ast

from polypragma.frontend.c_tree import subtree, text, writes
from polypragma.frontend.functions import substitute
from polypragma.frontend.loops import loop_start, loop_step
from polypragma.model import CType


@dataclass
class Epilogue:
    """What the region's generated code runs after it (``Scop.epilogue``)."""
    statements: list[c_ast.Node] = field(default_factory=list)
    # iterators declared before the region whose final values the statements set (no other loop of the
    # region uses them): code after the region may read them
    iterators: set[str] = field(default_factory=set)
    # a rotation that could not be unrolled, which leaves the region as written: (construct, its first
    # statement, why), for the diagnostic
    refused: tuple[str, c_ast.Node, str] | None = None
    # what was unrolled, for --explain and -v
    described: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Unrolled:
    loop: c_ast.For
    epilogue: c_ast.For  # the loop's rotations alone, for the final values of its pointers
    description: str


def unrolled_rotation(loop: c_ast.For, placed: str | None, read_after: Callable[[str], bool],
                      variable_type: Callable[[str], CType | None]) -> Unrolled | tuple[str, c_ast.Node, str] | None:
    """``loop`` unrolled by the period of the pointer rotation that ends its body, and its epilogue; None
    where its body does not end in one; where it does but cannot be unrolled, (construct, the rotation's
    first statement, why), for a diagnostic.  ``placed``: why the loop's place in the region does
    not allow an epilogue (None: it does); ``read_after(name)``: whether the region reads ``name`` after
    ``loop``; ``variable_type(name)``: the type of a variable declared before the region."""
    body = loop.stmt
    items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else []
    while items and isinstance(items[-1], c_ast.EmptyStatement):  # ('SWAP(a, b);' with braces in the macro)
        items.pop()
    if items and _block_of(items[-1]) is not None:  # (a macro's braces or do { } while (0) around it)
        items = items[:-1] + _block_of(items[-1])
    found = _rotation(items)
    if found is None:
        return None
    temporary, pointers, count = found
    if not any(t is not None and t.rank for t in map(variable_type, pointers)):
        return None  # (numbers rotated: scalars of the model; C assigns no array, so the others are pointers)
    rest = items[:-count]
    why = placed or _refused(loop, rest, temporary, pointers, read_after, variable_type)
    if why is not None:
        return (f"rotation of {_names(pointers)} through '{temporary}' at the end of a loop", items[-count],
                f"is not supported here: {why}")
    iterator = loop_start(loop)[0]
    step = loop_step(loop, iterator, {})
    at = loop.coord
    period = len(pointers)
    copies: list[c_ast.Node] = [c_ast.Compound(copy.deepcopy(rest), coord=body.coord)]
    for m in range(1, period):
        shifted = c_ast.BinaryOp("+", c_ast.ID(iterator, coord=at), c_ast.Constant("int", str(m * step)), coord=at)
        # (all at once: after m rotations Pj holds what P(j+m mod k) held)
        names = {p: c_ast.ID(pointers[(j + m) % period], coord=at) for j, p in enumerate(pointers)}
        names[iterator] = shifted
        copies.append(c_ast.If(substitute(copy.deepcopy(loop.cond), {iterator: shifted}, {}),
                               substitute(c_ast.Compound(copy.deepcopy(rest), coord=body.coord), names, {}), None,
                               coord=at))
    increment = c_ast.Assignment("+=", c_ast.ID(iterator, coord=at),
                                 c_ast.Constant("int", str(period * step)), coord=at)
    unrolled = c_ast.For(copy.deepcopy(loop.init), copy.deepcopy(loop.cond), increment,
                         c_ast.Compound(copies, coord=body.coord), coord=at)
    epilogue = c_ast.For(copy.deepcopy(loop.init), copy.deepcopy(loop.cond), copy.deepcopy(loop.next),
                         c_ast.Compound(copy.deepcopy(items[-count:]), coord=body.coord), coord=at)
    line = f" at line {at.line}" if at is not None else ""
    return Unrolled(unrolled, epilogue, f"the loop{line} rotates {_names(pointers)} at its end: unrolled by {period}, "
                    "each copy naming its arrays; the generated code then runs the rotations alone, for the "
                    "pointers' final values")


def _refused(loop: c_ast.For, rest: list[c_ast.Node], temporary: str, pointers: list[str],
             read_after: Callable[[str], bool], variable_type: Callable[[str], CType | None]) -> str | None:
    """Why ``loop``, whose body is ``rest`` and then the rotation of ``pointers`` through ``temporary``,
    cannot be unrolled; None where it can."""
    start = loop_start(loop)
    step = loop_step(loop, start[0], {}) if start is not None else None
    if start is None or step is None or loop.cond is None:
        return "the loop is not a counted loop"
    iterator = start[0]
    types = {_shape(variable_type(p)) for p in pointers}
    if None in types or len(types) > 1:
        return "they are not all pointers of one type declared before the region"
    for name in (*pointers, temporary, iterator):
        if any(writes(item, name) for item in rest):  # (its address taken too: it may be written through it)
            return f"'{name}' is also written elsewhere in the loop"
    if any(isinstance(n, c_ast.ID) and n.name == temporary for item in rest for n in subtree(item)):
        return f"'{temporary}' is also read elsewhere in the loop"
    if any(isinstance(n, (c_ast.Break, c_ast.Continue, c_ast.Goto, c_ast.Return, c_ast.Label))
           for item in rest for n in subtree(item)):
        return "the loop may leave its body before the rotation"
    later = [name for name in (*pointers, temporary) if read_after(name)]
    if later:
        one = len(later) == 1
        return f"{_names(later)} {'is' if one else 'are'} read in the region after the loop"
    return None


def _shape(ctype: CType | None) -> tuple | None:
    """What of a pointer's type its accesses depend on (None for a number, or a variable not known)."""
    if ctype is None or not ctype.rank:
        return None
    return (ctype.resolved or ctype.base, ctype.pointer_depth, tuple(text(d) for d in ctype.dims))


def _rotation(items: list[c_ast.Node]) -> tuple[str, list[str], int] | None:
    """(temporary, pointers in the order they are rotated, statements) of the rotation that ends
    ``items``: ``tmp = P1; P1 = P2; ...; Pk = tmp;`` (``T *tmp = P1;`` first), ``k >= 2``."""
    for first in range(len(items) - 3, -1, -1):
        tail = items[first:]
        head = tail[0]
        if isinstance(head, c_ast.Decl) and isinstance(head.init, c_ast.ID) and isinstance(head.type, c_ast.PtrDecl):
            temporary, source = head.name, head.init.name
        elif _copy(head) is not None:
            temporary, source = _copy(head)
        else:
            continue
        pointers = [source]
        for item in tail[1:-1]:
            pair = _copy(item)
            if pair is None or pair[0] != pointers[-1]:
                break
            pointers.append(pair[1])
        else:
            if _copy(tail[-1]) == (pointers[-1], temporary) and len(set(pointers)) == len(pointers) >= 2 \
                    and temporary not in pointers:
                return temporary, pointers, len(tail)
    return None


def _block_of(node: c_ast.Node) -> list[c_ast.Node] | None:
    """The statements of a block, or of ``do { ... } while (0)``, as a macro writes them."""
    if isinstance(node, c_ast.DoWhile) and isinstance(node.cond, c_ast.Constant) and node.cond.value == "0":
        node = node.stmt
    return list(node.block_items or []) if isinstance(node, c_ast.Compound) else None


def _copy(node: c_ast.Node) -> tuple[str, str] | None:
    """(x, y) of the statement ``x = y;`` between two names."""
    if isinstance(node, c_ast.Assignment) and node.op == "=" and isinstance(node.lvalue, c_ast.ID) \
            and isinstance(node.rvalue, c_ast.ID):
        return node.lvalue.name, node.rvalue.name
    return None


def _names(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
