"""Printing isl ASTs as C-family code.

:class:`CFamilyPrinter` is a visitor over ``isl.AstNode``/``isl.AstExpr``
that returns lines of text.  Targets subclass it and override the hooks:
:meth:`user` (a statement instance), :meth:`before_for` (annotations such as
OpenMP pragmas) and :meth:`mark`.  The helper functions the printed
expressions need (``floord``, ``min``, ``max``) are recorded in
:attr:`helpers_used` so a target can define exactly those.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import islpy as isl

from polypragma.codegen.overflow import ARITHMETIC, LARGEST, UNKNOWN, WIDE_TYPE, Interval, Ranges, combine
from polypragma.model import Statement

_OP = isl.ast_expr_op_type

# C precedence levels (higher binds tighter)
_PRIMARY, _UNARY, _MUL, _ADD, _REL, _EQ, _AND, _OR, _COND = 16, 14, 13, 12, 10, 9, 5, 4, 3

_BINARY = {
    _OP.add: ("+", _ADD), _OP.sub: ("-", _ADD), _OP.mul: ("*", _MUL),
    _OP.div: ("/", _MUL), _OP.pdiv_q: ("/", _MUL), _OP.pdiv_r: ("%", _MUL), _OP.zdiv_r: ("%", _MUL),
    _OP.lt: ("<", _REL), _OP.le: ("<=", _REL), _OP.gt: (">", _REL), _OP.ge: (">=", _REL),
    _OP.eq: ("==", _EQ),
    _OP.and_: ("&&", _AND), _OP.and_then: ("&&", _AND), _OP.or_: ("||", _OR), _OP.or_else: ("||", _OR),
}

HELPER_DEFINITIONS = {
    "floord": "#define polypragma_floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))",
    "min": "#define polypragma_min(x, y) ((x) < (y) ? (x) : (y))",
    "max": "#define polypragma_max(x, y) ((x) > (y) ? (x) : (y))",
}


def helper_macros(used: Iterable[str], *, guarded: bool = True) -> list[str]:
    """The definitions of the helpers ``used`` (names of HELPER_DEFINITIONS, or definitions as
    :meth:`CFamilyPrinter.helper_lines` gives them), sorted, each under an ``#ifndef`` guard so that a
    user's own definition or a second generated file's does not clash (the macro of its first ``#define``:
    a definition may choose between two by ``#if``; one without is as it is); ``guarded=False`` for a unit
    of its own (an OpenCL program)."""
    out = []
    for definition in sorted({HELPER_DEFINITIONS.get(item, item) for item in used}):
        if guarded and "#define" in definition:
            macro = definition.split("#define", 1)[1].split()[0].split("(")[0]
            out += [f"#ifndef {macro}", definition, "#endif"]
        else:
            out.append(definition)
    return out


class _Printed(NamedTuple):
    text: str
    precedence: int
    values: Interval  # the interval of its values (overflow.py)
    wide: bool  # whether C computes it in the wider type


def wide_cast(text: str, precedence: int) -> tuple[str, int]:
    """An expression's ``text`` of ``precedence`` cast to the wider type, and the cast's precedence."""
    return f"({WIDE_TYPE}){text if precedence >= _UNARY else '(' + text + ')'}", _UNARY


def _cast(printed: _Printed) -> _Printed:
    """``printed`` cast to the wider type."""
    return _Printed(*wide_cast(printed.text, printed.precedence), printed.values, True)


_LOGICAL = (_OP.and_, _OP.and_then, _OP.or_, _OP.or_else)


def _folded(op, left: "_Printed", right: "_Printed") -> "_Printed | None":
    """``left op right`` for a logical ``op`` with a constant operand, as what it is (isl's expressions have
    no side effects); None where neither operand is a constant."""
    def constant(p: _Printed) -> int | None:
        return int(p.text) if p.text.lstrip("-").isdigit() else None

    conjunction = op in (_OP.and_, _OP.and_then)
    for this, other in ((left, right), (right, left)):
        value = constant(this)
        if value is None:
            continue
        if (value != 0) == conjunction:  # (1 && x, 0 || x: x, as a truth value)
            return other if constant(other) is None else _Printed(str(int(constant(other) != 0)), _PRIMARY,
                                                                     other.values, False)
        return _Printed(str(int(not conjunction)), _PRIMARY, this.values, False)
    return None


def _operand(printed: _Printed, precedence: int) -> str:
    """``printed``'s text as an operand of an operator of ``precedence`` (on either side: the
    comparisons and ``&&`` whose operands these are do not chain)."""
    return printed.text if printed.precedence > precedence else f"({printed.text})"


class CFamilyPrinter:
    indent_unit = "  "

    def __init__(self, iterator_type: str = "int", names: dict[str, str] | None = None):
        self.iterator_type = iterator_type
        self.helpers_used: set[str] = set()
        self.names = names or {}  # how identifiers are spelt (Scop.signed_names)
        # bounds of the values of expressions, for the operations computed in a wider type (overflow.py)
        self.ranges = Ranges(iterator_type)
        self.wide_names: set[str] = set()  # iterators declared in the wider type

    def substitutions(self, statement: Statement, call: isl.AstExpr) -> dict[str, str]:
        """What a statement's body reads for each of its names where isl's ``call`` of it stands: its
        iterators as the call's arguments (cast to an iterator of another type, parenthesised unless
        simple), its other renamed names as renamed."""
        out = dict(statement.renames)
        for k, (name, ctype) in enumerate(zip(statement.iterators, statement.iterator_types)):
            value = self.expr(call.get_op_arg(k + 1))
            if ctype != self.iterator_type:
                value = f"(({ctype})({value}))"
            elif not value.isidentifier() and not value.lstrip("-").isdigit():
                value = f"({value})"
            out[name] = value
        return out

    # -- expressions -----------------------------------------------------------
    def expr(self, e: isl.AstExpr) -> str:
        return self._expr(e)[0]

    def _expr(self, e: isl.AstExpr) -> tuple[str, int]:
        """``e``'s text and its precedence."""
        printed = self._print(e)
        return printed.text, printed.precedence

    def _print(self, e: isl.AstExpr, widen: bool = False) -> _Printed:
        """``e`` printed, with the bound of its value and whether C computes it in the wider type;
        ``widen``: its value in the wider type, cast where it starts (its leftmost operand, whose
        operations then all run in that type) or else as a whole."""
        kind = e.get_type()
        if kind != isl.ast_expr_type.op:
            values = self.ranges.leaf(e)
            if kind == isl.ast_expr_type.int:
                value = str(e.get_val())
                printed = _Printed(value, _UNARY if value.startswith("-") else _PRIMARY, values,
                                   abs(values[0]) > LARGEST["int"])  # (C gives such a literal a wider type)
            else:
                name = e.get_id().get_name()
                printed = _Printed(self.identifier(name), _PRIMARY, values, name in self.wide_names)
            return _cast(printed) if widen else printed
        op = e.get_op_type()
        args = [e.get_op_arg(k) for k in range(e.get_op_n_arg())]
        if op in _BINARY:
            symbol, prec = _BINARY[op]
            left, right = self._print(args[0], widen), self._print(args[1])
            if op in _LOGICAL:  # (a constant operand, as a guard known to hold gives: 'k2 >= 1 || 1' is 1)
                folded = _folded(op, left, right)
                if folded is not None:
                    return folded
            values = combine(e, [left.values, right.values])
            wide = left.wide or right.wide
            if op in ARITHMETIC and not wide and self.ranges.exceeds(values):
                left, wide = self._print(args[0], True), True
            left_text = left.text if left.precedence >= prec else f"({left.text})"
            right_text = right.text if right.precedence > prec else f"({right.text})"
            return _Printed(f"{left_text} {symbol} {right_text}", prec, values, wide and op in ARITHMETIC)
        if op == _OP.minus:
            inner = self._print(args[0], widen)
            text = inner.text if inner.precedence >= _PRIMARY else f"({inner.text})"
            return _Printed(f"-{text}", _UNARY, combine(e, [inner.values]), inner.wide)
        if op in (_OP.min, _OP.max, _OP.fdiv_q):
            operands = [self._print(a, widen and k == 0) for k, a in enumerate(args)]
            values, wide = combine(e, [o.values for o in operands]), any(o.wide for o in operands)
            if op == _OP.fdiv_q:
                self.helpers_used.add("floord")
                return _Printed(f"polypragma_floord({operands[0].text}, {operands[1].text})", _PRIMARY, values, wide)
            name = "min" if op == _OP.min else "max"
            self.helpers_used.add(name)
            text = operands[0].text
            for o in operands[1:]:
                text = f"polypragma_{name}({text}, {o.text})"
            return _Printed(text, _PRIMARY, values, wide)
        if op in (_OP.cond, _OP.select):
            c, t, f = (self._print(a) for a in args)
            printed = _Printed(f"{c.text if c.precedence > _COND else '(' + c.text + ')'} ? "
                               f"{t.text if t.precedence > _COND else '(' + t.text + ')'} : "
                               f"{f.text if f.precedence >= _COND else '(' + f.text + ')'}",
                               _COND, combine(e, [c.values, t.values, f.values]), t.wide or f.wide)
            return _cast(printed) if widen else printed
        if op == _OP.call:
            text = f"{self.expr(args[0])}({', '.join(self.expr(a) for a in args[1:])})"
        elif op == _OP.access:
            text = self.expr(args[0]) + "".join(f"[{self.expr(a)}]" for a in args[1:])
        elif op == _OP.address_of:
            inner, ip = self._expr(args[0])
            return _Printed(f"&{inner if ip >= _PRIMARY else '(' + inner + ')'}", _UNARY, UNKNOWN, False)
        elif op == _OP.member:
            text = f"{self.expr(args[0])}.{self.expr(args[1])}"
        else:
            raise ValueError(f"unexpected isl AST operation {op}")
        printed = _Printed(text, _PRIMARY, UNKNOWN, False)
        return _cast(printed) if widen else printed

    def identifier(self, name: str) -> str:
        return self.names.get(name, name)

    # -- nodes -----------------------------------------------------------------
    def node(self, n: isl.AstNode, depth: int) -> list[str]:
        kind = n.get_type()
        if kind == isl.ast_node_type.block:
            children = n.block_get_children()
            out: list[str] = []
            for k in range(children.n_ast_node()):
                out += self.node(children.get_at(k), depth)
            return out
        if kind == isl.ast_node_type.for_:
            return self.for_node(n, depth)
        if kind == isl.ast_node_type.if_:
            return self.if_node(n, depth)
        if kind == isl.ast_node_type.user:
            return self.user(n, depth)
        if kind == isl.ast_node_type.mark:
            return self.mark(n, depth)
        raise ValueError(f"unexpected isl AST node {kind}")

    def pad(self, depth: int) -> str:
        return self.indent_unit * depth

    def for_node(self, n: isl.AstNode, depth: int) -> list[str]:
        iterator = self.expr(n.for_get_iterator())
        start = self._print(n.for_get_init())
        init = start.text
        pad = self.pad(depth)
        # (an initial value beyond the type, as isl may write for an empty loop: the wider type)
        name = n.for_get_iterator().get_id().get_name()
        ctype = self.iterator_type
        self.wide_names.discard(name)
        if self.ranges.exceeds(start.values):
            ctype = WIDE_TYPE
            self.wide_names.add(name)
        self.ranges.bound(name, self.ranges.loop(n, start.values))
        if n.for_is_degenerate():
            body = self.node(n.for_get_body(), depth + 1)
            return [f"{pad}{{", f"{pad}{self.indent_unit}const {ctype} {iterator} = {init};",
                    *body, f"{pad}}}"]
        cond = self.expr(n.for_get_cond())
        inc = self.expr(n.for_get_inc())
        step = "++" + iterator if inc == "1" else f"{iterator} += {inc}"
        header = f"{pad}for ({ctype} {iterator} = {init}; {cond}; {step}) {{"
        self.enter_for(n)
        body = self.node(n.for_get_body(), depth + 1)
        self.leave_for(n)
        return [*self.before_for(n, depth), header, *body, f"{pad}}}"]

    def whole_loop(self, n: isl.AstNode, depth: int, count: int, pragma: str) -> list[str]:
        """The for node ``n``, whose iterator takes values in 0 .. ``count`` - 1 only, as a loop over all
        of them under ``pragma`` (``#pragma unroll``), with isl's bounds a guard inside where they say
        more (a partial tile's ``k5 <= min(3, ni - ...)``): its trip count a constant, the device
        compiler unrolls it whole and every index made of its iterator is a constant.  A step other
        than one is a guard too (``(k4 - lower) % 3 == 0``)."""
        iterator = n.for_get_iterator()
        name, text = iterator.get_id().get_name(), self.expr(iterator)
        if n.for_is_degenerate() and n.for_get_init().get_type() == isl.ast_expr_type.int:
            return CFamilyPrinter.for_node(self, n, depth)  # (a constant: nothing to unroll)
        init = self._print(n.for_get_init())
        guards: list[str] = []
        if n.for_is_degenerate():
            guards.append(f"{text} == {_operand(init, _EQ)}")
        else:
            if init.text != "0":
                guards.append(f"{text} >= {_operand(init, _REL)}")
            step = self.expr(n.for_get_inc())
            if step != "1":
                difference = text if init.text == "0" else f"{text} - {_operand(init, _ADD)}"
                guards.append(f"({difference}) % {step} == 0")
            guard = self._guard_below(n.for_get_cond(), name, text, count)
            if guard is not None:
                guards.append(guard)
        self.wide_names.discard(name)
        self.ranges.bound(name, (0, count - 1))
        pad = self.pad(depth)
        header = [f"{pad}{pragma}", f"{pad}for ({self.iterator_type} {text} = 0; {text} < {count}; ++{text}) {{"]
        self.enter_for(n)
        if guards:
            body = [f"{pad}{self.indent_unit}if ({' && '.join(guards)}) {{",
                    *self.node(n.for_get_body(), depth + 2), f"{pad}{self.indent_unit}}}"]
        else:
            body = self.node(n.for_get_body(), depth + 1)
        self.leave_for(n)
        return [*self.before_for(n, depth), *header, *body, f"{pad}}}"]

    def _guard_below(self, cond: isl.AstExpr, name: str, text: str, count: int) -> str | None:
        """The loop condition ``cond`` of the iterator ``name`` (printed ``text``) below ``count`` as a
        guard, without the bounds the count already sets (``k5 <= min(3, X)`` is ``k5 <= X`` where 3 is
        the last of 4); None where those are all it says."""
        op = cond.get_op_type()
        left = cond.get_op_arg(0)
        if op not in (_OP.le, _OP.lt) or left.get_type() != isl.ast_expr_type.id or left.get_id().get_name() != name:
            return _operand(self._print(cond), _AND)
        bound = cond.get_op_arg(1)
        is_min = bound.get_type() == isl.ast_expr_type.op and bound.get_op_type() == _OP.min
        bounds = [bound.get_op_arg(k) for k in range(bound.get_op_n_arg())] if is_min else [bound]
        last = count - 1 if op == _OP.le else count
        kept = [b for b in bounds if b.get_type() != isl.ast_expr_type.int or int(b.get_val().to_python()) < last]
        if not kept:
            return None
        printed = [self._print(b) for b in kept]
        upper = printed[0].text if printed[0].precedence > _REL else f"({printed[0].text})"
        if len(printed) > 1:
            self.helpers_used.add("min")
            upper = printed[0].text
            for other in printed[1:]:
                upper = f"polypragma_min({upper}, {other.text})"
        return f"{text} {'<=' if op == _OP.le else '<'} {upper}"

    def if_node(self, n: isl.AstNode, depth: int) -> list[str]:
        pad = self.pad(depth)
        cond = self.expr(n.if_get_cond())
        if cond in ("0", "1"):  # (a block: the branch's declarations keep their scope)
            taken = n.if_get_then_node() if cond == "1" else n.if_get_else_node() if n.if_has_else_node() else None
            return [] if taken is None else [f"{pad}{{", *self.node(taken, depth + 1), f"{pad}}}"]
        out = [f"{pad}if ({cond}) {{", *self.node(n.if_get_then_node(), depth + 1)]
        if n.if_has_else_node():
            out += [f"{pad}}} else {{", *self.node(n.if_get_else_node(), depth + 1)]
        out.append(f"{pad}}}")
        return out

    # -- hooks -----------------------------------------------------------------
    def before_for(self, n: isl.AstNode, depth: int) -> list[str]:
        return []

    def enter_for(self, n: isl.AstNode) -> None:
        pass

    def leave_for(self, n: isl.AstNode) -> None:
        pass

    def mark(self, n: isl.AstNode, depth: int) -> list[str]:
        return self.node(n.mark_get_node(), depth)

    def user(self, n: isl.AstNode, depth: int) -> list[str]:
        raise NotImplementedError

    def helper_lines(self) -> list[str]:
        return [HELPER_DEFINITIONS[h] for h in sorted(self.helpers_used)]
