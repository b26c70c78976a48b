"""The R3 shape table of :mod:`paohuzi.groups`, checked exhaustively against a brute-force reading of R3.

The brute force below is written from the rule text alone, over card points and cases, never from the
table: a 句 is three cards of one case with consecutive points or 二七十; a 绞 is one point, two cards of
one case and one of the other; only 一二三 and 二七十 score, 3 small / 6 big; the same-kind rows of R3.
"""

from __future__ import annotations

import itertools

import pytest

from paohuzi.cards import NUM_KINDS, Card
from paohuzi.groups import (
    JIAO_SHAPES,
    MIXED_SHAPES,
    PARTNERS,
    SAME_KIND_HUXI,
    SEQUENCE_SHAPES,
    SHAPE_OF,
    Group,
    GroupError,
    GroupKind,
    is_jiao,
    is_sequence,
    same_kind_huxi,
)

TRIPLES = list(itertools.combinations_with_replacement(range(NUM_KINDS), 3))  # 1,540 multisets


def _point(k: int) -> int:
    return k % 10 + 1


def _big(k: int) -> bool:
    return k >= 10


def brute_sequence(cards: tuple[int, ...]) -> bool:
    """R3: 'A sequence never mixes cases. 二七十 is the only non-consecutive sequence.'"""
    if len({_big(k) for k in cards}) != 1:
        return False
    points = sorted(_point(k) for k in cards)
    return points == [2, 7, 10] or all(points[i + 1] == points[i] + 1 for i in range(2))


def brute_jiao(cards: tuple[int, ...]) -> bool:
    """R3: '绞: same point, 2 of one case + 1 of the other'."""
    return len({_point(k) for k in cards}) == 1 and sorted(_big(k) for k in cards).count(True) in (1, 2)


def brute_huxi(kind: GroupKind, cards: tuple[int, ...]) -> int:
    """R3's 胡息 column, row by row."""
    big = _big(cards[0])
    rows = {
        GroupKind.TI: (9, 12),
        GroupKind.PAO: (6, 9),
        GroupKind.WEI: (3, 6),
        GroupKind.CHOUWEI: (3, 6),
        GroupKind.KAN: (3, 6),
        GroupKind.PENG: (1, 3),
        GroupKind.JIANG: (0, 0),
    }
    if kind in rows:
        return rows[kind][big]
    if kind is GroupKind.JU and sorted(_point(k) for k in cards) in ([1, 2, 3], [2, 7, 10]):
        return 6 if big else 3
    return 0


class TestR3ShapeTable:
    def test_r3_every_triple_is_a_sequence_exactly_when_the_rule_says(self) -> None:
        table = {s.cards for s in SEQUENCE_SHAPES}
        brute = {t for t in TRIPLES if brute_sequence(t)}
        assert table == brute and len(brute) == 18  # 8 runs + 二七十, in each case

    def test_r3_every_triple_is_a_jiao_exactly_when_the_rule_says(self) -> None:
        table = {s.cards for s in JIAO_SHAPES}
        brute = {t for t in TRIPLES if brute_jiao(t)}
        assert table == brute and len(brute) == 20  # per point: x x d and x d d

    def test_r3_table_rows_are_ascending_unique_and_typed(self) -> None:
        assert len(MIXED_SHAPES) == len(SHAPE_OF) == 38
        for shape in MIXED_SHAPES:
            assert list(shape.cards) == sorted(shape.cards)
            assert SHAPE_OF[shape.cards] is shape
            assert shape.kind is (GroupKind.JU if brute_sequence(shape.cards) else GroupKind.JIAO)

    def test_r3_mixed_shape_huxi_matches_the_rule(self) -> None:
        for shape in MIXED_SHAPES:
            assert shape.huxi == brute_huxi(shape.kind, shape.cards), shape
        scoring = sorted(str(Group(s.kind, tuple(Card(k) for k in s.cards))) for s in MIXED_SHAPES if s.huxi)
        assert scoring == ["ju:d1 d2 d3", "ju:d2 d7 d10", "ju:x1 x2 x3", "ju:x2 x7 x10"]

    def test_r3_same_kind_huxi_matches_the_rule(self) -> None:
        for kind in GroupKind:
            if not kind.same_kind:
                assert kind not in SAME_KIND_HUXI
                continue
            for k in range(NUM_KINDS):
                assert same_kind_huxi(kind, k) == brute_huxi(kind, (k,)), (kind, k)

    def test_r3_partners_of_every_card_match_brute_force(self) -> None:
        for c in range(NUM_KINDS):
            brute = sorted(
                (a, b)
                for a, b in itertools.combinations_with_replacement(range(NUM_KINDS), 2)
                if brute_sequence(tuple(sorted((a, b, c)))) or brute_jiao(tuple(sorted((a, b, c))))
            )
            assert list(PARTNERS[c]) == brute, Card(c)

    def test_r3_partners_examples(self) -> None:
        def names(k: int) -> list[str]:
            return [f"{Card(a)} {Card(b)}" for a, b in PARTNERS[k]]

        assert names(Card.X2) == ["x1 x3", "x2 d2", "x3 x4", "x7 x10", "d2 d2"]
        assert names(Card.D10) == ["x10 x10", "x10 d10", "d2 d7", "d8 d9"]
        assert names(Card.X5) == ["x3 x4", "x4 x6", "x5 d5", "x6 x7", "d5 d5"]

    def test_r3_is_sequence_and_is_jiao_agree_with_brute_force_on_every_triple(self) -> None:
        for t in TRIPLES:
            cards = [Card(k) for k in t]
            for order in set(itertools.permutations(cards)):
                assert is_sequence(order) == brute_sequence(t)
                assert is_jiao(order) == brute_jiao(t)

    @pytest.mark.parametrize("size", [0, 1, 2, 4])
    def test_r3_wrong_sizes_are_neither(self, size: int) -> None:
        cards = [Card.X1, Card.X2, Card.X3, Card.X4][:size]
        assert not is_sequence(cards) and not is_jiao(cards)

    def test_r3_group_huxi_matches_brute_force_for_every_group(self) -> None:
        count = 0
        for kind in GroupKind:
            for t in itertools.combinations_with_replacement(range(NUM_KINDS), kind.size):
                try:
                    group = Group(kind, tuple(Card(k) for k in t))
                except GroupError:
                    valid = (
                        len(set(t)) == 1
                        if kind.same_kind
                        else brute_sequence(t)
                        if kind is GroupKind.JU
                        else brute_jiao(t)
                    )
                    assert not valid, (kind, t)
                    continue
                if kind is GroupKind.JU and t in ((0, 4, 9), (10, 14, 19)):  # 一五十 (R9.3, option yiwushi): 3 / 6
                    assert group.huxi == (3 if t[0] == 0 else 6), group
                    continue
                count += 1
                assert group.huxi == brute_huxi(kind, t), group
        assert count == 7 * NUM_KINDS + 38


def test_r3_env_action_shapes_are_the_table_partners() -> None:
    """The RL action encoding names each 吃 by shape (low, mid, high, 二七十, two 绞): for every card its shapes
    are exactly the table's partners, so the encoding cannot drift from R3."""
    from paohuzi.env.actions import shape_partners

    for c in range(NUM_KINDS):
        assert sorted(p for p in shape_partners(c) if p is not None) == list(PARTNERS[c]), Card(c)
