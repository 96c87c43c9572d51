"""Privatisation of temporaries whose live ranges stay inside iterations of parallel loops.

Live-range reordering (:mod:`polypragma.schedule`) lets a band member be parallel although it carries
anti and output dependences of an array, provided each iteration of the member gets its own copy of
the array: the array is *privatisable* there when every live range (flow dependence) of it starts and
ends in the same iteration (Verdoolaege and Cohen, IMPACT 2016, section 5; PPCG privatises such
arrays per thread).  Here the copy is an expansion of the array: ``sum[p]`` becomes
``sum_private[p][r][q]``, indexed by the values of the parallel members that carry its order
dependences (the last of them innermost, so that neighbouring threads touch neighbouring elements).
The expansion lives on the device only (a region local), is sized by the members' ranges, and is a
plain array of the model: every later stage (mapping, device buffers, memory placement, printing)
takes it as it takes any other.

What is seen after the region stays right: a write whose value may be live out (the last write of an
element, from the dataflow analysis) also copies its value back to the original array, within the
same statement instance (``if (<last write>) sum[p] = sum_private[p][r][q];``), so no other kernel and
no extra launch is needed.

Every decision is checked with isl: an array is privatised only when its flow dependences join
instances with the same copy (:func:`plan`), and the rewritten program is kept only when, under the
new schedule, each read reads the same write as in the original program, the same reads see values
from before the region and the same writes are the last ones (:func:`verify`); the driver then marks
parallel members on the rewritten program's dependences.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import islpy as isl
from pycparser import c_ast, c_parser

from polypragma import dependences as dependence_analysis
from polypragma.dependences import Dependences
from polypragma.isl_helpers import coalesced, descendants, maps_of, sets_of
from polypragma.model import Array, Reference, Scop, Statement, _plain_c, c_expression
from polypragma.union_find import UnionFind


@dataclass(frozen=True)
class Privatised:
    """One privatised array, for --explain."""

    array: str
    copy: str  # the expanded array in the kernels
    members: tuple[str, ...]  # the parallel loops it is expanded along, as schedule members ("r", "q")
    live_out: bool  # whether last writes copy their value back
    source_loops: bool = False  # expanded along loops of the source before scheduling (along_loops)
    web_of: str = ""  # the scalar of the source whose web ``array`` is (split_webs)

    def describe(self) -> str:
        back = ("; the last write of each element also stores it in " + self.array) if self.live_out else \
            "; no value of it is seen after the region"
        if self.web_of:
            back = (f" (a web of {self.web_of}: values that no write of its other webs reaches; a last write of "
                    f"it also stores its value in {self.web_of})")
        if self.source_loops:
            return (f"{self.array}: expanded as {self.copy} (one copy per iteration of the loop(s) "
                    f"{', '.join(self.members)} of the source): each of its values is written and read in the "
                    f"same iteration, so the loops that write it may run apart from those that read it, "
                    f"each in parallel{back}")
        return (f"{self.array}: privatised as {self.copy} (one copy per iteration of the parallel loop(s) "
                f"{', '.join(self.members)}): each of its values is written and read in the same iteration, "
                f"so only its anti and output dependences crossed these loops{back}")


def candidates(scop: Scop, deps: Dependences, copy_backs: frozenset[str] = frozenset()) -> frozenset[str]:
    """Arrays that may get a copy per iteration: every reference modelled exactly (a may-write too: the
    write of a loop run as written, which may run no iteration, leaves the copy as it was, and the
    dataflow analysis says which earlier write that value comes from), no value from before the region
    read (a copy would not hold it).  The reads of ``copy_backs`` (tags: a copy back of a value its own
    statement instance wrote, :func:`split_webs`) read no value from before the region."""
    ranges = deps.live_ranges
    if ranges is None:
        return frozenset()
    live_in = {m.get_tuple_name(isl.dim_type.out) for m in maps_of(ranges.tagged_live_in)
               if ranges.tag_of(m.get_space()) not in copy_backs}
    result = set()
    for array in scop.arrays:
        refs = [r for r in scop.references if r.array == array.name]
        if (array.name in live_in or not any(r.is_write for r in refs)
                or any(not r.exact for r in refs)
                or array.region_level):
            continue
        result.add(array.name)
    return frozenset(result)


@dataclass(frozen=True)
class Plan:
    expansions: dict  # array -> list of (member label, isl.UnionPwAff) in order, outermost first
    # candidates whose order dependences a parallel member carries and that cannot have a copy per iteration,
    # and why
    rejected: dict[str, str]
    # the members are loops of the source, expanded along before scheduling (along_loops), not parallel
    # members of a schedule
    source_loops: bool = False


def _array_tags(deps: Dependences, name: str) -> set[str]:
    return {t for t, a in deps.live_ranges.arrays.items() if a == name}


def plan(scop: Scop, deps: Dependences, schedule: isl.Schedule, privatisable: frozenset[str]) -> Plan:
    """Which arrays of ``privatisable`` need a copy per iteration of which coincident members of
    ``schedule`` (those that carry their order dependences), and which of them cannot have one."""
    ranges = deps.live_ranges
    if ranges is None or not privatisable:
        return Plan({}, {})
    # in the order of the names, not of the set's hashes (which vary from run to run: const_local's
    # two private copies were passed to its kernel in either order)
    order = {a: ranges.untagged(ranges.of_arrays(ranges.tagged_order, {a})) for a in sorted(privatisable)}
    carried: dict[str, list] = {a: [] for a in sorted(privatisable)}
    for node in descendants(schedule.get_root()):
        if node.get_type() != isl.schedule_node_type.band:
            continue
        domain = node.get_domain()
        prefix = node.get_prefix_schedule_union_map()
        partial = node.band_get_partial_schedule()
        outer = prefix
        for k in range(node.band_n_member()):
            member = isl.UnionMap.from_union_pw_aff(partial.get_at(k))
            if node.band_member_get_coincident(k):
                same = outer.apply_range(outer.reverse())
                for a, deps_a in order.items():
                    inside = deps_a.intersect_domain(domain).intersect_range(domain).intersect(same)
                    if inside.is_empty():
                        continue
                    distances = inside.apply_domain(member).apply_range(member).deltas()
                    if not all(d.is_subset(_zero(d)) for d in sets_of(distances)):
                        carried[a].append((domain, partial.get_at(k)))
            outer = outer.flat_range_product(member)

    expansions: dict = {}
    rejected: dict[str, str] = {}
    for a, where in carried.items():
        if not where:
            continue
        accesses = _instances(scop, a)
        flow = ranges.untagged(ranges.of_arrays(ranges.tagged_flow, {a}))
        members = []
        for domain, upa in where:
            if not accesses.is_subset(domain):
                rejected[a] = "it is accessed outside the loops that carry its anti or output dependences"
                break
            members.append((_label(scop, upa), upa))
        if a in rejected:
            continue
        # a copy per iteration multiplies the array by the iterations' number: worth it for a temporary
        # that every iteration reuses (doitgen's sum[p] in each (r, q)), not for an array of which
        # each iteration touches a slice (it would grow by a dimension the loops do not have: a row
        # copy privatised along its column loop took n^3 elements for the n^2 of the array)
        array = next(x for x in scop.arrays if x.name == a)
        writers = {r.statement for r in scop.references if r.array == a and r.is_write}
        index = _index_map(members)
        ends = flow.apply_domain(index).apply_range(index).deltas()
        if not all(d.is_subset(_zero(d)) for d in sets_of(ends)):
            rejected[a] = "a value crosses the parallel loops that carry its anti or output dependences"
        elif _varying_rank(scop, a) + len(members) > max(scop.statement(w).domain.dim(isl.dim_type.set)
                                                         for w in writers):
            rejected[a] = "a copy per iteration would have more dimensions than the loops that write it"
        elif not _last_writes_in_one_copy(scop, ranges, a, index):
            rejected[a] = ("its value after the region may come from an iteration that only may write it, "
                           "whose copy would not hold it")
        else:
            expansions[a] = members
    return Plan(expansions, rejected)


def along_loops(scop: Scop, deps: Dependences, privatisable: frozenset[str],
                copy_backs: frozenset[str] = frozenset()) -> Plan:
    """Which arrays of ``privatisable`` may get a copy per iteration of the loops of the source that
    enclose all their accesses (scalar expansion, before scheduling): atax's ``s``, summed over a row
    and then read by the next loop of the same row, keeps the row loop sequential, since the next row
    overwrites it; with ``s_private[i]`` each row has its own, and the scheduler may run the sums of
    all rows apart from, and before, the loop that reads them, each in parallel.  An array qualifies
    along the outermost enclosing loops over which none of its values crosses an iteration (flow
    dependences of distance zero) and that carry some of its order dependences, under the same
    conditions as :func:`plan` (no more dimensions than the loops that write it, last writes in one
    copy).  The reads of ``copy_backs`` (tags) read their own instance's write, which isl's dataflow
    analysis does not see.  Only scalars: a copy per iteration of an array multiplies it by the iterations' number
    (durbin's row ``z`` became a square).  The caller keeps the expansion only where the schedule it
    allows is more parallel."""
    ranges = deps.live_ranges
    if ranges is None or not privatisable:
        return Plan({}, {}, True)
    bands: list[tuple[isl.UnionSet, isl.UnionPwAff]] = []  # the source's loops, outermost first

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.band:
            partial = node.band_get_partial_schedule()
            bands.extend((node.get_domain(), partial.get_at(k)) for k in range(node.band_n_member()))
        return True

    scop.schedule.get_root().foreach_descendant_top_down(visit)
    expansions: dict = {}
    for a in sorted(privatisable):
        array = next(x for x in scop.arrays if x.name == a)
        if array.rank:
            continue
        accesses = _instances(scop, a)
        flow = ranges.untagged(_without_sinks(ranges.of_arrays(ranges.tagged_flow, {a}), copy_backs))
        order = ranges.untagged(ranges.of_arrays(ranges.tagged_order, {a}))
        writers = {r.statement for r in scop.references if r.array == a and r.is_write}
        depth = max(scop.statement(w).domain.dim(isl.dim_type.set) for w in writers)
        members: list = []
        for domain, upa in bands:
            if not accesses.is_subset(domain):
                continue
            if array.rank + len(members) + 1 > depth:
                break
            index = _index_map(members + [(None, upa)])
            if not all(d.is_subset(_zero(d)) for d in sets_of(flow.apply_domain(index).apply_range(index).deltas())):
                break
            members.append((_label(scop, upa), upa))
        if not members:
            continue
        index = _index_map(members)
        carried = not all(d.is_subset(_zero(d)) for d in sets_of(order.apply_domain(index).apply_range(index).deltas()))
        if carried and _last_writes_in_one_copy(scop, ranges, a, index):
            expansions[a] = members
    return Plan(expansions, {}, True)


def written_scalars(scop: Scop) -> set[str]:
    """The scalars the region writes whose every reference is exact: those :func:`split_webs` and
    :func:`along_loops` may rewrite."""
    refs = scop.references
    return {a.name for a in scop.arrays if a.rank == 0 and a.member is None
            and any(r.array == a.name and r.is_write for r in refs)
            and all(r.exact for r in refs if r.array == a.name)}


def split_webs(scop: Scop, deps: Dependences) -> tuple[Scop, dict[str, tuple[str, ...]], frozenset[str]]:
    """``scop`` with each scalar written in the region split into its webs (the writes and the reads
    they reach, joined by the flow dependences, as a register allocator's live-range webs): every web
    but the one that reads the value from before the region gets a name of its own (``ym1_2``,
    ``ym1_3``; where no web reads it, the one whose value is seen after the region keeps the name), and a
    write of a renamed web whose value may be seen after the region also stores it in the scalar (``if
    (<last write>) ym1 = ym1_3;``), so that each web's accesses stay in its own loops.  deriche's
    ``ym1`` is a row filter's temporary in one nest and a column filter's in another: split, each
    nest's may be expanded along its own loop (:func:`along_loops`).  Returns the model, the new names
    of each scalar split, and the tags of the copies' reads (:func:`verify` leaves them out).  Only
    scalars whose every reference is exact."""
    ranges = deps.live_ranges
    if ranges is None:
        return scop, {}, frozenset()
    refs = scop.references
    scalars = written_scalars(scop)
    webs_of = UnionFind(len(refs))
    find, join = webs_of.find, webs_of.join
    by_node: dict[int, int] = {}
    for k, r in enumerate(refs):  # a compound assignment's read and write are one node: one web
        if r.array in scalars:
            join(by_node.setdefault(id(r.node), k), k)
    for m in maps_of(ranges.tagged_flow):
        source = ranges.tag_of(m.get_space())
        if ranges.arrays.get(source) in scalars:
            sink = m.get_space().range().unwrap().range().get_tuple_name(isl.dim_type.set)
            join(int(source[3:]), int(sink[3:]))
    live_in = {int(ranges.tag_of(m.get_space())[3:]) for m in maps_of(ranges.tagged_live_in)}
    arrays_by_name = {a.name: a for a in scop.arrays}
    renamed: dict[int, str] = {}  # web (its root) -> new name
    taken = set(scop.reserved_names) | {a.name for a in scop.arrays} | set(scop.parameters)
    new_names: dict[str, list[str]] = {}
    for name in sorted(scalars):
        webs: dict[int, list[int]] = {}
        for k, r in enumerate(refs):
            if r.array == name:
                webs.setdefault(find(k), []).append(k)
        if len(webs) < 2:
            continue
        keep = {find(k) for k in live_in if refs[k].array == name}
        if not keep:
            # no web reads the value from before the region: the one whose writes the code after the
            # region may see keeps the name, where there is one, and needs no copy back (ludcmp's last
            # ``w``, whose statement stays a reduction: ``w -= A[i][j] * x[j]``)
            keep = {find(k) for k, r in enumerate(refs) if r.array == name and r.is_write
                    and not ranges.live_out.intersect(isl.UnionMap.from_map(r.relation)).is_empty()}
            keep = keep if len(keep) == 1 and _seen_after(arrays_by_name[name]) else set()
        for web in sorted(webs, key=lambda w: webs[w][0]):
            if web in keep:
                continue
            n = 2
            while f"{name}_{n}" in taken:
                n += 1
            renamed[web] = f"{name}_{n}"
            taken.add(renamed[web])
            new_names.setdefault(name, []).append(renamed[web])
    if not renamed:
        return scop, {}, frozenset()
    bodies, memos, relations = _copies(scop)
    arrays = {a.name: a for a in scop.arrays}
    added: dict[str, Array] = {}
    new_refs, copies = [], []
    write_backs: dict[str, list[c_ast.Node]] = {}
    copies_back: list[tuple[str, isl.Map, isl.Map, bool]] = []
    for k, r in enumerate(refs):
        node = memos[r.statement].get(id(r.node), r.node)
        name = renamed.get(find(k)) if r.array in scalars else None
        if name is None:
            new_refs.append(replace(r, node=node))
            continue
        node.name = name  # a scalar's reference is its ID
        relation = r.relation.set_tuple_name(isl.dim_type.out, name)
        rel = relations[r.statement]
        for kind in (("must_writes", "may_writes") if r.is_write else ("reads",)):
            if kind != "must_writes" or r.must:
                rel[kind] = _rename(rel[kind], r.relation, relation)
        original = arrays[r.array]
        added.setdefault(name, replace(original, name=name, c_name=name, kind="local", region_level=False,
                                       footprint=original.footprint.set_tuple_name(name)))
        new_refs.append(replace(r, array=name, relation=relation, node=node))
        last = ranges.live_out.intersect(isl.UnionMap.from_map(r.relation)) if r.is_write else None
        if last is not None and not last.is_empty() and _seen_after(original):
            _copy_back(scop.statement(r.statement), last, c_ast.ID(r.array), c_ast.ID(name), relation, r.must,
                       write_backs, copies_back, copies)
    statements = _rewritten(scop, bodies, relations, write_backs, copies_back)
    tags = frozenset(f"ref{len(new_refs) + k}" for k, r in enumerate(copies) if not r.is_write)
    return replace(scop, statements=tuple(statements), arrays=scop.arrays + tuple(added[n] for n in sorted(added)),
                   references=tuple(new_refs + copies)), {k: tuple(v) for k, v in new_names.items()}, tags


def _without_sinks(tagged: isl.UnionMap, tags: frozenset[str]) -> isl.UnionMap:
    """The part of a tagged relation (``{ [W -> ref] -> [R -> ref'] }``) whose sink reference is none of
    ``tags``."""
    kept = isl.UnionMap.empty(tagged.get_space())
    for m in maps_of(tagged):
        if m.get_space().range().unwrap().range().get_tuple_name(isl.dim_type.set) not in tags:
            kept = kept.union(isl.UnionMap.from_map(m))
    return kept


def _last_writes_in_one_copy(scop: Scop, ranges, array: str, index: isl.UnionMap) -> bool:
    """Whether each may-write of ``array`` whose value may be seen after the region shares its copy with a
    must-write of the same element whose value may be seen too (the may-write then follows it, or it
    would not be seen).  The copy-backs of an element then run in one copy, in order, and copy what that
    copy holds; a may-write without one (``if (A[i] > 0) t = A[i];`` alone in a parallel loop) would copy
    back, in every iteration at once, a copy that may never have been written."""
    seen = _of_arrays(ranges.live_out, {array})
    must = seen.intersect(scop.must_writes)
    may = seen.subtract(must)
    return may.is_empty() or may.apply_domain(index).is_subset(must.apply_domain(index))


def _of_arrays(accesses: isl.UnionMap, names) -> isl.UnionMap:
    """The part of ``accesses`` (``{ S[i] -> A[a] }``) to the arrays ``names``."""
    kept = isl.UnionMap.empty(accesses.get_space())
    for m in maps_of(accesses):
        if m.get_tuple_name(isl.dim_type.out) in names:
            kept = kept.union(isl.UnionMap.from_map(m))
    return kept


def _zero(s: isl.Set) -> isl.Set:
    zero = isl.Set.universe(s.get_space())
    for d in range(s.dim(isl.dim_type.set)):
        zero = zero.fix_val(isl.dim_type.set, d, isl.Val.zero(s.get_ctx()))
    return zero


def _varying_rank(scop: Scop, array: str) -> int:
    """The dimensions of ``array`` whose index its accesses vary: a scalar behind a pointer (``*t``, the
    element ``t[0]``) or a struct's member has none, as a scalar has (the copy of ``*t`` per iteration of
    two loops is a square, as ``t``'s would be)."""
    elements = None
    for r in scop.references:
        if r.array == array:
            touched = r.relation.range()
            elements = touched if elements is None else elements.union(touched)
    if elements is None:
        return 0
    rank = elements.dim(isl.dim_type.set)
    return sum(1 for d in range(rank)
               if not elements.project_out(isl.dim_type.set, d + 1, rank - d - 1).project_out(
                   isl.dim_type.set, 0, d).is_singleton())


def _instances(scop: Scop, array: str) -> isl.UnionSet:
    result = isl.UnionSet.empty(scop.context.get_space())
    for r in scop.references:
        if r.array == array:
            result = result.union(isl.UnionSet.from_set(r.relation.domain()))
    return result


def _index_map(members) -> isl.UnionMap:
    index = None
    for _, upa in members:
        m = isl.UnionMap.from_union_pw_aff(upa)
        index = m if index is None else index.flat_range_product(m)
    return index


def _label(scop: Scop, upa: isl.UnionPwAff) -> str:
    """The member as its first statement writes it ("r", "i + j")."""
    for m in maps_of(isl.UnionMap.from_union_pw_aff(upa)):
        statement = scop.statement(m.get_tuple_name(isl.dim_type.in_))
        return _c_of(m.as_pw_multi_aff().get_at(0), statement)
    return "?"


def _c_of(pa: isl.PwAff, statement: Statement) -> str:
    """``pa`` (on the statement's space) as C over its iterators and the parameters."""
    n_param = pa.dim(isl.dim_type.param)
    n_in = pa.dim(isl.dim_type.in_)
    moved = pa.move_dims(isl.dim_type.param, n_param, isl.dim_type.in_, 0, n_in)
    for k, name in enumerate(statement.iterators[:n_in]):
        moved = moved.set_dim_id(isl.dim_type.param, n_param + k, isl.Id(name, context=pa.get_ctx()))
    return c_expression(moved)


def _c_condition(instances: isl.Set, statement: Statement) -> str:
    n_param = instances.dim(isl.dim_type.param)
    n_in = instances.dim(isl.dim_type.set)
    moved = instances.move_dims(isl.dim_type.param, n_param, isl.dim_type.set, 0, n_in)
    for k, name in enumerate(statement.iterators[:n_in]):
        moved = moved.set_dim_name(isl.dim_type.param, n_param + k, name)
    context = statement.domain.move_dims(isl.dim_type.param, n_param, isl.dim_type.set, 0, n_in)
    for k, name in enumerate(statement.iterators[:n_in]):
        context = context.set_dim_name(isl.dim_type.param, n_param + k, name)
    moved = moved.params().gist(context.params())
    build = isl.AstBuild.from_context(isl.Set.universe(moved.get_space()))
    return _plain_c(build.expr_from_set(moved))


_PARSER = c_parser.CParser()


def _c_node(text: str) -> c_ast.Node:
    unit = _PARSER.parse(f"void f(void) {{ x = ({text}); }}")
    return unit.ext[0].body.block_items[0].rvalue


def _base(node: c_ast.ArrayRef) -> c_ast.ID:
    while isinstance(node, c_ast.ArrayRef):
        node = node.name
    return node


def _replace_child(root: c_ast.Node, old: c_ast.Node, new: c_ast.Node) -> None:
    """Put ``new`` where ``old`` is in the tree of ``root``."""
    for name, child in root.children():
        if child is old:
            if "[" in name:
                attribute, index = name[:-1].split("[")
                getattr(root, attribute)[int(index)] = new
            else:
                setattr(root, name, new)
            return
        _replace_child(child, old, new)


def _fresh(scop: Scop, stem: str) -> str:
    taken = set(scop.reserved_names) | {a.name for a in scop.arrays} | set(scop.parameters)
    name, k = f"{stem}_private", 1
    while name in taken:
        k += 1
        name = f"{stem}_private{k}"
    return name


def apply(scop: Scop, deps: Dependences, chosen: Plan) -> tuple[Scop, tuple[Privatised, ...], frozenset[str]]:
    """``scop`` with each array of ``chosen`` replaced by its expansion, and the last writes copying
    back to the original array; the privatised arrays; the reference tags (``ref<k>``) of the copies'
    reads of the private copy, which read the statement instance's own write."""
    if not chosen.expansions:
        return scop, (), frozenset()
    ranges = deps.live_ranges
    statements = {s.name: s for s in scop.statements}
    bodies, memos, relations = _copies(scop)
    references: list[Reference] = []
    arrays = list(scop.arrays)
    done: list[Privatised] = []
    write_backs: dict[str, list[c_ast.Node]] = {}
    new_refs = {id(r): r for r in scop.references}
    originals: dict[int, c_ast.Node] = {}
    substituted: dict[int, c_ast.Node] = {}  # a scalar's ID (copied body) -> the subscripted copy in its place
    copies_back: list[tuple[str, isl.Map, isl.Map, bool]] = []  # (statement, write of A, read of the copy, must)
    for name, members in chosen.expansions.items():
        array = next(a for a in scop.arrays if a.name == name)
        private = _fresh(scop, name)
        index = _index_map(members)
        accesses = _instances(scop, name)
        span = isl.Set.from_union_set(index.intersect_domain(accesses).range())
        lows = [span.dim_min(d) for d in range(len(members))]
        # defined for every parameter value, 0 where no instance accesses the array (the buffer's size
        # is computed from them: a negative value made a huge size_t, refused by the OpenCL driver)
        nothing = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(span.get_space().params()))
        extents = [span.dim_max(d).sub(lows[d]).add_constant_val(isl.Val.one(span.get_ctx())).union_max(nothing)
                   for d in range(len(members))]
        footprint = None
        live_out = ranges.live_out
        any_back = False
        for ref in scop.references:
            if ref.array != name:
                continue
            statement = statements[ref.statement]
            on = index.intersect_domain(isl.UnionSet.from_set(statement.domain))
            shifted = None
            subscripts = []
            per = isl.Map.from_union_map(on)  # { S[i] -> [e] }
            pma = per.as_pw_multi_aff()
            for d in range(len(members)):
                pa = pma.get_at(d).sub(lows[d].add_dims(isl.dim_type.in_, pma.dim(isl.dim_type.in_)).set_tuple_id(
                    isl.dim_type.in_, statement.domain.get_tuple_id()))
                # (on the statement's instances: the lowest values of skewed members over strided loops are
                # piecewise, with existential variables that made the rewritten program's dataflow analysis
                # take 26 s of differential program 7476's verification; the members less a constant here)
                pa = coalesced(pa.gist(statement.domain))
                subscripts.append(_c_of(pa, statement))
                piece = isl.Map.from_pw_aff(pa)
                shifted = piece if shifted is None else shifted.flat_range_product(piece)
            relation = ref.relation.flat_range_product(shifted).set_tuple_name(isl.dim_type.out, private)
            footprint = relation.range() if footprint is None else footprint.union(relation.range())
            node = memos[statement.name][id(ref.node)]
            if id(node) not in originals:  # a compound assignment's node is a read and a write reference
                originals[id(node)] = copy.deepcopy(node)  # A[a]: for the copy back
                if isinstance(node, c_ast.ArrayRef):
                    expanded = c_ast.ArrayRef(node.name, node.subscript)
                    for text in subscripts[:-1]:
                        expanded = c_ast.ArrayRef(expanded, _c_node(text))
                    node.name, node.subscript = expanded, _c_node(subscripts[-1])
                    _base(node).name = private
                else:  # a scalar: the ID becomes a subscripted copy, in its parent
                    expanded = c_ast.ID(private)
                    for text in subscripts:
                        expanded = c_ast.ArrayRef(expanded, _c_node(text))
                    _replace_child(bodies[statement.name], node, expanded)
                    substituted[id(node)] = expanded
            original_subscripts = originals[id(node)]
            node = substituted.get(id(node), node)
            new_refs[id(ref)] = replace(ref, array=private, relation=relation)
            rel = relations[statement.name]
            kind = "may_writes" if ref.is_write else "reads"
            rel[kind] = _rename(rel[kind], ref.relation, relation)
            if ref.is_write and ref.must:
                rel["must_writes"] = _rename(rel["must_writes"], ref.relation, relation)
            if ref.is_write:
                last = live_out.intersect(isl.UnionMap.from_map(ref.relation))
                if not last.is_empty() and _seen_after(array):
                    any_back = True
                    _copy_back(statement, last, copy.deepcopy(original_subscripts), copy.deepcopy(node),
                               relation, ref.must, write_backs, copies_back, references)
        arrays.append(Array(private, array.element_type, array.rank + len(members),
                            tuple(array.extents) + tuple(extents), footprint, "local",
                            resolved_type=array.resolved_type, c_name=private))
        if not any_back:
            arrays = [a for a in arrays if a.name != name]
        done.append(Privatised(name, private, tuple(label for label, _ in members), any_back, chosen.source_loops))
    new_statements = _rewritten(scop, bodies, relations, write_backs, copies_back)

    def copied(r: Reference) -> c_ast.Node:
        node = memos[r.statement].get(id(r.node), r.node)
        return substituted.get(id(node), node)

    refs = [replace(new_refs[id(r)], node=copied(r)) for r in scop.references]
    copy_backs = frozenset(f"ref{len(refs) + k}" for k, r in enumerate(references) if not r.is_write)
    refs += references
    return replace(scop, statements=tuple(new_statements), arrays=tuple(arrays), references=tuple(refs)), \
        tuple(done), copy_backs


def _seen_after(array: Array) -> bool:
    """Whether a value of ``array`` may be seen after the region: a local of the region, not at its top
    level, has none."""
    return not (array.kind == "local" and not array.region_level)


def _copy_back(statement: Statement, last: isl.UnionMap, target: c_ast.Node, source: c_ast.Node,
               relation: isl.Map, must: bool, write_backs: dict[str, list[c_ast.Node]],
               copies_back: list[tuple[str, isl.Map, isl.Map, bool]], references: list[Reference]) -> None:
    """The copy back of a write whose value may be seen after the region (``last``: those of its
    instances, ``{ S[i] -> A[a] }``) from the copy ``source`` (read through ``relation``, the write's
    access of the copy) to the original ``target``: ``if (<last>) target = source;`` appended to the
    statement's body in ``write_backs``, its relations in ``copies_back`` (added to the statement's after
    every rename, which would take them out; a may-write after a may-write, as the write itself: which of
    the last writes wrote the value the copy holds is known at run time only, as in the original
    program) and its write and read in ``references``."""
    where = isl.Set.from_union_set(last.domain())
    write_backs.setdefault(statement.name, []).append(
        c_ast.If(_c_node(_c_condition(where, statement)), c_ast.Assignment("=", target, source), None))
    back_write, back_read = isl.Map.from_union_map(last), relation.intersect_domain(where)
    copies_back.append((statement.name, back_write, back_read, must))
    array, copy_name = back_write.get_tuple_name(isl.dim_type.out), relation.get_tuple_name(isl.dim_type.out)
    references.append(Reference(statement.name, array, target, True, must, True, back_write))
    references.append(Reference(statement.name, copy_name, source, False, True, True, back_read))


def _copies(scop: Scop) -> tuple[dict[str, c_ast.Node], dict[str, dict], dict[str, dict[str, isl.UnionMap]]]:
    """A copy of each statement's body to rewrite, the memo of each copy (an original node's id -> its
    copy) and each statement's access relations, by statement name."""
    bodies, memos = {}, {}
    for s in scop.statements:
        memo: dict = {}
        bodies[s.name] = copy.deepcopy(s.body, memo)
        memos[s.name] = memo
    relations = {s.name: {"reads": s.reads, "must_writes": s.must_writes, "may_writes": s.may_writes}
                 for s in scop.statements}
    return bodies, memos, relations


def _rewritten(scop: Scop, bodies: dict, relations: dict, write_backs: dict[str, list[c_ast.Node]],
               copies_back: list[tuple[str, isl.Map, isl.Map, bool]]) -> tuple[Statement, ...]:
    """The statements of ``scop`` with their rewritten bodies and relations, each copy back (statement,
    write of the original, read of the copy, whether a must-write) added to its statement's relations
    after every rename (a later reference's rename would take it out) and appended to its body."""
    for statement, back_write, back_read, must in copies_back:
        rel = relations[statement]
        if must:
            rel["must_writes"] = rel["must_writes"].union(isl.UnionMap.from_map(back_write))
        rel["may_writes"] = rel["may_writes"].union(isl.UnionMap.from_map(back_write))
        rel["reads"] = rel["reads"].union(isl.UnionMap.from_map(back_read))
    out = []
    for s in scop.statements:
        body = bodies[s.name]
        if s.name in write_backs:
            items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
            body = c_ast.Compound(items + write_backs[s.name])
        out.append(replace(s, body=body, **relations[s.name]))
    return tuple(out)


def _rename(union: isl.UnionMap, old: isl.Map, new: isl.Map) -> isl.UnionMap:
    """``union`` with the accesses of ``old`` replaced by ``new`` (same instances)."""
    return union.subtract(isl.UnionMap.from_map(old)).union(isl.UnionMap.from_map(new))


def verify(original: Scop, rewritten: Scop, schedule: isl.Schedule, copy_backs: frozenset[str] = frozenset(),
           original_deps: Dependences | None = None) -> str | None:
    """None when ``rewritten`` under ``schedule`` computes what ``original`` does: the same flow
    dependences (each read reads the same write), the same reads of values from before the region and
    the same last writes of the original arrays, for the parameters of ``original``'s context (for which
    the scheduler made ``schedule``); else what differs.  The reads of ``copy_backs`` (the
    copy back of a last write, which reads what its own statement instance wrote, by construction) are
    left out: isl's dataflow analysis sees no source in the same instance.  ``original_deps``: the
    dependences of ``original``, whose live ranges are those of its own schedule (computed again
    without them)."""
    before = original_deps.live_ranges if original_deps is not None else None
    before = before if before is not None else dependence_analysis.live_ranges(original)
    after = dependence_analysis.live_ranges(rewritten, schedule)
    if before is None or after is None:
        return "the dataflow analysis gave up"
    flow_before = before.untagged(before.tagged_flow)
    def without_copy_backs(tagged: isl.UnionMap, sink_side: bool) -> isl.UnionMap:
        kept = isl.UnionMap.empty(tagged.get_space())
        for m in maps_of(tagged):
            space = m.get_space().range() if sink_side else m.get_space()
            tag = space.unwrap().range().get_tuple_name(isl.dim_type.set) if sink_side else after.tag_of(space)
            if tag not in copy_backs:
                kept = kept.union(isl.UnionMap.from_map(m))
        return kept

    # (the schedule is valid for the parameters of the region's context only: n >= 0 for a VLA's size)
    def within(relation: isl.UnionMap) -> isl.UnionMap:
        return relation.intersect_params(original.context)

    flow_after = after.untagged(without_copy_backs(after.tagged_flow, True))
    if not within(flow_before).is_equal(within(flow_after)):
        return "a read would read another write"
    if not within(before.live_in).is_equal(within(without_copy_backs(after.tagged_live_in, False).domain_factor_domain())):
        return "a read would see another value from before the region"
    # the last writes of every array whose value is seen after the region (a local of the region, not
    # at its top level, has none)
    dead = {a.name for a in original.arrays if not _seen_after(a)}
    names = {s.get_tuple_name() for s in sets_of(before.live_out.range())} - dead

    if not within(_of_arrays(after.live_out, names)).is_equal(within(_of_arrays(before.live_out, names))):
        return "another write would be the last one"
    return None
