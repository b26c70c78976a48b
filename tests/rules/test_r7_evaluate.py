"""R6.2 + R7 end to end: :func:`paohuzi.scoring.evaluate` scores the analysis' candidates and keeps the best
by (points, 胡息); the dealt 天胡 (R6.4); scored waits (听牌)."""

from __future__ import annotations

import pytest

from paohuzi.analysis import AnalysisError, Source, arrangements
from paohuzi.cards import Card, parse_cards
from paohuzi.groups import Group
from paohuzi.rules import RuleSet, find_preset
from paohuzi.scoring import Name, Win, evaluate, evaluate_tianhu_dealt, score, scored_waits

QQ, HUNAN, HUAYANG = find_preset("qq"), find_preset("hunan"), find_preset("huayang")

# 11 red with x10: 25 胡息, 红胡.
RED_HAND = parse_cards("x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9")
RED_TABLE = (Group.parse("peng:x7x7x7"),)

# A 跑 on the table needs a 将: x4 x4 d4 d4 + x4 is 碰 + 将 (对对, 28 胡息) or 绞 + 将 (27 胡息).
WU_HAND = parse_cards("x1x1x1 d1d1d1 d3d3d3 x8x8x8 x4 x4 d4 d4")
WU_TABLE = (Group.parse("pao:d9d9d9d9"),)

# 14 胡息 with x8, one red (x7).
LOW_HAND = parse_cards("d1d1d1 d9d9d9 x3 x4 x5 d4 d5 d6 x6 x7")
LOW_TABLE = (Group.parse("peng:x5x5x5"), Group.parse("peng:x8x8x8"))


def names(*pairs: tuple[str, int]) -> tuple[Name, ...]:
    return tuple(Name(n, f) for n, f in pairs)


def test_self_drawn_red_hand() -> None:
    win = evaluate(RED_HAND, RED_TABLE, Card.X10, Source.SELF, QQ)
    assert isinstance(win, Win)
    assert (win.huxi, win.points, win.score.fan, win.score.base) == (25, 10, 2, 5)
    assert win.score.names == names(("红胡", 2), ("自摸", 0))
    assert win.arrangement.groups[0] == Group.parse("peng:x7x7x7")
    assert sum(len(g.cards) for g in win.arrangement.groups) == 21


def test_other_players_card_is_not_zimo() -> None:
    win = evaluate(RED_HAND, RED_TABLE, Card.X10, Source.OTHER, QQ)
    assert win is not None
    assert (win.points, win.score.zimo, win.score.names) == (8, False, names(("红胡", 2)))


def test_zimo_can_be_overridden() -> None:
    win = evaluate(RED_HAND, RED_TABLE, Card.X10, Source.SELF, QQ, zimo=False)
    assert win is not None and win.points == 8 and not win.score.zimo


def test_r4_2_discard_is_not_won_unless_the_option_says() -> None:
    assert evaluate(RED_HAND, RED_TABLE, Card.X10, Source.DISCARD, QQ) is None
    win = evaluate(RED_HAND, RED_TABLE, Card.X10, Source.DISCARD, QQ.with_options(win_on_discard=True))
    assert win is not None and win.points == 8


def test_incomplete_is_none() -> None:
    assert evaluate(RED_HAND, RED_TABLE, Card.X5, Source.SELF, QQ) is None
    assert evaluate(RED_HAND, RED_TABLE, None, Source.NONE, QQ) is None


def test_bad_cards_raise() -> None:
    with pytest.raises(AnalysisError):
        evaluate(RED_HAND, RED_TABLE + (Group.parse("wei:x2x2x2"),), Card.X2, Source.SELF, QQ)


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (QQ, names(("乌胡", 5), ("对对胡", 5))),
        (HUNAN, names(("乌对", 10))),
        (HUAYANG, names(("乌胡", 5), ("对对胡", 5))),
    ],
)
def test_r6_2_best_shape_by_points(rules: object, expected: tuple[Name, ...]) -> None:
    """Two shapes: 绞 + 将 (27 胡息, 乌胡 ×5 → 25) and 碰 + 将 (28 胡息, 对对 ×10 → 50); the 对对 one wins."""
    candidates = arrangements(WU_HAND, WU_TABLE, Card.X4, Source.OTHER)
    assert [(a.huxi, a.duidui) for a in candidates] == [(27, False), (28, True)]
    win = evaluate(WU_HAND, WU_TABLE, Card.X4, Source.OTHER, rules)  # type: ignore[arg-type]
    assert win is not None
    assert (win.huxi, win.arrangement.duidui, win.points) == (28, True, 50)
    assert win.score.names == expected
    assert Group.parse("peng:x4x4x4") in win.arrangement.groups and Group.parse("jiang:d4d4") in win.arrangement.groups


