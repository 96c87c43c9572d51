"""Hypothesis strategies for random static-control C programs (see program.py and render.py).

A program has one region in a function ``kernel``: nests of depth 1 to 4 with affine bounds
(parametric, triangular, MIN/MAX, strides, decreasing loops), imperfect nesting and sequences,
affine guards, 1- to 3-dimensional int and double arrays (globals, fixed-size and variable-length
parameters) accessed with shifted, transposed, skewed and reversed subscripts and now and then a
subscript read from the data (``A[IDX[i]]``: gathers, scatters, histograms), reductions, in-place
updates, scalars written inside the region, and time loops around stencils.

Arithmetic stays tame: int statements are taken modulo 997, double statements are combinations with
coefficients of magnitude at most 1 (and sqrt(fabs(.)), fmax), so results compare exactly (ints)
or to a tight tolerance (doubles)."""

from __future__ import annotations

from hypothesis import strategies as st

from program import (INDEX_ARRAY, INDEX_VALUES, Access, Aff, Array, Assign, Condition, If, Indirect, Loop,
                     MinMax, Scalar, ScalarRef, Term)
from render import Program

MAX_DEPTH = 4
MAX_STATEMENTS = 4
PARAMETER_MAX = 9
TIME_MAX = 3
DOUBLE_COEFFICIENTS = ("0.5", "0.25", "-0.25", "0.125", "-0.5", "0.375")
# subscripts read from the data, one in about this many (where there is an iterator; drawn as a value in
# the middle of the range, which Hypothesis does not favour as it does its ends)
INDIRECT_ONE_IN = 60


class _Context:
    """What a statement may use: the enclosing iterators (outermost first), the arrays, scalars."""

    def __init__(self, parameters, arrays, scalars):
        self.parameters = parameters
        self.arrays = arrays
        self.scalars = scalars
        self.iterators: list[str] = []
        self.time: str | None = None
        self.budget = MAX_STATEMENTS  # statements still to generate (keeps the scheduler's work small)
        self.indirect = False  # a subscript reads INDEX_ARRAY


@st.composite
def _affine_of(draw, names: list[str], small: bool = False) -> Aff:
    """An affine bound over ``names``: a constant, one name plus a shift, or a short combination."""
    if not names or draw(st.integers(0, 4)) == 0:
        return Aff((), draw(st.integers(0, 3)))
    first = draw(st.sampled_from(names))
    terms = [(first, 1)]
    if not small and len(names) > 1 and draw(st.integers(0, 3)) == 0:
        second = draw(st.sampled_from([n for n in names if n != first]))
        terms.append((second, draw(st.sampled_from([1, -1]))))
    return Aff(tuple(terms), draw(st.integers(-2, 2)))


@st.composite
def _bound(draw, names: list[str]) -> Aff | MinMax:
    if draw(st.integers(0, 5)) == 0 and names:
        kind = draw(st.sampled_from(["min", "max"]))
        return MinMax(kind, draw(_affine_of(names, small=True)), draw(_affine_of(names, small=True)),
                      draw(st.booleans()))
    return draw(_affine_of(names))


@st.composite
def _loop_header(draw, ctx: _Context, var: str):
    parameters = [p for p in ctx.parameters if p != ctx.time]
    outer = list(ctx.iterators)
    lower = draw(_bound(outer))
    upper = draw(_bound(parameters + outer))
    if draw(st.integers(0, 2)) == 0:
        upper = Aff(((draw(st.sampled_from(parameters)), 1),), draw(st.integers(-2, 1)))
    step = draw(st.sampled_from([1, 1, 1, 1, 1, 1, 2, 3]))
    decreasing = draw(st.integers(0, 4)) == 0
    if step > 1:
        # a strided loop starts at a value free of outer iterators: a start that moves with them
        # makes isl's code generation for the tiled kernels take minutes (bench/results/differential.md)
        start = draw(_affine_of(parameters if decreasing else []))
        upper, lower = (start, lower) if decreasing else (upper, start)
    if decreasing:  # start at the upper bound
        compare = draw(st.sampled_from([">=", ">"]))
        return upper, lower, compare, -step
    return lower, upper, draw(st.sampled_from(["<", "<", "<="])), step


