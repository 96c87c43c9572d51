"""C expressions to isl: affine expressions as PwAff, conditions as Set.

An :class:`AffineBuilder` works in one set space ``[params] -> { [dims] }``
(the enclosing loop iterators of a point in the region).  A name resolves to a
dimension, a parameter or a constant; anything else makes the expression
non-affine, reported as :class:`NonAffine` with the offending node.

C semantics are kept exactly: ``/`` and ``%`` truncate toward zero
(``tdiv_q``/``tdiv_r``), the conditional operator becomes a piecewise
expression, and a loop's ``min``/``max`` macros are just conditionals.
"""

from __future__ import annotations

from typing import Callable

import islpy as isl
from pycparser import c_ast

from polypragma.frontend.c_tree import subtree


_SIGNED_WIDE = {"int", "long", "signed", "long long", "long int", "signed int", "long long int",
                "signed long", "signed long long", "int64_t", "int32_t", "intptr_t", "ptrdiff_t",
                "ssize_t", "intmax_t", "off_t"}
_UNSIGNED_WIDE = {"unsigned", "unsigned int", "unsigned long", "unsigned long long", "unsigned long int",
                  "long unsigned int", "size_t", "uint32_t", "uint64_t", "uintptr_t", "uintmax_t"}


def cast_kind(node: c_ast.Cast) -> str | None:
    """"signed" or "unsigned" for a cast to an integer type at least as wide as int, else None."""
    target = node.to_type.type
    if not isinstance(target, c_ast.TypeDecl) or not isinstance(target.type, c_ast.IdentifierType):
        return None
    name = " ".join(target.type.names)
    if name in _SIGNED_WIDE:
        return "signed"
    if name in _UNSIGNED_WIDE:
        return "unsigned"
    return None


class NonAffine(Exception):
    def __init__(self, node: c_ast.Node, what: str):
        super().__init__(what)
        self.node = node
        self.what = what


def _int_literal(text: str) -> int | None:
    t = text.rstrip("uUlL")
    try:
        if t.lower().startswith("0x"):
            return int(t, 16)
        if t.lower().startswith("0b"):
            return int(t, 2)
        if len(t) > 1 and t.startswith("0"):
            return int(t, 8)
        return int(t)
    except ValueError:
        return None


def constant_value(node: c_ast.Node, enums: dict[str, int] | None = None) -> int | None:
    """The value of an integer constant expression, or None."""
    if isinstance(node, c_ast.Constant):
        return _int_literal(node.value) if node.type in ("int", "unsigned int", "long", "unsigned long", "long long", "unsigned long long") or node.type.endswith("int") else (
            ord(node.value[1]) if node.type == "char" and len(node.value) == 3 else None
        )
    if isinstance(node, c_ast.ID) and enums and node.name in enums:
        return enums[node.name]
    if isinstance(node, c_ast.Cast):
        return constant_value(node.expr, enums)
    if isinstance(node, c_ast.UnaryOp):
        v = constant_value(node.expr, enums)
        if v is None:
            return None
        return {"-": -v, "+": v, "~": ~v, "!": int(not v)}.get(node.op)
    if isinstance(node, c_ast.BinaryOp):
        a = constant_value(node.left, enums)
        b = constant_value(node.right, enums)
        if a is None or b is None:
            return None
        op = node.op
        if op in ("/", "%"):
            if b == 0:
                return None
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            return q if op == "/" else a - q * b
        table: dict[str, Callable[[int, int], int]] = {
            "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
            "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y,
            "<": lambda x, y: int(x < y), "<=": lambda x, y: int(x <= y),
            ">": lambda x, y: int(x > y), ">=": lambda x, y: int(x >= y),
            "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y),
            "&&": lambda x, y: int(bool(x) and bool(y)), "||": lambda x, y: int(bool(x) or bool(y)),
            "&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y,
        }
        return table[op](a, b) if op in table else None
    if isinstance(node, c_ast.TernaryOp):
        c = constant_value(node.cond, enums)
        if c is None:
            return None
        return constant_value(node.iftrue if c else node.iffalse, enums)
    return None


# What a name means inside an affine expression.
Resolution = tuple[str, object]  # ("dim", position) | ("param", position) | ("const", value) | ("value", PwAff)


