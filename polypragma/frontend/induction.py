"""Counters and pointers that step by the same amount each iteration, written as the functions of the loop
iterators they are.

``k = 0; for (i = 0; i < n; i++) for (j = 0; j < m; j++) { B[k] = A[i][j]; k++; }`` packs a matrix: ``k``
is ``i * m + j`` where ``B[k]`` runs, so the statement is ``B[i * m + j] = A[i][j];`` (an access the model
reads exactly: delinearised, ``B[i][j]``), and the loops no longer carry a dependence through ``k``.
Pointers step the same way: ``p = x; for (...) { *q++ = *p++; }`` reads ``x[i]``.

* :func:`split_increments`: ``B[k++] = v;`` is ``B[k] = v; k++;`` and ``*q++ = *p++;`` is ``*q = *p; q++;
  p++;`` (``++k`` steps before the statement), where the variable occurs once in the statement: C steps it
  by the end of the statement, and nothing else in it reads it.
* :func:`substitute_inductions`: a variable ``x`` set just before a loop (``x = e;`` or ``T x = e;``; what
  lies between neither reads nor writes it) and stepped in the loop only by statements of its blocks
  (``x++``, ``x += c``, ``x = x - c``, ``c`` reading no memory and nothing the loop writes), directly or in
  loops nested in it that are counted (``for (j = lb; j < ub; j++)``, bounds the loop does not change).  Each
  read of ``x`` in the loop becomes its value there: ``e`` plus, for each enclosing loop, the iterations
  before times what one iteration adds, plus what the statements before it in its blocks added; a
  subscript through a stepping pointer ``x[s]`` with ``x`` set to an array or an element of a
  one-dimensional one (``&A[e]``, ``A + e``) becomes that array's element.  The steps are dropped, and ``x =
  <its final value>;`` follows the loop where code after it may read ``x``.

A loop nested in one whose bounds depend on an outer iterator (a triangle), a step under a condition, or
a variable also written otherwise is left as it is.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from pycparser import c_ast

from polypragma.frontend.affine import constant_value, polynomial
from polypragma.frontend.c_tree import STEPS, assigned_name, rewrite_children, subtree, writes
from polypragma.frontend.functions import array_part
from polypragma.frontend.loops import rising_loop
from polypragma.model import CType

_STEPS = {"++": 1, "p++": 1, "--": -1, "p--": -1}
_NARROW = frozenset({"int", "signed int", "signed", "short", "short int", "signed short", "signed short int",
                     "char", "signed char"})
# signed integers wider than int, whose counters' values are computed in their type (_widened)
_WIDE = frozenset({"long", "long int", "signed long", "signed long int", "long signed int", "long long",
                   "long long int", "signed long long", "signed long long int", "long long signed int"})


# -- x++ inside a statement -------------------------------------------------------------------------

def split_increments(statement: c_ast.Node) -> list[c_ast.Node]:
    """``statement`` (an expression statement) with each ``x++``, ``x--``, ``++x``, ``--x`` inside it, on a
    variable it names only there, as a statement of its own after it (before, for ``++x`` and ``--x``); the
    statement alone when there is none."""
    if not isinstance(statement, (c_ast.Assignment, c_ast.FuncCall)):
        return [statement]
    counts: dict[str, int] = {}
    for node in subtree(statement):
        if isinstance(node, c_ast.ID):
            counts[node.name] = counts.get(node.name, 0) + 1
    before: list[c_ast.Node] = []
    after: list[c_ast.Node] = []

    def rewrite(node: c_ast.Node) -> c_ast.Node:
        if isinstance(node, c_ast.UnaryOp) and node.op in _STEPS and isinstance(node.expr, c_ast.ID) \
                and counts.get(node.expr.name) == 1:
            step = c_ast.UnaryOp("p++" if _STEPS[node.op] > 0 else "p--", c_ast.ID(node.expr.name, coord=node.coord),
                                 coord=node.coord)
            (after if node.op.startswith("p") else before).append(step)
            return c_ast.ID(node.expr.name, coord=node.expr.coord)
        return rewrite_children(node, rewrite, ("name",) if isinstance(node, c_ast.FuncCall) else ())

    if any(isinstance(n, c_ast.TernaryOp) or isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||")
           for n in subtree(statement)):
        return [statement]  # a step there may not be taken
    statement = rewrite(statement)
    return before + [statement] + after


# -- counters and stepping pointers -------------------------------------------------------------------

def substitute_inductions(items: list[c_ast.Node], used_after: set[str],
                          variable_type: Callable[[str], CType | None],
                          entry: frozenset[str] = frozenset()) -> list[c_ast.Node]:
    """``items`` (a normalised block's) with each counter or stepping pointer of a loop among them written as
    its value (see the module).  ``variable_type(name)``: a variable's type (None: unknown, left as it is).
    ``entry``: pointers whose value where ``items`` start is their value before the region (the region's
    top level, pointers it does not declare): one that nothing before a loop touches steps from there
    (``while (n--) *y++ = *x++;`` on the function's parameters reads ``x[i]``)."""
    out = list(items)
    k = 0
    while k < len(out):
        if isinstance(out[k], c_ast.For):
            for name in sorted(n for n in _stepped(out[k].stmt) if _steps_alike(variable_type(n))):
                ctype = variable_type(name)
                wide = ctype.resolved if not ctype.pointer_depth and ctype.resolved in _WIDE else None
                replaced = _substitute(out, k, name, used_after, wide, name in entry)
                if replaced is not None:
                    out, k = replaced
        k += 1
    return out


def _steps_alike(ctype: CType | None) -> bool:
    """Whether a variable of type ``ctype`` takes the values the iterators' arithmetic gives it: a signed
    integer (one wider than ``int`` may hold counts past ``int``'s range: its values are computed in its
    type, :func:`_widened`; an unsigned one wraps below 0), or a pointer to elements."""
    if ctype is None or ctype.dims:
        return False
    if ctype.pointer_depth:
        return ctype.pointer_depth == 1 and (ctype.is_integer or ctype.is_float)
    return ctype.is_integer and not ctype.is_unsigned and (ctype.resolved in _NARROW or ctype.resolved in _WIDE)


def _widened(node: c_ast.Node, type_name: str | None) -> c_ast.Node:
    """``node`` (a value of a counter, sums and products) with each product computed in ``type_name`` (a
    counter's type wider than ``int``: ``(long)i * m + j`` counts past ``int``'s range as the counter did):
    the first factor of each product converted, products and sums inside them too; as it is for None."""
    if type_name is None or not isinstance(node, (c_ast.BinaryOp, c_ast.UnaryOp)):
        return node
    if isinstance(node, c_ast.UnaryOp):
        return c_ast.UnaryOp("-", _widened(node.expr, type_name), coord=node.coord) if node.op == "-" else node
    if node.op not in ("+", "-", "*"):
        return node
    left, right = _widened(node.left, type_name), _widened(node.right, type_name)
    if node.op == "*" and not (isinstance(node.left, c_ast.BinaryOp) and node.left.op in ("+", "-", "*")):
        left = c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(
            None, [], None, c_ast.IdentifierType(type_name.split()))), left, coord=node.coord)
    return c_ast.BinaryOp(node.op, left, right, coord=node.coord)


