"""Distribution of a parallel band over the parallel nests it encloses (polypragma/gpu/distribute.py):
the schedule trees it rewrites and those it keeps, and a privatised temporary that distribution
shares between kernels kept in global memory (its values cross from one kernel to the next).  The
corpus kernels doitgen.c, temporaries.c and vla_private.c run the distributed programs on every
target against the original."""

from __future__ import annotations

import islpy as isl

from harness import KERNELS, polypragma

from polypragma.gpu.distribute import distributed

DOMAIN = "[n] -> { S0[i, j] : 0 <= i < n and 0 <= j < n; S1[i, j] : 0 <= i < n and 0 <= j < n }"


def tree(outer: str, coincident: str, first: str, second: str) -> isl.Schedule:
    """band ``outer`` above a sequence of S0 (child ``first``) and S1 (child ``second``)."""
    return isl.Schedule(f'{{ domain: "{DOMAIN}", child: {{ schedule: "{outer}", coincident: {coincident}, '
                        f'child: {{ sequence: [ {{ filter: "{{ S0[i, j] }}", child: {first} }}, '
                        f'{{ filter: "{{ S1[i, j] }}", child: {second} }} ] }} }} }}')


NEST0 = '{ schedule: "[{ S0[i, j] -> [(j)] }]", coincident: [ 1 ], permutable: 1 }'
NEST1 = '{ schedule: "[{ S1[i, j] -> [(j)] }]", coincident: [ 1 ], permutable: 1 }'
OUTER = "[{ S0[i, j] -> [(i)]; S1[i, j] -> [(i)] }]"


def bands(schedule: isl.Schedule) -> list[tuple[str, list[bool], bool]]:
    out = []

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.band:
            out.append((node.band_get_partial_schedule().to_str(),
                        [node.band_member_get_coincident(k) for k in range(node.band_n_member())],
                        node.band_get_permutable()))
        return True

    schedule.get_root().foreach_descendant_top_down(visit)
    return out


def test_a_parallel_band_over_parallel_nests_is_distributed():
    schedule = distributed(tree(OUTER, "[ 1 ]", NEST0, NEST1))
    root = schedule.get_root().child(0)
    assert root.get_type() == isl.schedule_node_type.sequence  # the outer band is gone
    found = bands(schedule)
    assert [(c, p) for _, c, p in found] == [([True, True], True), ([True, True], True)]
    first = isl.MultiUnionPwAff(found[0][0], context=schedule.get_ctx())
    assert first.plain_is_equal(isl.MultiUnionPwAff("[{ S0[i, j] -> [(i)] }, { S0[i, j] -> [(j)] }]",
                                                    context=schedule.get_ctx()))
    # the order of the instances is the outer band's within each nest, nests in sequence
    expected = isl.UnionMap("[n] -> { S0[i, j] -> [0, i, j]; S1[i, j] -> [1, i, j] }", context=schedule.get_ctx())
    domain = schedule.get_domain()
    assert schedule.get_map().intersect_domain(domain).is_equal(expected.intersect_domain(domain))


def test_bands_that_gain_nothing_are_kept():
    sequential = '{ schedule: "[{ S1[i, j] -> [(j)] }]", coincident: [ 0 ] }'
    kept = [
        tree(OUTER, "[ 0 ]", NEST0, NEST1),  # the outer loop carries a dependence: no fission
        tree(OUTER, "[ 1 ]", NEST0, sequential),  # a nest without a parallel loop would gain nothing
    ]
    for schedule in kept:
        assert distributed(schedule).plain_is_equal(schedule)
    # a statement right under the sequence (gemm's C *= beta beside its k loop): the fused kernel keeps C
    # in registers across both
    with_leaf = isl.Schedule(f'{{ domain: "{DOMAIN}", child: {{ schedule: "{OUTER}", coincident: [ 1 ], '
                             f'child: {{ sequence: [ {{ filter: "{{ S0[i, j] }}" }}, '
                             f'{{ filter: "{{ S1[i, j] }}", child: {NEST1} }} ] }} }} }}')
    assert distributed(with_leaf).plain_is_equal(with_leaf)
    # three parallel members already fill x, y and z
    three = isl.Schedule(f'{{ domain: "{DOMAIN}", child: {{ schedule: "[{{ S0[i, j] -> [(i)]; S1[i, j] -> [(i)] }}, '
                         f'{{ S0[i, j] -> [(j)]; S1[i, j] -> [(j)] }}, {{ S0[i, j] -> [(0)]; S1[i, j] -> [(0)] }}]", '
                         f'coincident: [ 1, 1, 1 ], child: {{ sequence: [ {{ filter: "{{ S0[i, j] }}", child: {NEST0} }}, '
                         f'{{ filter: "{{ S1[i, j] }}", child: {NEST1} }} ] }} }} }}')
    assert distributed(three).plain_is_equal(three)