class AffineBuilder:
    """Builds isl objects over the set space ``[params] -> { [dims] }``."""

    def __init__(self, ctx: isl.Context, params: list[str], dims: list[str],
                 resolve: Callable[[str], Resolution | None],
                 is_unsigned: Callable[[str], bool] = lambda name: False):
        self.ctx = ctx
        self.space = isl.Space.create_from_names(ctx, set=list(dims), params=list(params))
        self.local_space = isl.LocalSpace.from_space(self.space)
        self.resolve = resolve
        self.is_unsigned_name = is_unsigned
        # Sets on which the expressions built so far mean what they mean in C: an
        # unsigned comparison or conversion is exact only where its operands are not
        # negative.  The caller checks them on the points where the code runs.
        self.requirements: list[tuple[isl.Set, c_ast.Node]] = []

    # -- constructors ---------------------------------------------------
    def constant(self, value: int) -> isl.PwAff:
        aff = isl.Aff.zero_on_domain(self.local_space)
        return isl.PwAff.from_aff(aff.set_constant_val(isl.Val(str(value), context=self.ctx)))

    def dim(self, position: int) -> isl.PwAff:
        return isl.PwAff.from_aff(isl.Aff.var_on_domain(self.local_space, isl.dim_type.set, position))

    def param(self, position: int) -> isl.PwAff:
        return isl.PwAff.from_aff(isl.Aff.var_on_domain(self.local_space, isl.dim_type.param, position))

    def universe(self) -> isl.Set:
        return isl.Set.universe(self.space)

    # -- expressions ----------------------------------------------------
    def pwaff(self, node: c_ast.Node) -> isl.PwAff:
        """The affine value of ``node``; raises :class:`NonAffine`."""
        if isinstance(node, c_ast.Constant):
            value = constant_value(node)
            if value is None:
                raise NonAffine(node, f"constant '{node.value}'")
            return self.constant(value)
        if isinstance(node, c_ast.ID):
            meaning = self.resolve(node.name)
            if meaning is None:
                raise NonAffine(node, f"variable '{node.name}'")
            kind, value = meaning
            if kind == "dim":
                return self.dim(value)
            if kind == "wrapped":  # an unsigned iterator that wraps around: (dimension, 2^width)
                position, modulus = value
                return self.dim(position).mod_val(isl.Val(str(modulus), context=self.ctx))
            if kind == "param":
                return self.param(value)
            if kind == "value":  # a PwAff over the parameters (an iterator's value after its loop)
                projection = isl.MultiAff.zero(isl.Space.map_from_domain_and_range(
                    self.space, value.get_domain_space()))
                return value.pullback_multi_aff(projection)
            return self.constant(value)
        if isinstance(node, c_ast.Cast):
            kind = cast_kind(node)
            if kind is None:
                raise NonAffine(node, "cast to a type narrower than int or not an integer")
            value = self.pwaff(node.expr)
            if kind == "unsigned":
                self.requirements.append((value.nonneg_set(), node))
            return value
        if isinstance(node, c_ast.UnaryOp):
            if node.op == "-":
                return self.pwaff(node.expr).neg()
            if node.op == "+":
                return self.pwaff(node.expr)
            if node.op == "!":
                return self.condition(node).indicator_function()
            raise NonAffine(node, f"operator '{node.op}'")
        if isinstance(node, c_ast.TernaryOp):
            cond = self.condition(node.cond)
            return cond.indicator_function().cond(self.pwaff(node.iftrue), self.pwaff(node.iffalse))
        if isinstance(node, c_ast.BinaryOp):
            op = node.op
            if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
                return self.condition(node).indicator_function()
            left = self.pwaff(node.left)
            right = self.pwaff(node.right)
            if op == "+":
                return left.add(right)
            if op == "-":
                return left.sub(right)
            if op == "*":
                if right.is_cst():
                    return left.mul(right)
                if left.is_cst():
                    return right.mul(left)
                raise NonAffine(node, "product of two variables")
            if op in ("/", "%"):
                divisor = constant_value(node.right, None)
                if divisor is None:
                    divisor = _constant_of(right)
                if divisor is None or divisor == 0:
                    raise NonAffine(node, f"'{op}' by a non-constant")
                d = self.constant(divisor)
                return left.tdiv_q(d) if op == "/" else left.tdiv_r(d)
            raise NonAffine(node, f"operator '{op}'")
        raise NonAffine(node, _describe(node))

    def condition(self, node: c_ast.Node) -> isl.Set:
        """The set of points where ``node`` is true (non-zero)."""
        if isinstance(node, c_ast.BinaryOp):
            op = node.op
            if op == "&&":
                return self.condition(node.left).intersect(self.condition(node.right))
            if op == "||":
                return self.condition(node.left).union(self.condition(node.right))
            compare = {
                "<": "lt_set", "<=": "le_set", ">": "gt_set", ">=": "ge_set",
                "==": "eq_set", "!=": "ne_set",
            }
            if op in compare:
                left = self.pwaff(node.left)
                right = self.pwaff(node.right)
                if self.is_unsigned(node.left) or self.is_unsigned(node.right):
                    self.requirements.append((left.nonneg_set().intersect(right.nonneg_set()), node))
                return getattr(left, compare[op])(right)
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            return self.condition(node.expr).complement()
        return self.pwaff(node).non_zero_set()


    def is_unsigned(self, node: c_ast.Node) -> bool:
        """Whether C evaluates ``node`` in an unsigned type (conservatively)."""
        if isinstance(node, c_ast.Constant):
            return node.type != "char" and "u" in node.value.lower()  # 'u' is no hex digit
        if isinstance(node, c_ast.ID):
            return self.is_unsigned_name(node.name)
        if isinstance(node, c_ast.Cast):
            return cast_kind(node) == "unsigned"
        if isinstance(node, c_ast.UnaryOp):
            return node.op in ("-", "+", "~") and self.is_unsigned(node.expr)
        if isinstance(node, c_ast.BinaryOp):
            if node.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
                return False
            return self.is_unsigned(node.left) or self.is_unsigned(node.right)
        if isinstance(node, c_ast.TernaryOp):
            return self.is_unsigned(node.iftrue) or self.is_unsigned(node.iffalse)
        return False