def _stepped(node: c_ast.Node | None) -> set[str]:
    """Names a step statement (``x++``, ``x += c``...) anywhere in ``node`` steps."""
    return {step[0] for n in subtree(node) if (step := _step(n)) is not None} if node is not None else set()


def _step(node: c_ast.Node) -> tuple[str, c_ast.Node] | None:
    """(x, c) for a statement that adds c to x, else None."""
    if isinstance(node, c_ast.UnaryOp) and node.op in _STEPS and isinstance(node.expr, c_ast.ID):
        return node.expr.name, c_ast.Constant("int", str(_STEPS[node.op]))
    if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
        name = node.lvalue.name
        if node.op in ("+=", "-="):
            return name, node.rvalue if node.op == "+=" else _negated(node.rvalue)
        if node.op == "=" and isinstance(node.rvalue, c_ast.BinaryOp) and node.rvalue.op in ("+", "-") \
                and isinstance(node.rvalue.left, c_ast.ID) and node.rvalue.left.name == name:
            return name, node.rvalue.right if node.rvalue.op == "+" else _negated(node.rvalue.right)
    return None


class _NotInduction(Exception):
    pass


def _substitute(items: list[c_ast.Node], k: int, name: str, used_after: set[str],
                wide: str | None = None, entry: bool = False) -> tuple[list[c_ast.Node], int] | None:
    """The items with ``name`` written as its value in loop ``items[k]``, and where that loop is now;
    ``wide``: the variable's type where it is wider than ``int`` (its values computed in it); ``entry``: the
    variable is a pointer that may step from its value before the region."""
    loop = items[k]
    init = None
    for j in range(k - 1, -1, -1):
        if any(isinstance(n, c_ast.ID) and n.name == name for n in subtree(items[j])) \
                or isinstance(items[j], c_ast.Decl) and items[j].name == name:
            init = j
            break
    if init is None and entry:
        # (the steps are dropped: the name keeps its value before the region in the loop)
        start, declared = c_ast.ID(name, coord=loop.coord), False
        if any(isinstance(n, c_ast.Decl) and n.name == name for n in subtree(loop)):
            return None
    else:
        if init is None:
            return None
        start, declared = _initial(items[init], name)
        if start is None:
            return None
        read = {n.name for n in subtree(start) if isinstance(n, c_ast.ID)}
        if any(writes(item, other) for item in items[init + 1:k + 1] for other in read) \
                or any(isinstance(n, c_ast.Decl) and n.name in read | {name} for n in subtree(loop)):
            return None
    if any(isinstance(n, c_ast.ID) and n.name == name for part in (loop.init, loop.cond, loop.next)
           if part is not None for n in subtree(part)):
        return None
    if any(isinstance(n, (c_ast.Break, c_ast.Continue, c_ast.Goto, c_ast.Return, c_ast.Label))
           for n in subtree(loop.stmt)):
        return None  # iterations cut short: the counts would not hold
    walker = _Walker(name, start, loop, wide)
    try:
        body = walker.loop(loop, [])
        final = _widened(_plain(_sum(start, _product(_trip(loop, exact=False), walker.increment(loop.stmt, set())))),
                         wide)
    except _NotInduction:
        return None
    if walker.subscripted and walker.element is None:
        return None
    out = items[:k] + [body] + items[k + 1:]
    later = any(isinstance(n, c_ast.ID) and n.name == name for item in items[k + 1:] for n in subtree(item))
    if later or name in used_after or (not declared and init is not None):
        if walker.subscripted:
            return None  # a pointer's final value would be a pointer assignment, which the model has not
        out.insert(k + 1, c_ast.Assignment("=", c_ast.ID(name, coord=loop.coord), final, coord=loop.coord))
    elif init is not None and not any(isinstance(n, c_ast.ID) and n.name == name for n in subtree(body)):
        del out[init]  # a declaration nothing reads any more
        return out, k - 1
    return out, k


