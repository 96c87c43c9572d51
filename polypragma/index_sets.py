"""Index set splitting: a statement scheduled as pieces of its domain, where one schedule for the whole
of it runs loops in sequence that each piece's own would run in parallel.

Floyd-Warshall's ``path[i][j] = min(path[i][j], path[i][k] + path[k][j])`` is the example (Griebl,
Feautrier and Lengauer, "Index set splitting", IJPP 2000).  In iteration ``k`` every instance reads
row ``k`` and column ``k``, which the instances on the hyperplanes ``i = k`` and ``j = k`` write: the
dependences inside one iteration of ``k`` all leave from (or, the reads before the writes, arrive at)
those hyperplanes.  One affine schedule for the statement finds no parallel loop inside ``k`` but a
wavefront (``i + j``: a launch per diagonal, ``2n`` for each ``k``).  Cut at ``i - k`` and ``j - k``
(each piece ``< 0``, ``= 0`` or ``> 0``), each piece has its own schedule: the row and the column
first, then the rest, each parallel in ``i`` and ``j``.

Which hyperplanes: for each statement with loops in sequence outside its parallel ones in the schedule
of the whole, the dependences between its own instances within one iteration of its outer loops (all
but the innermost of the sequential ones, counted from the source's loops), and of those the
equalities of the affine hull of their sources or of their sinks that the domain does not imply: the
sets the dependences leave from or arrive at when they are thinner than the domain, where the loops'
coefficients are -1, 0 or 1 (a row, a column, an element: :func:`_unit`), of statements whose loops have
no step (:func:`_strided`).  Each piece
becomes a statement of its own (:func:`pieces`: its domain, a copy of the body, its references), so
isl gives it its own schedule and later stages its own kernels; the driver keeps the pieces where no
statement runs more loops in sequence outside its parallel ones and some run fewer.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from itertools import product

import islpy as isl

from polypragma.isl_helpers import coalesced, maps_of
from polypragma.model import Scop, Statement

# hyperplanes per statement: 3^n pieces at most
MAX_CUTS = 2


@dataclass(frozen=True)
class Split:
    """A model whose statements cut at hyperplanes are replaced by their pieces: ``origin`` names the
    statement of each piece, and ``cuts`` holds the affine expressions each statement was cut at."""

    scop: Scop
    origin: dict[str, str]
    cuts: dict[str, tuple[isl.Aff, ...]]

    def by_statement(self, counts: dict[str, int]) -> dict[str, int]:
        """Per statement, the largest of its pieces' ``counts``."""
        result: dict[str, int] = {}
        for name, count in counts.items():
            original = self.origin.get(name, name)
            result[original] = max(result.get(original, 0), count)
        return result

    def describe(self) -> list[str]:
        lines = []
        for name, affs in sorted(self.cuts.items()):
            parts = [p for p, o in self.origin.items() if o == name]
            lines.append(f"{name}: split at {', '.join(_text(a) for a in affs)} = 0 into {', '.join(parts)} "
                         f"(index set splitting): its pieces have parallel loops its whole domain has not")
        return lines


def hyperplanes(scop: Scop, dependences: isl.UnionMap, outside: dict[str, int]) -> dict[str, list[isl.Aff]]:
    """Per statement that runs loops in sequence outside its parallel ones (``outside``), the
    hyperplanes its dependences within one iteration of its outer loops leave from or arrive at."""
    result: dict[str, list[isl.Aff]] = {}
    for statement in scop.statements:
        count = outside.get(statement.name, 0)
        if not count or _strided(statement.domain):
            continue
        domain = statement.domain
        n = domain.dim(isl.dim_type.set)
        fixed = min(count - 1, n - 1)
        own = isl.UnionMap.from_map(_same_outer(domain, fixed))
        hull = domain.affine_hull()
        found: list[isl.Aff] = []
        for piece in _basic_maps(dependences.intersect(own)):
            for end in (piece.domain(), piece.range()):
                for constraint in end.affine_hull().gist(hull).get_constraints():
                    aff = constraint.get_aff()
                    if not constraint.is_equality() or not _involves_inner(aff, fixed, n) or not _unit(aff, n):
                        continue
                    aff = _oriented(aff, n)
                    if not any(aff.plain_is_equal(other) for other in found):
                        found.append(aff)
        if found:
            result[statement.name] = sorted(found, key=_text)[:MAX_CUTS]
    return result


