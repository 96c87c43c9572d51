"""isl_helpers.coalesced: isl's own failures keep the relation; a bound reached still raises."""

import islpy as isl
import pytest

from polypragma.isl_helpers import bounded_operations, coalesced, out_of_operations


def test_coalesced_merges_what_isl_can():
    pieces = isl.Set("{ [i] : 0 <= i < 10 or 10 <= i < 20 }")
    assert len(coalesced(pieces).get_basic_sets()) == 1
    assert coalesced(pieces) == pieces


class _FailingCoalesce:
    """A relation isl fails to coalesce, as it did on differential programs 6945 and 6975 (their relations
    do not fail again once printed and parsed: isl's failure depends on how a relation was built)."""

    def __init__(self, message):
        self.message = message

    def coalesce(self):
        raise isl.Error(f"call to isl_union_map_coalesce failed: {self.message}")


def test_coalesced_keeps_a_relation_isl_fails_on():
    relation = _FailingCoalesce("original tableau does not correspond to original basic map")
    assert coalesced(relation) is relation


def test_coalesced_raises_past_a_bound():
    ctx = isl.Context()
    pieces = isl.Set(" { [i, j] : " + " or ".join(f"{k} <= i < {k + 1} and 0 <= j <= i" for k in range(40)) + " }",
                     context=ctx)
    with pytest.raises(isl.Error) as error, bounded_operations(ctx, 10):
        coalesced(pieces)
    assert out_of_operations(error.value)