def _constant_of(pa: isl.PwAff) -> int | None:
    if not pa.is_cst():
        return None
    pieces = pa.get_pieces()
    if len(pieces) != 1:
        return None
    aff = pieces[0][1]
    val = aff.get_constant_val()
    if not val.is_int():
        return None
    return int(val.to_python())


def _describe(node: c_ast.Node) -> str:
    if isinstance(node, c_ast.ArrayRef):
        return "array element"
    if isinstance(node, c_ast.FuncCall):
        return "function call"
    return type(node).__name__


# -- polynomials, for delinearising flat subscripts --------------------------
Monomial = tuple[str, ...]  # sorted variable names; () is the constant term
Polynomial = dict[Monomial, int]


def polynomial(node: c_ast.Node, is_symbol: Callable[[str], bool],
               enums: dict[str, int] | None = None) -> Polynomial | None:
    """``node`` as a polynomial with integer coefficients over the names
    ``is_symbol`` accepts, or None."""
    value = constant_value(node, enums)
    if value is not None:
        return {(): value} if value else {}
    if isinstance(node, c_ast.ID):
        return {(node.name,): 1} if is_symbol(node.name) else None
    if isinstance(node, c_ast.Cast):
        return polynomial(node.expr, is_symbol, enums)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        p = polynomial(node.expr, is_symbol, enums)
        if p is None:
            return None
        return {m: -c for m, c in p.items()} if node.op == "-" else p
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
        a = polynomial(node.left, is_symbol, enums)
        b = polynomial(node.right, is_symbol, enums)
        if a is None or b is None:
            return None
        out: Polynomial = {}
        if node.op == "*":
            for ma, ca in a.items():
                for mb, cb in b.items():
                    m = tuple(sorted(ma + mb))
                    out[m] = out.get(m, 0) + ca * cb
        else:
            sign = 1 if node.op == "+" else -1
            out = dict(a)
            for m, c in b.items():
                out[m] = out.get(m, 0) + sign * c
        return {m: c for m, c in out.items() if c}
    return None


def linear_form(node: c_ast.Node, enums: dict[str, int] | None = None) -> dict[str, int] | None:
    """``node`` as a sum of names times integers (the constant under ""), or None: a product of names, a
    cast (which may change the value), a read of memory, a call..."""
    if any(isinstance(n, c_ast.Cast) for n in subtree(node)):
        return None
    poly = polynomial(node, lambda name: True, enums)
    if poly is None or any(len(monomial) > 1 for monomial in poly):
        return None
    return {(monomial[0] if monomial else ""): coefficient for monomial, coefficient in poly.items()}
