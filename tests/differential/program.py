"""A small model of static-control C programs: affine expressions with known value ranges,
loops, guards and assignments, printed as C; and subscripts read from the data (``A[IDX[i]]``).

Every expression knows the interval of values it can take, given intervals for the parameters
and the enclosing loop iterators (an index read from the data: the values its array is filled
with); the arrays are sized from the intervals of their subscripts, so every access of a printed
program stays in bounds."""

from __future__ import annotations

from dataclasses import dataclass, field

Interval = tuple[int, int]


@dataclass(frozen=True)
class Aff:
    """sum(coefficient * variable) + constant"""

    terms: tuple[tuple[str, int], ...] = ()
    constant: int = 0

    def interval(self, env: dict[str, Interval]) -> Interval:
        lo = hi = self.constant
        for name, coefficient in self.terms:
            a, b = env[name]
            lo += min(coefficient * a, coefficient * b)
            hi += max(coefficient * a, coefficient * b)
        return lo, hi

    def shifted(self, offset: int) -> Aff:
        return Aff(self.terms, self.constant + offset)

    def c(self) -> str:
        text = ""
        for name, coefficient in self.terms:
            if coefficient == 0:
                continue
            magnitude = abs(coefficient)
            word = name if magnitude == 1 else f"{magnitude} * {name}"
            if not text:
                text = word if coefficient > 0 else f"-{word}"
            else:
                text += f" + {word}" if coefficient > 0 else f" - {word}"
        if not text:
            return str(self.constant)
        if self.constant:
            text += f" + {self.constant}" if self.constant > 0 else f" - {-self.constant}"
        return text


@dataclass(frozen=True)
class MinMax:
    """MIN(a, b) or MAX(a, b), written as the macro or as a conditional expression."""

    kind: str  # "min" or "max"
    a: Bound
    b: Bound
    ternary: bool = False

    def interval(self, env: dict[str, Interval]) -> Interval:
        (a0, a1), (b0, b1) = self.a.interval(env), self.b.interval(env)
        return (min(a0, b0), min(a1, b1)) if self.kind == "min" else (max(a0, b0), max(a1, b1))

    def c(self) -> str:
        a, b = self.a.c(), self.b.c()
        if self.ternary:
            op = "<" if self.kind == "min" else ">"
            return f"(({a}) {op} ({b}) ? ({a}) : ({b}))"
        return f"{self.kind.upper()}({a}, {b})"


Bound = Aff | MinMax


@dataclass(frozen=True)
class Condition:
    """An affine condition: comparisons joined by && or ||, or ``aff % k == r``."""

    text: str


@dataclass
class Array:
    name: str
    type: str  # "double" or "int"
    rank: int
    storage: str  # "global", "param" (fixed-size parameter) or "vla" (extents passed as parameters)
    offsets: list[int] = field(default_factory=list)
    extents: list[int] = field(default_factory=list)
    values: Interval | None = None  # an int array's values (None: any in -50..50), for an index array

    def size(self) -> int:
        total = 1
        for extent in self.extents:
            total *= extent
        return total

    def extent_names(self) -> list[str]:
        return [f"{self.name.lower()}{d}" for d in range(self.rank)]


@dataclass
class Scalar:
    name: str
    type: str
    initial: str


# the array the indices on data are read from, never written, and its values
INDEX_ARRAY = "IDX"
INDEX_VALUES = (0, 3)


@dataclass(frozen=True)
class Indirect:
    """A subscript read from the data, ``IDX[index] + constant``: IDX holds values in INDEX_VALUES."""

    index: Access
    constant: int = 0

    def interval(self, env: dict[str, Interval]) -> Interval:
        return self.constant + INDEX_VALUES[0], self.constant + INDEX_VALUES[1]

    def shifted(self, offset: int) -> Indirect:
        return Indirect(self.index, self.constant + offset)


Subscript = Aff | Indirect


@dataclass(frozen=True)
class Access:
    array: str
    subscripts: tuple[Subscript, ...]


@dataclass(frozen=True)
class ScalarRef:
    name: str


Ref = Access | ScalarRef


@dataclass(frozen=True)
class Term:
    """coefficient * value, where value is a reference, an iterator or a math function of a reference."""

    coefficient: str
    value: Ref | str
    function: str = ""  # "", "sqrt_fabs", "fmax", "cast"
    other: Ref | None = None


@dataclass
class Assign:
    target: Ref
    op: str  # "=", "+=", "-=", "++", "mod" (int: target = (target + rhs) % 997)
    terms: list[Term]
    constant: str
    type: str
    data_guard: Ref | None = None  # if (ref > 0) around the statement


@dataclass
class Loop:
    var: str
    start: Bound
    end: Bound
    compare: str  # "<", "<=", ">", ">="
    step: int  # positive: increasing, negative: decreasing
    body: list
    declare: bool = False  # 'for (int i = ...'


@dataclass
class If:
    condition: Condition
    then: list
    otherwise: list | None = None


Node = Loop | If | Assign