@st.composite
def _subscript(draw, ctx: _Context, indirect: bool = True) -> Aff | Indirect:
    names = ctx.iterators
    if indirect and names and draw(st.integers(1, INDIRECT_ONE_IN)) == INDIRECT_ONE_IN // 2:
        ctx.indirect = True
        return Indirect(Access(INDEX_ARRAY, (draw(_subscript(ctx, False)),)), draw(st.integers(0, 1)))
    if not names or draw(st.integers(0, 6)) == 0:
        return Aff((), draw(st.integers(0, 3)))
    choice = draw(st.integers(0, 9))
    first = draw(st.sampled_from(names))
    if choice <= 5:  # shifted
        return Aff(((first, 1),), draw(st.sampled_from([0, 0, 0, -1, 1, -2, 2])))
    if choice == 6 and len(names) > 1:  # skewed
        second = draw(st.sampled_from([n for n in names if n != first]))
        return Aff(((first, 1), (second, draw(st.sampled_from([1, -1])))), draw(st.integers(-1, 1)))
    if choice == 7:  # reversed against a parameter
        parameter = draw(st.sampled_from([p for p in ctx.parameters if p != ctx.time]))
        return Aff(((parameter, 1), (first, -1)), draw(st.integers(-1, 0)))
    if choice == 8:
        return Aff(((first, 2),), draw(st.integers(-1, 1)))
    return Aff(((first, 1),), 0)


@st.composite
def _access(draw, ctx: _Context, arrays: list[Array]) -> Access:
    array = draw(st.sampled_from(arrays))
    if ctx.iterators and array.rank > 1 and draw(st.integers(0, 3)) == 0:
        # transposed: the innermost iterators in reverse order
        chosen = list(reversed(ctx.iterators[-array.rank:]))
        subscripts = tuple(Aff(((n, 1),), 0) for n in chosen)
        subscripts += tuple(draw(_subscript(ctx)) for _ in range(array.rank - len(subscripts)))
        return Access(array.name, subscripts)
    return Access(array.name, tuple(draw(_subscript(ctx)) for _ in range(array.rank)))


@st.composite
def _reference(draw, ctx: _Context, type_: str):
    arrays = [a for a in ctx.arrays if type_ == "double" or a.type == "int"]
    scalars = [s for s in ctx.scalars if type_ == "double" or s.type == "int"]
    if scalars and draw(st.integers(0, 4)) == 0:
        return ScalarRef(draw(st.sampled_from(scalars)).name)
    if not arrays:
        return ScalarRef(draw(st.sampled_from(scalars)).name) if scalars else None
    return draw(_access(ctx, arrays))


@st.composite
def _term(draw, ctx: _Context, type_: str) -> Term:
    coefficient = draw(st.sampled_from(DOUBLE_COEFFICIENTS if type_ == "double" else ("1", "2", "3", "-1")))
    if ctx.iterators and draw(st.integers(0, 5)) == 0:
        return Term(coefficient, draw(st.sampled_from(ctx.iterators)))
    value = draw(_reference(ctx, type_))
    if value is None:
        return Term(coefficient, draw(st.sampled_from(ctx.parameters)))
    function = ""
    other = None
    if type_ == "double":
        function = draw(st.sampled_from(["", "", "", "", "", "sqrt_fabs", "fmax", "ternary"]))
    elif draw(st.integers(0, 7)) == 0:
        function = "ternary"
    if function in ("fmax", "ternary"):
        other = draw(_reference(ctx, type_))
    return Term(coefficient, value, function, other)


@st.composite
def _statement(draw, ctx: _Context) -> Assign:
    writable = [a for a in ctx.arrays] + [ScalarRef(s.name) for s in ctx.scalars]
    choice = draw(st.sampled_from(writable))
    if isinstance(choice, Array):
        target = draw(_access(ctx, [choice]))
        type_ = choice.type
    else:
        target = choice
        type_ = next(s.type for s in ctx.scalars if s.name == choice.name)
    terms = draw(st.lists(_term(ctx, type_), min_size=0 if type_ == "int" else 1, max_size=3))
    if type_ == "double":
        op = draw(st.sampled_from(["=", "=", "+=", "-="]))
        constant = draw(st.sampled_from(["0.0", "0.125", "-0.5"]))
    else:
        op = draw(st.sampled_from(["=", "mod", "mod", "++"]))
        constant = str(draw(st.integers(-3, 3)))
    guard = None
    if draw(st.integers(0, 9)) == 0:
        guard = draw(_reference(ctx, "double"))
    return Assign(target, op, terms, constant, type_, guard)