def _initial(item: c_ast.Node, name: str) -> tuple[c_ast.Node | None, bool]:
    """The value ``item`` sets ``name`` to, if it is ``name = e;`` or a declaration ``T name = e;`` (with
    whether it is a declaration), and ``e`` reads no memory."""
    if isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ID) \
            and item.lvalue.name == name:
        value, declared = item.rvalue, False
    elif isinstance(item, c_ast.Decl) and item.name == name and item.init is not None \
            and isinstance(item.type, (c_ast.TypeDecl, c_ast.PtrDecl)) \
            and not isinstance(item.init, c_ast.InitList):
        value, declared = item.init, True
    else:
        return None, False
    addressed = {id(n.expr) for n in subtree(value) if isinstance(n, c_ast.UnaryOp) and n.op == "&"}
    for n in subtree(value):
        if isinstance(n, (c_ast.StructRef, c_ast.FuncCall, c_ast.Assignment, c_ast.TernaryOp)) or (
                isinstance(n, c_ast.UnaryOp) and n.op in ("*", "sizeof", *STEPS)) or (
                isinstance(n, c_ast.ArrayRef) and id(n) not in addressed):
            return None, False
    return value, declared


class _Walker:
    """The rewriting of one loop for one variable: ``frames`` are the enclosing counted loops of a point,
    each with the items of its body before the point."""

    def __init__(self, name: str, start: c_ast.Node, outer: c_ast.For, wide: str | None = None):
        self.name = name
        self.wide = wide
        self.start = start
        self.outer = outer
        self.written = _written_names(outer)
        self.subscripted = False
        part = array_part(start) if not isinstance(start, c_ast.ID) else ("name", start)
        self.element = None if isinstance(part, str) or part[0] == "row" else part

    # the increment of a whole statement, loops in it counted as running ('running': their ids) or not
    def increment(self, node: c_ast.Node | None, running: set[int]) -> c_ast.Node:
        if node is None:
            return _zero()
        step = _step(node)
        if step is not None and step[0] == self.name:
            self._invariant(step[1])
            return step[1]
        if isinstance(node, c_ast.Compound):
            total = _zero()
            for item in node.block_items or []:
                total = _sum(total, self.increment(item, running))
            return total
        if not any(_step(n) is not None and _step(n)[0] == self.name for n in subtree(node)):
            if writes(node, self.name) or any(isinstance(n, c_ast.UnaryOp) and n.op == "&"
                                              and isinstance(n.expr, c_ast.ID) and n.expr.name == self.name
                                              for n in subtree(node)):
                raise _NotInduction
            return _zero()
        if isinstance(node, c_ast.For):
            self._counted(node)
            return _product(_trip(node, exact=id(node) in running), self.increment(node.stmt, running))
        raise _NotInduction  # a step under a condition, or in a loop that is not counted

    def loop(self, loop: c_ast.For, frames: list) -> c_ast.For:
        """``loop`` (a copy) with each read of the variable replaced by its value, its steps dropped."""
        self._counted(loop)
        rewritten = copy.copy(loop)
        rewritten.stmt = self.block(loop.stmt, frames + [(loop, [])])
        return rewritten

    def block(self, node: c_ast.Node | None, frames: list) -> c_ast.Node | None:
        if node is None:
            return None
        items = list(node.block_items or []) if isinstance(node, c_ast.Compound) else [node]
        done = frames[-1][1]
        out = []
        for item in items:
            step = _step(item)
            if step is not None and step[0] == self.name:
                self._invariant(step[1])
            elif isinstance(item, c_ast.For) and self.name in _stepped(item):
                out.append(self.loop(item, frames))
            elif isinstance(item, c_ast.Compound) and self.name in _stepped(item):
                raise _NotInduction  # (normalise leaves no such blocks but with declarations)
            else:
                if self.name in _stepped(item) or writes(item, self.name):
                    raise _NotInduction
                out.append(self.reads(copy.deepcopy(item), frames))
            done.append(item)
        return c_ast.Compound(out, coord=node.coord)

    def offset(self, frames: list) -> c_ast.Node:
        """What the steps added to the variable at a point inside ``frames`` (after the items each frame
        lists): the loops of the frames run there."""
        running = {id(loop) for loop, _ in frames}
        total = _zero()
        for loop, done in frames:
            iterator, lower, _ = _counted_loop(loop)
            per_iteration = self.increment(loop.stmt, running)
            total = _sum(total, _product(_difference(c_ast.ID(iterator), lower), per_iteration))
            for item in done:
                total = _sum(total, self.increment(item, running))
        return total

    def reads(self, node: c_ast.Node, frames: list) -> c_ast.Node:
        """``node`` with the variable's reads replaced by its value at ``frames``."""
        if isinstance(node, c_ast.ArrayRef) and isinstance(node.name, c_ast.ID) and node.name.name == self.name:
            self.subscripted = True
            if self.element is None:
                return node
            kind, target = self.element
            offset = self.offset(frames)
            subscript = _plain(_sum(_sum(copy.deepcopy(target.subscript) if kind == "element" else _zero(), offset),
                                    self.reads(node.subscript, frames)))
            base = copy.deepcopy(target.name if kind == "element" else target)
            return c_ast.ArrayRef(base, subscript, coord=node.coord)
        if isinstance(node, c_ast.ID) and node.name == self.name:
            return _widened(_plain(_sum(self.start, self.offset(frames))), self.wide)
        skip = ("field",) if isinstance(node, c_ast.StructRef) else \
            ("name",) if isinstance(node, c_ast.FuncCall) else ()
        return rewrite_children(node, lambda child: self.reads(child, frames), skip)

    def _counted(self, loop: c_ast.For) -> None:
        """A loop whose iterations the value counts: ``for (j = lb; j < ub; j++)`` (``<=``), its bounds
        reading no memory and, but for the outermost loop's bound, nothing the outermost loop writes."""
        form = _counted_loop(loop)
        if form is None or writes(loop.stmt, form[0]):
            raise _NotInduction
        _, lower, upper = form
        for bound in (lower, upper) if loop is not self.outer else (lower,):
            self._invariant(bound)

    def _invariant(self, node: c_ast.Node) -> None:
        for n in subtree(node):
            if isinstance(n, (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall)) or (
                    isinstance(n, c_ast.UnaryOp) and n.op == "*") or (
                    isinstance(n, c_ast.ID) and n.name in self.written):
                raise _NotInduction