def test_a_temporary_shared_by_distributed_kernels_stays_in_global_memory(tmp_path):
    # temporaries.c's first region: t[j] written by one nest of each i and read by the next, privatised
    # per i; distributed, one kernel writes t_private and the next reads it, so no thread keeps its
    # values in registers without storing them
    status, messages = polypragma(KERNELS / "temporaries.c", tmp_path, ["--target", "cuda", "--explain"])
    assert status == 0, messages
    first = messages[:messages.index("temporaries.c:", messages.index("kernel 0") + 1)]
    assert "the parallel loop(s) around the nests of line(s) " in first and "distributed over them" in first
    assert first.count("the outer 2 parallel loop(s) of its band are tiled") == 2
    assert "t_private in global memory" in first or "t_private in shared memory" in first
    assert "t_private in registers" not in first


FISSION_DOMAIN = ("[n] -> { R[i] : 0 <= i < n; S[i, j] : 0 <= i < n and 0 <= j < n; T[i] : 0 <= i < n; "
                  "U[i] : 0 <= i < n }")
# band i over R (a reset), S (a sum over j), T (a use of the sum) and U (unrelated), as one band (i, j)
FISSION_TREE = ('{ domain: "' + FISSION_DOMAIN + '", child: { schedule: "[n] -> [{ R[i] -> [(i)]; S[i, j] -> [(i)]; '
                'T[i] -> [(i)]; U[i] -> [(i)] }, { R[i] -> [(0)]; S[i, j] -> [(j)]; T[i] -> [(n)]; U[i] -> [(n)] }]", '
                'coincident: [ 1, 0 ] } }')


def test_fission_groups_statements_in_the_order_of_their_dependences():
    """R -> S -> T at the same i: three groups in that order, U (no dependence) with the first group of
    statements that are not the core's; a dependence from T back to R at the same i is a cycle that keeps
    R, S and T together (the mapping then keeps the band whole: its group of sums does not spread), and
    so does one from T to R of the next i, since each group runs for every i before the next; one group is
    no split."""
    from polypragma.gpu.distribute import fission

    schedule = isl.Schedule(FISSION_TREE)
    ctx = schedule.get_ctx()
    band = schedule.get_root().child(0)
    chain = "[n] -> { R[i] -> S[i, 0]; S[i, j] -> S[i, j + 1]; S[i, n - 1] -> T[i] }"
    sequence, groups = fission(band, isl.UnionMap(chain, context=ctx), {"S"})
    assert groups == (("R", "U"), ("S",), ("T",))
    assert sequence.get_type() == isl.schedule_node_type.sequence and sequence.n_children() == 3
    # each group's instances before the next group's, the band's order within each
    order = sequence.get_schedule().get_map()
    assert order.intersect_domain(isl.UnionSet("[n] -> { T[i] }", context=ctx)).lex_gt_union_map(
        order.intersect_domain(isl.UnionSet("[n] -> { S[i, j] }", context=ctx))).is_equal(
        isl.UnionMap("[n] -> { T[i] -> S[i', j] : 0 <= i, i' < n and 0 <= j < n }", context=ctx))
    cycle = isl.UnionMap(chain[:-1] + "; T[i] -> R[i] }", context=ctx)
    assert fission(band, cycle, {"S"})[1] == (("U",), ("R", "S", "T"))
    # (the groups run one after another over every i: T of one i before R of the next is a cycle too)
    across = isl.UnionMap(chain[:-1] + "; T[i] -> R[i + 1] }", context=ctx)
    assert fission(band, across, {"S"})[1] == (("U",), ("R", "S", "T"))
    assert fission(band, isl.UnionMap(chain, context=ctx), {"R", "S", "T", "U"}) is None