def test_r6_3_haidi() -> None:
    win = evaluate(RED_HAND, RED_TABLE, Card.X10, Source.OTHER, QQ, last_card=True)
    assert win is not None
    assert win.score.names == names(("红胡", 2), ("海底胡", 2)) and win.points == 16 and win.score.haidi


def _low(source: Source, rules: RuleSet, *, tianhu: bool = False) -> Win:
    """The 14-胡息 hand scored as if complete: R8.1 offers no 起胡 below 15, so the arrangement comes from
    the analysis with a lower minimum and is scored directly."""
    found = arrangements(LOW_HAND, LOW_TABLE, Card.X8, source, min_huxi=10)
    wins = [Win(a, score(a, rules, zimo=source is Source.SELF, tianhu=tianhu)) for a in found]
    return max(wins, key=lambda w: (w.points, w.huxi))


def test_r6_1_min_huxi() -> None:
    """14 胡息 is no win at 15 (R6.1); scored anyway it is base 0, +1 自摸."""
    assert evaluate(LOW_HAND, LOW_TABLE, Card.X8, Source.OTHER, QQ) is None
    win = _low(Source.SELF, QQ)
    assert (win.huxi, win.score.base, win.score.names, win.points) == (
        14,
        1,
        names(("真点胡", 4), ("自摸", 0)),
        4,
    )


def test_r6_4_liangzhang_tianhu() -> None:
    """天胡 on the 亮张: the hand must be complete, 胡息 minimum included (decision, docs/decisions.md);
    it counts as 自摸 and QQ doubles the 胡息 in the base."""
    assert evaluate(LOW_HAND, LOW_TABLE, Card.X8, Source.OTHER, QQ, tianhu=True) is None
    win = _low(Source.OTHER, QQ, tianhu=True)
    assert win.score.names == names(("真点胡", 4), ("天胡", 0), ("自摸", 0))
    assert (win.huxi, win.score.base, win.points) == (14, (28 - 12) // 3 + 1, 24)
    win = _low(Source.OTHER, HUNAN, tianhu=True)
    assert (win.score.names, win.score.base, win.points) == (
        names(("一点红", 3), ("天胡", 0), ("自摸", 0)),
        1,
        3,
    )


def test_r6_4_dealt_tianhu_five_kan() -> None:
    win = evaluate_tianhu_dealt(parse_cards("x1x1x1 x2x2x2 x3x3x3 d4d4d4 d5d5d5 x7 x10 d6 d6 x9"), [], QQ)
    assert win is not None
    assert win.arrangement.loose == parse_cards("x7 x9 x10 d6 d6")
    assert (win.huxi, win.score.red, win.score.base, win.points) == (21, 5, (42 - 12) // 3 + 1, 11)
    assert win.score.names == names(("平胡", 1), ("天胡", 0), ("自摸", 0))


def test_r6_4_dealt_tianhu_table_ti_count() -> None:
    """Table 提 (put down at the opening) count: 2 on the table + 1 in hand is 3 提."""
    table = [Group.parse("ti:x3x3x3x3"), Group.parse("ti:d9d9d9d9")]
    win = evaluate_tianhu_dealt(parse_cards("x1x1x1x1 d2d2d2 x5 x6 x7 d8 d8"), table, QQ)
    assert win is not None
    assert (win.huxi, win.score.red, win.score.names[0], win.score.base, win.points) == (
        36,
        4,
        Name("红胡", 2),
        21,
        42,
    )
    no_double = evaluate_tianhu_dealt(parse_cards("x1x1x1x1 d2d2d2 x5 x6 x7 d8 d8"), table, HUNAN)
    assert no_double is not None and (no_double.score.base, no_double.points) == (9, 9)


def test_r6_4_not_a_dealt_tianhu() -> None:
    assert evaluate_tianhu_dealt(parse_cards("x1x1x1x1 x4x4x4x4 d5d5d5 d6d6d6 x9 x10"), [], QQ) is None


def test_scored_waits() -> None:
    """听牌: each card as the player's own draw (自摸): x4 / d4 make a forced 偎 and 对对."""
    waits = scored_waits(WU_HAND, WU_TABLE, QQ)
    assert [(str(c), w.huxi, w.score.base, w.points) for c, w in waits] == [
        ("x4", 30, 7, 70),
        ("d4", 33, 8, 80),
    ]
    assert all(w.score.zimo and w.score.duidui for _, w in waits)


def test_scored_waits_last_card_is_haidi() -> None:
    waits = scored_waits(WU_HAND, WU_TABLE, QQ, last_card=True)
    assert [(str(c), w.score.fan, w.points) for c, w in waits] == [("x4", 12, 84), ("d4", 12, 96)]


def test_scored_waits_red_hand() -> None:
    assert [(str(c), w.points) for c, w in scored_waits(RED_HAND, RED_TABLE, QQ)] == [("x10", 10)]
    assert scored_waits(parse_cards("x1 x2"), [], QQ) == []
