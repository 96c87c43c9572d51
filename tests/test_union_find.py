"""polypragma.union_find: the classes joined, each named by its smallest member."""

from polypragma.union_find import UnionFind


def test_classes_are_joined_transitively_and_named_by_their_smallest_member():
    sets = UnionFind(7)
    sets.join(5, 2)
    sets.join(6, 5)
    sets.join(1, 3)
    assert sets.find(6) == 2 and sets.find(3) == 1 and sets.find(4) == 4
    assert sets.classes() == [[0], [1, 3], [2, 5, 6], [4]]
    sets.join(3, 6)
    assert sets.classes() == [[0], [1, 2, 3, 5, 6], [4]]
