"""Whether the subscripts through a pointer to a row stay in that row.

``double *p = A[0];`` makes ``p[k]`` the element ``A[0][k]``, which is what C means only while ``k`` stays
below the row's extent: a program that walks the whole matrix through it (``for (k = 0; k < n * m; k++)
p[k] = ...``) reaches the next rows, which the model would take for other elements of row 0, and then
misses the dependences with ``A[1][j]``.  :func:`within_row` proves, with isl, that every subscript
through the pointer lies in ``[0, extent)`` wherever it runs: inside the counted loops that enclose it in
the given statements (``for (j = lb; j < ub; j += c)``, ``j <= ub``), every other name taking any value.
"""

from __future__ import annotations

from collections.abc import Callable

import islpy as isl
from pycparser import c_ast

from polypragma.frontend.affine import linear_form
from polypragma.frontend.c_tree import writes
from polypragma.frontend.loops import rising_loop
from polypragma.model import CType


def stays_in_row(row: c_ast.ArrayRef, items: list[c_ast.Node], name: str,
                 variable_type: Callable[[str], CType | None]) -> bool:
    """Whether the subscripts through ``name``, a pointer to ``row`` (``A[i]``), stay in it in ``items``:
    where the row has a declared extent (rows through pointers, ``double **R``, are objects of their own),
    :func:`within_row` proves it; an array of unknown type fails."""
    fixed, base = 0, row
    while isinstance(base, c_ast.ArrayRef):
        fixed, base = fixed + 1, base.name
    ctype = variable_type(base.name) if isinstance(base, c_ast.ID) else None
    if ctype is None:
        return False
    extent = ctype.extents[fixed] if fixed < ctype.rank else None
    return extent is None or within_row(items, name, extent)


def within_row(items: list[c_ast.Node], name: str, extent: c_ast.Node) -> bool:
    """Whether each ``name[e]`` in ``items`` has ``0 <= e < extent`` in every iteration of the loops around
    it there (and no other use of ``name`` reads past it: a bare ``name`` is not checked here)."""
    for item in items:
        if not _checked(item, name, extent, []):
            return False
    return True


def _checked(node: c_ast.Node, name: str, extent: c_ast.Node, loops: list[tuple[str, c_ast.Node, c_ast.Node]]) -> bool:
    if isinstance(node, c_ast.ArrayRef) and isinstance(node.name, c_ast.ID) and node.name.name == name:
        return _inside(node.subscript, extent, loops) and _checked(node.subscript, name, extent, loops)
    if isinstance(node, c_ast.For):
        header = [part for part in (node.init, node.cond, node.next) if part is not None]
        if not all(_checked(part, name, extent, loops) for part in header):
            return False
        bounds = _bounds(node)
        inner = loops + [bounds] if bounds is not None else loops
        return node.stmt is None or _checked(node.stmt, name, extent, inner)
    return all(_checked(child, name, extent, loops) for _, child in node.children())


def _bounds(loop: c_ast.For) -> tuple[str, c_ast.Node, c_ast.Node] | None:
    """(iterator, first value, past the last) of a loop whose iterations lie in [lb, ub) (any positive
    constant step), its body not changing the iterator; else None."""
    form = rising_loop(loop)
    if form is None or writes(loop.stmt, form[0]):
        return None
    return form[:3]


def _inside(subscript: c_ast.Node, extent: c_ast.Node, loops: list[tuple[str, c_ast.Node, c_ast.Node]]) -> bool:
    """Whether ``0 <= subscript < extent`` holds in every iteration of ``loops`` (outermost first)."""
    iterators = [iterator for iterator, _, _ in loops]
    forms = [linear_form(subscript), linear_form(extent)]
    for _, lower, upper in loops:
        forms += [linear_form(lower), linear_form(upper)]
    if any(form is None for form in forms):
        return False
    # isl's names for the C names (a C name may be one of isl's words: min, and, mod...)
    names = {name: f"p{k}" for k, name in enumerate(sorted({n for form in forms for n in form if n} | set(iterators)))}
    text = [_text(form, names) for form in forms]
    constraints = [f"{lower} <= {names[it]} < {upper}" for it, lower, upper in zip(iterators, text[2::2], text[3::2])]
    outside = f"({text[0]} < 0 or {text[0]} >= {text[1]})"
    dims = [names[it] for it in iterators]
    params = [isl_name for name, isl_name in names.items() if name not in iterators]
    try:
        escaping = isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(dims)}] : "
                           f"{' and '.join(constraints + [outside])} }}")
    except isl.Error:
        return False
    return escaping.is_empty()


def _text(form: dict[str, int], names: dict[str, str]) -> str:
    out = "0"
    for name, coefficient in form.items():
        term = f"{abs(coefficient)}*{names[name]}" if name else str(abs(coefficient))
        out += f" {'+' if coefficient > 0 else '-'} {term}"
    return out