def pieces(scop: Scop, cuts: dict[str, list[isl.Aff]]) -> Split | None:
    """``scop`` with the statements of ``cuts`` cut at their hyperplanes into the non-empty pieces (on
    each side of each, and on it), each a statement with its own copy of the body and its references;
    None where no statement has two pieces."""
    taken = {s.name for s in scop.statements}
    statements: list[Statement] = []
    references = list(scop.references)
    origin: dict[str, str] = {}
    kept: dict[str, tuple[isl.Aff, ...]] = {}
    to_original = isl.UnionPwMultiAff.empty(scop.domain.get_space())
    for statement in scop.statements:
        parts, affs = [], cuts.get(statement.name, [])
        for signs in product((-1, 0, 1), repeat=len(affs)):
            part = statement.domain
            for aff, sign in zip(affs, signs):
                part = part.intersect(_side(aff, sign))
            if not part.intersect_params(scop.context).is_empty():
                parts.append(part)
        if len(parts) < 2:
            statements.append(statement)
            to_original = to_original.union_add(_identity(statement.domain, statement.name))
            continue
        kept[statement.name] = tuple(affs)
        own = [r for r in references if r.statement == statement.name]
        references = [r for r in references if r.statement != statement.name]
        for k, part in enumerate(parts):
            name = f"{statement.name}_part{k}"
            while name in taken:
                name += "_"
            taken.add(name)
            origin[name] = statement.name
            memo: dict = {}
            body = copy.deepcopy(statement.body, memo)
            statements.append(replace(
                statement, name=name, domain=part.set_tuple_name(name), body=body,
                reads=_restricted(statement.reads, part, name), must_writes=_restricted(statement.must_writes, part, name),
                may_writes=_restricted(statement.may_writes, part, name)))
            references += [replace(r, statement=name, node=memo.get(id(r.node), r.node),
                                   relation=r.relation.intersect_domain(part).set_tuple_name(isl.dim_type.in_, name))
                           for r in own]
            to_original = to_original.union_add(_identity(part, name))
    if not kept:
        return None
    # each piece in the original order of its statement (the schedule kept when isl is not asked)
    schedule = scop.schedule.pullback_union_pw_multi_aff(to_original)
    split = replace(scop, statements=tuple(statements), references=tuple(references), schedule=schedule)
    return Split(split, origin, kept)


def _identity(domain: isl.Set, name: str) -> isl.UnionPwMultiAff:
    """``{ name[x] -> S[x] : S[x] in domain }``: an instance of a piece (or of a statement not cut,
    ``name`` its own) as the instance of its statement."""
    identity = isl.MultiAff.identity(domain.get_space().map_from_set()).set_tuple_name(isl.dim_type.in_, name)
    return isl.UnionPwMultiAff.from_pw_multi_aff(
        isl.PwMultiAff.from_multi_aff(identity).intersect_domain(domain.set_tuple_name(name)))


def _restricted(relation: isl.UnionMap, part: isl.Set, name: str) -> isl.UnionMap:
    """``relation``'s accesses by the instances of ``part``, as those of the piece ``name``."""
    result = isl.UnionMap.empty(relation.get_space())
    for m in maps_of(relation.intersect_domain(isl.UnionSet.from_set(part))):
        result = result.union(isl.UnionMap.from_map(m.set_tuple_name(isl.dim_type.in_, name)))
    return result


def _basic_maps(relation: isl.UnionMap) -> list[isl.BasicMap]:
    """The disjuncts of ``relation``: each has the hulls of its own ends (a union of a row's and a
    column's dependences has none)."""
    result = []
    for piece in maps_of(coalesced(relation)):
        basics = piece.get_basic_map_list()
        result += [basics.get_at(k) for k in range(basics.n_basic_map())]
    return result


def _same_outer(domain: isl.Set, fixed: int) -> isl.Map:
    """Pairs of instances of ``domain``'s statement with equal values of its first ``fixed`` loops."""
    same = isl.Map.from_domain_and_range(domain, domain)
    for d in range(fixed):
        same = same.equate(isl.dim_type.in_, d, isl.dim_type.out, d)
    return same


def _involves_inner(aff: isl.Aff, fixed: int, n: int) -> bool:
    """Whether ``aff`` involves one of the loops from ``fixed`` inwards."""
    return any(not aff.get_coefficient_val(isl.dim_type.in_, d).is_zero() for d in range(fixed, n))


def _strided(domain: isl.Set) -> bool:
    """Whether ``domain`` has a loop with a step (an existential variable: ``i3 += 3``): its pieces would
    add their hyperplanes to its congruences, and those of random programs took isl's scheduler 7 s and
    its AST generation 48 s (the kernels then gave up their shared memory) for nothing a row or a column
    of a plain nest needs."""
    basics = domain.get_basic_set_list()
    return any(basics.get_at(k).dim(isl.dim_type.div) for k in range(basics.n_basic_set()))


def _unit(aff: isl.Aff, n: int) -> bool:
    """Whether ``aff``'s coefficients on the loops are -1, 0 or 1 (``i - k``, ``j - p``, ``i``): a
    row, a column or an element.  A hyperplane such as ``2 i3 - m`` (every other instance of a strided
    loop) cut a random program into pieces whose kernels' ASTs took isl 40 s to build."""
    return all(abs(aff.get_coefficient_val(isl.dim_type.in_, d).to_python()) <= 1 for d in range(n))


def _oriented(aff: isl.Aff, n: int) -> isl.Aff:
    """``aff`` or its negation, whichever has a positive coefficient on its innermost loop: one
    hyperplane, one expression."""
    for d in reversed(range(n)):
        coefficient = aff.get_coefficient_val(isl.dim_type.in_, d)
        if not coefficient.is_zero():
            return aff.neg() if coefficient.is_neg() else aff
    return aff


def _side(aff: isl.Aff, sign: int) -> isl.Set:
    """Where ``aff`` is negative (-1), zero (0) or positive (1)."""
    basic = aff.neg_basic_set() if sign < 0 else aff.zero_basic_set() if sign == 0 else aff.neg().neg_basic_set()
    return isl.Set.from_basic_set(basic)


def _text(aff: isl.Aff) -> str:
    """``aff`` over the statement's loop names, as isl prints it: ``-k + j``."""
    text = aff.to_str()
    return text[text.index("[(") + 2:text.rindex(")]")]