@st.composite
def _condition(draw, ctx: _Context) -> Condition:
    names = ctx.iterators + [p for p in ctx.parameters if p != ctx.time]

    def comparison():
        a = draw(_affine_of(names))
        b = draw(_affine_of(names))
        return f"{a.c()} {draw(st.sampled_from(['<', '<=', '>', '>=', '==', '!=']))} {b.c()}"

    kind = draw(st.integers(0, 4))
    if kind == 0 and ctx.iterators:
        return Condition(f"{draw(st.sampled_from(ctx.iterators))} % {draw(st.integers(2, 3))} == "
                         f"{draw(st.integers(0, 1))}")
    if kind == 1:
        return Condition(f"{comparison()} && {comparison()}")
    if kind == 2:
        return Condition(f"{comparison()} || {comparison()}")
    return Condition(comparison())


@st.composite
def _nodes(draw, ctx: _Context, depth: int, count_max: int) -> list:
    count = draw(st.integers(1, count_max))
    nodes = []
    for index in range(count):
        if index and ctx.budget <= 0:
            break
        kind = draw(st.integers(0, 9))
        if depth < MAX_DEPTH and (kind <= 4 or not ctx.iterators) and ctx.budget > 0:
            nodes.append(draw(_loop(ctx, depth)))
        elif kind <= 7 or not ctx.iterators or ctx.budget <= 0:
            ctx.budget -= 1
            nodes.append(draw(_statement(ctx)))
        else:
            then = draw(_nodes(ctx, depth, 2))
            otherwise = draw(_nodes(ctx, depth, 1)) if draw(st.integers(0, 3)) == 0 else None
            nodes.append(If(draw(_condition(ctx)), then, otherwise))
    return nodes


@st.composite
def _loop(draw, ctx: _Context, depth: int) -> Loop:
    var = f"i{len(ctx.iterators)}"
    start, end, compare, step = draw(_loop_header(ctx, var))
    ctx.iterators.append(var)
    try:
        body = draw(_nodes(ctx, depth + 1, 2))
    finally:
        ctx.iterators.pop()
    return Loop(var, start, end, compare, step, body, declare=draw(st.integers(0, 3)) == 0)


@st.composite
def _array(draw, name: str) -> Array:
    return Array(name, draw(st.sampled_from(["double", "double", "int"])), draw(st.integers(1, 3)),
                 draw(st.sampled_from(["global", "param", "param", "vla"])))


@st.composite
def programs(draw) -> Program:
    """A random program with one region."""
    parameter_names = ["n", "m"][: draw(st.integers(1, 2))]
    has_time = draw(st.integers(0, 3)) == 0
    parameters = [(p, 0, PARAMETER_MAX) for p in parameter_names]
    if has_time:
        parameters.append(("T", 1, TIME_MAX))
    arrays = [draw(_array(name)) for name in "ABC"[: draw(st.integers(1, 3))]]
    scalars = [Scalar(name, type_, "0.5" if type_ == "double" else "1")
               for name, type_ in (("s", "double"), ("k", "int"))[: draw(st.integers(0, 2))]]
    ctx = _Context([p for p, _, _ in parameters], arrays, scalars)
    if has_time:
        ctx.time = "T"
        ctx.iterators.append("t")
        inner = draw(_nodes(ctx, 1, 2))
        ctx.iterators.pop()
        body = [Loop("t", Aff((), 0), Aff((("T", 1),), 0), "<", 1, inner)]
        if draw(st.booleans()):
            body += draw(_nodes(ctx, 0, 1))
    else:
        body = draw(_nodes(ctx, 0, 2))
    runs = []
    for seed in (1, 2):
        values = tuple(draw(st.integers(lo, hi)) for _, lo, hi in parameters)
        runs.append((seed, *values))
    if ctx.indirect:  # (read only: never drawn as a target or a value)
        arrays.append(Array(INDEX_ARRAY, "int", 1, "global", values=INDEX_VALUES))
    return Program(parameters, arrays, scalars, body, runs)