def _written_names(node: c_ast.Node) -> set[str]:
    """The names ``node`` assigns, steps, takes the address of or declares."""
    return {name for n in subtree(node)
            if (name := assigned_name(n) or (n.name if isinstance(n, c_ast.Decl) else None))}


def _counted_loop(loop: c_ast.For) -> tuple[str, c_ast.Node, c_ast.Node] | None:
    """(iterator, lower bound, bound past the last) of ``for (i = lb; i < ub; i++)`` (or ``i <= ub``,
    ``ub > i``: a step of 1, so that the iterations before ``i`` are ``i - lb``), else None."""
    form = rising_loop(loop)
    return form[:3] if form is not None and form[3] == 1 else None


def _trip(loop: c_ast.For, exact: bool) -> c_ast.Node:
    """The iterations of a counted loop: ``ub - lb`` where it is known to run, else ``(ub > lb ? ub - lb : 0)``."""
    _, lower, upper = _counted_loop(loop)
    count = _plain(_difference(upper, lower))
    if exact or (constant_value(count) is not None and constant_value(count) >= 0):
        return count
    return c_ast.TernaryOp(c_ast.BinaryOp(">", count, _zero()), copy.deepcopy(count), _zero())


# -- expressions, folded where a constant makes that plain ---------------------------------------------

