"""A parallel band extended with the band of the one nest below it (polypragma/gpu/extend.py): the
schedule trees it rewrites, which order their instances as before, and those it keeps.  The corpus
kernel local_accumulators.c runs the extended programs on every target against the original; here,
what the kernels keep in shared memory and registers."""

from __future__ import annotations

import islpy as isl
import pytest

from harness import KERNELS, polypragma

from polypragma.gpu.extend import extended

DOMAIN = ("[n, m] -> { S0[i, j] : 0 <= i < n and 0 <= j < n; S1[i, j, k] : 0 <= i < n and 0 <= j < n and "
          "0 <= k < m; S2[i, j] : 0 <= i < n and 0 <= j < n }")
OUTER = "[{ S0[i, j] -> [(i)]; S1[i, j, k] -> [(i)]; S2[i, j] -> [(i)] }, " \
        "{ S0[i, j] -> [(j)]; S1[i, j, k] -> [(j)]; S2[i, j] -> [(j)] }]"
NEST = '{ schedule: "[{ S1[i, j, k] -> [(k)] }]", coincident: [ 0 ] }'


def tree(outer: str = OUTER, coincident: str = "[ 1, 1 ]", nest: str = NEST, domain: str = DOMAIN,
         last: str = "") -> isl.Schedule:
    """band ``outer`` above the sequence S0 (a reset), S1 (the nest ``nest``), S2 (a store)."""
    after = last or '{ filter: "{ S2[i, j] }" }'
    return isl.Schedule(f'{{ domain: "{domain}", child: {{ schedule: "{outer}", coincident: {coincident}, '
                        f'child: {{ sequence: [ {{ filter: "{{ S0[i, j] }}" }}, '
                        f'{{ filter: "{{ S1[i, j, k] }}", child: {nest} }}, {after} ] }} }} }}')


def order(schedule: isl.Schedule) -> isl.UnionMap:
    """{ x -> y }: instance x runs before instance y."""
    times = schedule.get_map().intersect_domain(schedule.get_domain())
    return times.lex_lt_union_map(times)


def band_at_top(schedule: isl.Schedule) -> isl.ScheduleNode:
    return schedule.get_root().child(0)


def test_the_nest_of_a_sum_joins_the_parallel_band_and_keeps_the_order():
    before = tree()
    after = extended(before)
    band = band_at_top(after)
    assert band.get_type() == isl.schedule_node_type.band and band.band_n_member() == 3
    assert [band.band_member_get_coincident(k) for k in range(3)] == [True, True, False]
    assert band.band_get_permutable()
    # k' is k for the sum, the first k for the reset and the last for the store; the sequence below
    # orders the statements that share a value
    third = isl.UnionMap.from_union_pw_aff(band.band_get_partial_schedule().get_at(2))
    expected = isl.UnionMap("[n, m] -> { S0[i, j] -> [0]; S1[i, j, k] -> [k]; S2[i, j] -> [m - 1] : m > 0; "
                            "S2[i, j] -> [0] : m <= 0 }", context=after.get_ctx())
    domain = after.get_domain()
    assert third.intersect_domain(domain).is_equal(expected.intersect_domain(domain))
    assert band.child(0).get_type() == isl.schedule_node_type.sequence
    assert order(after).is_equal(order(before))


def test_a_nest_of_two_members_joins_when_permutable():
    domain = ("[n, m] -> { S0[i, j] : 0 <= i < n and 0 <= j < n; S1[i, j, k, l] : 0 <= i < n and 0 <= j < n and "
              "0 <= k < m and k <= l < m; S2[i, j] : 0 <= i < n and 0 <= j < n }")
    outer = OUTER.replace("S1[i, j, k]", "S1[i, j, k, l]")
    nest = '{ schedule: "[{ S1[i, j, k, l] -> [(k)] }, { S1[i, j, k, l] -> [(l)] }]", coincident: [ 0, 0 ]'
    before = isl.Schedule(f'{{ domain: "{domain}", child: {{ schedule: "{outer}", coincident: [ 1, 1 ], '
                          f'child: {{ sequence: [ {{ filter: "{{ S0[i, j] }}" }}, '
                          f'{{ filter: "{{ S1[i, j, k, l] }}", child: {nest}, permutable: 1 }} }}, '
                          f'{{ filter: "{{ S2[i, j] }}" }} ] }} }} }}')
    after = extended(before)
    assert band_at_top(after).band_n_member() == 4 and order(after).is_equal(order(before))
    # not permutable: its tiles could not run in any order, so it stays
    fixed = isl.Schedule(before.to_str().replace("permutable: 1", "permutable: 0"))
    assert extended(fixed).plain_is_equal(fixed)


def test_bands_that_cannot_join_are_kept():
    # the outer band carries a dependence: the statements of different i, j would interleave otherwise
    sequential = tree(coincident="[ 1, 0 ]")
    assert extended(sequential).plain_is_equal(sequential)
    # two nests below the sequence: one k' cannot order both (distribution handles parallel ones)
    two = tree(last='{ filter: "{ S2[i, j] }", child: { schedule: "[{ S2[i, j] -> [(0)] }]" } }')
    assert extended(two).plain_is_equal(two)


