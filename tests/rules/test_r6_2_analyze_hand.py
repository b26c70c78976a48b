"""R6.2 through :func:`paohuzi.scoring.analyze_hand` (best win with the card, else the waits) and the one JSON
form of a win (:meth:`paohuzi.scoring.Win.to_dict`, :func:`paohuzi.scoring.waits_to_dicts`), with exact values.
"""

from __future__ import annotations

import pytest

from paohuzi.analysis import AnalysisError, Source
from paohuzi.cards import Card, parse_cards
from paohuzi.groups import Group
from paohuzi.rules import find_preset
from paohuzi.scoring import analyze_hand, evaluate, scored_waits, waits_to_dicts

QQ = find_preset("qq")
RED_HAND = parse_cards("x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9")
RED_TABLE = (Group.parse("peng:x7x7x7"),)
THREE_TI = parse_cards("x1x1x1x1 x4x4x4x4 d5d5d5d5 x2 x3 x7 x9 d8 d8")


def test_r6_2_with_a_card_the_best_win_and_no_waits() -> None:
    found = analyze_hand(RED_HAND, RED_TABLE, Card.X10, Source.SELF, QQ)
    assert found.waits is None and found.win is not None
    assert found.win == evaluate(RED_HAND, RED_TABLE, Card.X10, Source.SELF, QQ)
    assert (found.win.huxi, found.win.points) == (25, 10)


def test_r6_2_with_a_card_that_does_not_complete_no_win() -> None:
    found = analyze_hand(RED_HAND, RED_TABLE, Card.X4, Source.SELF, QQ)
    assert found.win is None and found.waits is None


def test_r6_without_a_card_the_waits_scored_as_own_draws() -> None:
    found = analyze_hand(RED_HAND, RED_TABLE, None, Source.NONE, QQ)
    assert found.win is None
    assert found.waits == tuple(scored_waits(RED_HAND, RED_TABLE, QQ))
    assert waits_to_dicts(found.waits or ()) == [{"card": "x10", "huxi": 25, "points": 10}]
    haidi = analyze_hand(RED_HAND, RED_TABLE, None, Source.NONE, QQ, last_card=True)
    assert [w.score.haidi for _, w in haidi.waits or ()] == [True]


def test_r6_4_dealt_tianhu_is_tried_without_a_card() -> None:
    plain = analyze_hand(THREE_TI, (), None, Source.NONE, QQ)
    assert plain.win is None  # not complete as the cards stand
    tianhu = analyze_hand(THREE_TI, (), None, Source.NONE, QQ, tianhu=True)
    assert tianhu.win is not None
    assert (tianhu.win.huxi, tianhu.win.points) == (30, 17)
    assert [str(c) for c in tianhu.win.arrangement.loose] == ["x2", "x3", "x7", "x9", "d8", "d8"]


def test_r1_more_than_four_of_a_kind_is_refused_by_the_analysis() -> None:
    with pytest.raises(AnalysisError, match=r"more than 4 of a kind \(hand and table together\): 5 × x1 \(R1\)"):
        analyze_hand(parse_cards("x1 x1"), (Group.parse("peng:x1x1x1"),), None, Source.NONE, QQ)
    with pytest.raises(AnalysisError, match=r"hand, table and card together\): 5 × x1"):
        analyze_hand(parse_cards("x1 x1 x1 x1"), (), Card.X1, Source.SELF, QQ)


def test_win_to_dict_is_the_analyze_json_shape() -> None:
    win = evaluate(RED_HAND, RED_TABLE, Card.X10, Source.SELF, QQ)
    assert win is not None
    data = win.to_dict()
    assert list(data) == ["huxi", "groups", "names", "fan", "base", "points", "zimo"]
    assert data["huxi"] == 25 and data["fan"] == 2 and data["base"] == 5 and data["points"] == 10 and data["zimo"]
    assert data["names"] == [{"name": "红胡", "fan": 2}, {"name": "自摸", "fan": 0}]
    assert sorted((g["kind"], "".join(g["cards"]), g["huxi"]) for g in data["groups"]) == [
        ("ju", "d2d7d10", 6), ("ju", "x1x2x3", 3), ("ju", "x2x7x10", 3), ("ju", "x8x9x10", 0),
        ("kan", "d4d4d4", 6), ("kan", "d9d9d9", 6), ("peng", "x7x7x7", 1),
    ]


def test_win_to_dict_lists_loose_cards_of_a_partial_arrangement() -> None:
    win = analyze_hand(THREE_TI, (), None, Source.NONE, QQ, tianhu=True).win
    assert win is not None
    assert win.to_dict()["loose"] == ["x2", "x3", "x7", "x9", "d8", "d8"]


def test_r6_2_better_than_is_points_then_huxi() -> None:
    win = evaluate(RED_HAND, RED_TABLE, Card.X10, Source.SELF, QQ)
    other = evaluate(RED_HAND, RED_TABLE, Card.X10, Source.OTHER, QQ)  # no 自摸: fewer points
    assert win is not None and other is not None
    assert win.better_than(None) and win.better_than(other) and not other.better_than(win)
    assert not win.better_than(win)  # a tie keeps the first