def _zero() -> c_ast.Constant:
    return c_ast.Constant("int", "0")


def _negated(node: c_ast.Node) -> c_ast.Node:
    value = constant_value(node)
    return c_ast.Constant("int", str(-value)) if value is not None else c_ast.UnaryOp("-", node)


def _sum(left: c_ast.Node, right: c_ast.Node) -> c_ast.Node:
    a, b = constant_value(left), constant_value(right)
    if a is not None and b is not None:
        return c_ast.Constant("int", str(a + b))
    if b == 0:
        return copy.deepcopy(left)
    if a == 0:
        return copy.deepcopy(right)
    if b is not None and b < 0:
        return c_ast.BinaryOp("-", copy.deepcopy(left), c_ast.Constant("int", str(-b)))
    return c_ast.BinaryOp("+", copy.deepcopy(left), copy.deepcopy(right))


def _difference(left: c_ast.Node, right: c_ast.Node) -> c_ast.Node:
    if isinstance(left, c_ast.ID) and isinstance(right, c_ast.ID) and left.name == right.name:
        return _zero()
    b = constant_value(right)
    if b is not None:
        return _sum(left, c_ast.Constant("int", str(-b)))
    return c_ast.BinaryOp("-", copy.deepcopy(left), copy.deepcopy(right))


def _product(left: c_ast.Node, right: c_ast.Node) -> c_ast.Node:
    a, b = constant_value(left), constant_value(right)
    if a is not None and b is not None:
        return c_ast.Constant("int", str(a * b))
    if a == 0 or b == 0:
        return _zero()
    if a == 1:
        return copy.deepcopy(right)
    if b == 1:
        return copy.deepcopy(left)
    return c_ast.BinaryOp("*", copy.deepcopy(left), copy.deepcopy(right))


def _plain(node: c_ast.Node) -> c_ast.Node:
    """``node`` with its terms gathered (``n + 1 + 1 - 2`` is ``n``, ``n - 1 - (n - i)`` is ``i - 1``) where it
    is a polynomial without casts; else as it is."""
    if any(isinstance(n, c_ast.Cast) for n in subtree(node)):
        return node
    poly = polynomial(node, lambda name: True)
    if poly is None:
        return node
    terms = sorted(((m, c) for m, c in poly.items() if m), key=lambda term: term[1] < 0)
    out: c_ast.Node | None = None
    for monomial, coefficient in terms:
        term: c_ast.Node = c_ast.ID(monomial[0])
        for name in monomial[1:]:
            term = c_ast.BinaryOp("*", term, c_ast.ID(name))
        if abs(coefficient) != 1:
            term = c_ast.BinaryOp("*", c_ast.Constant("int", str(abs(coefficient))), term)
        if out is None:
            out = term if coefficient > 0 else c_ast.UnaryOp("-", term)
        else:
            out = c_ast.BinaryOp("+" if coefficient > 0 else "-", out, term)
    constant = poly.get((), 0)
    if out is None:
        return c_ast.Constant("int", str(constant))
    if constant:
        out = c_ast.BinaryOp("+" if constant > 0 else "-", out, c_ast.Constant("int", str(abs(constant))))
    return out