def test_a_product_with_a_local_sum_tiles_its_k_for_shared_memory(tmp_path):
    status, messages = polypragma(KERNELS / "local_accumulators.c", tmp_path, ["--target", "cuda", "--explain"])
    assert status == 0, messages
    # (--explain says what joined: the product's nest and the row sum's)
    assert ("the loop(s) of the nest at line(s) 24 joined the band of the parallel loops around it, so that its "
            "kernel tiles them for shared memory and registers: the statement(s) at line(s) 22 run at its first "
            "step, those at line(s) 25 at its last") in messages
    assert "the loop(s) of the nest at line(s) 30 joined" in messages
    product = messages[messages.index("(statements at line(s) 22, 24, 25)"):]
    assert "further loop(s) of its permutable band tiled by [" in product
    for array, where in (("A", "shared memory: reuse within a tile"), ("B", "shared memory: reuse within a tile"),
                         ("sum_private", "registers:")):
        line = next(l for l in product.splitlines() if l.startswith(f"    {array} ("))
        assert where in line, line
    # the row sum's start and store are kernels of their own, so that its loop k spreads over threads
    # along the rows of A (k on threads.x: coalesced)
    assert "the statements of line(s) 28; 30; 31 split into kernels" in messages
    rows = messages[messages.index("(statements at line(s) 30)"):messages.index("(statements at line(s) 31)")]
    assert "A (1 reference(s), read, line(s) 30): global memory: no reuse within a tile and the global access " \
           "is coalesced" in rows


# two nests of k below the parallel band (two sums of one element, as isl schedules them side by side)
TWO_NESTS_DOMAIN = ("[n, m] -> { S0[i, j] : 0 <= i < n and 0 <= j < n; S1[i, j, k] : 0 <= i < n and 0 <= j < n and "
                    "0 <= k < m; S3[i, j, k] : 0 <= i < n and 0 <= j < n and 0 <= k < m; S2[i, j] : 0 <= i < n and "
                    "0 <= j < n; S4[i, j] : 0 <= i < n and 0 <= j < n }")
# each sum's steps in order, the reset before both, the store after both
SUMS = ("[n, m] -> { S0[i, j] -> S1[i, j, 0]; S0[i, j] -> S3[i, j, 0]; S1[i, j, k] -> S1[i, j, k + 1]; "
        "S3[i, j, k] -> S3[i, j, k + 1]; S1[i, j, m - 1] -> S2[i, j]; S3[i, j, m - 1] -> S2[i, j] }")


def two_nests(container: str = "sequence", between: bool = False) -> isl.Schedule:
    """band i, j above: the reset S0, the nests of S1 and S3 (in a sequence or a set, S4 between them
    with ``between``), the store S2; S4 runs after S2 otherwise."""
    names = ("S0[i, j]", "S1[i, j, k]", "S3[i, j, k]", "S2[i, j]", "S4[i, j]")
    outer = "[" + ", ".join("{ " + "; ".join(f"{s} -> [({d})]" for s in names) + " }" for d in "ij") + "]"
    first, second = (f'{{ filter: "{{ {s} }}", child: {NEST.replace("S1", s[:2])} }}' for s in names[1:3])
    nests = f"{first}, {{ filter: \"{{ S4[i, j] }}\" }}, {second}" if between else f"{first}, {second}"
    if container == "set":
        nests = f'{{ filter: "{{ S1[i, j, k]; S3[i, j, k] }}", child: {{ set: [ {nests} ] }} }}'
    last = "" if between else ', { filter: "{ S4[i, j] }" }'
    return isl.Schedule(f'{{ domain: "{TWO_NESTS_DOMAIN}", child: {{ schedule: "{outer}", coincident: [ 1, 1 ], '
                        f'child: {{ sequence: [ {{ filter: "{{ S0[i, j] }}" }}, {nests}, '
                        f'{{ filter: "{{ S2[i, j] }}" }}{last} ] }} }} }}')


def kept(dependences: isl.UnionMap, schedule: isl.Schedule) -> bool:
    """Whether ``schedule`` runs the source of each dependence before its sink."""
    domain = schedule.get_domain()
    times = schedule.get_map().intersect_domain(domain)
    return dependences.intersect_domain(domain).intersect_range(domain).is_subset(times.lex_lt_union_map(times))


@pytest.mark.parametrize("container", ["sequence", "set"])
def test_nests_side_by_side_join_where_the_dependences_allow(container):
    before = two_nests(container)
    dependences = isl.UnionMap(SUMS, context=before.get_ctx())
    # without the dependences, two nests stay as they are: one k' orders them only where those allow
    assert extended(before).plain_is_equal(before)
    done = []
    after = extended(before, done, dependences)
    band = band_at_top(after)
    assert band.band_n_member() == 3 and band.band_get_permutable()
    assert done == [(("S1", "S3"), ("S0",), ("S2", "S4"))]
    # the steps of the two sums interleave (S3's first step now runs before S1's second), which no
    # dependence forbids
    assert kept(dependences, after) and not order(after).is_equal(order(before))
    # where S3 reads what S1 writes at every step, S3's first step must stay after S1's last
    reads = dependences.union(isl.UnionMap("[n, m] -> { S1[i, j, k] -> S3[i, j, k2] }", context=before.get_ctx()))
    assert extended(before, [], reads).plain_is_equal(before)


def test_a_statement_between_two_nests_keeps_them_apart():
    # S4 would need a k' after every step of the first nest and before every step of the second
    before = two_nests(between=True)
    dependences = isl.UnionMap(SUMS, context=before.get_ctx())
    assert extended(before, [], dependences).plain_is_equal(before)
