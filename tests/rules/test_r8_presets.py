"""R8 presets drive scoring: each preset's 名堂 table, stake, 天胡 doubling and 胡息 minimum."""

from __future__ import annotations

import pytest

from paohuzi.analysis import Arrangement, Source, arrangements
from paohuzi.cards import Card, parse_cards
from paohuzi.groups import Group
from paohuzi.rules import find_preset
from paohuzi.scoring import Name, evaluate, score, settle

WUDUI = tuple(
    Group.parse(g)
    for g in [
        "kan:x1x1x1",
        "kan:d1d1d1",
        "peng:x3x3x3",
        "wei:d3d3d3",
        "kan:x4x4x4",
        "kan:d9d9d9",
        "kan:x8x8x8",
    ]
)
WUDUI_ARR = Arrangement(WUDUI, sum(g.huxi for g in WUDUI), True)  # 28 胡息, red 0, 对对


@pytest.mark.parametrize(
    ("preset", "names", "points"),
    [
        ("qq", (("乌胡", 5), ("对对胡", 5), ("海底胡", 2)), 12 * 5),
        ("hengyang", (("乌胡", 5), ("对对胡", 5), ("海底胡", 2)), 12 * 5),
        ("hunan", (("乌对", 10),), 10 * 5),
        ("huayang", (("乌胡", 5), ("对对胡", 5), ("海底", 2)), 12 * 5),
    ],
)
def test_r8_fan_table_per_preset(preset: str, names: tuple[tuple[str, int], ...], points: int) -> None:
    """One 乌 对对 海底 hand (28 胡息, base 5) under tables A, A, B, C."""
    s = score(WUDUI_ARR, find_preset(preset), haidi=True)
    assert s.names == tuple(Name(n, f) for n, f in names)
    assert (s.base, s.points) == (5, points)


@pytest.mark.parametrize(("preset", "base"), [("qq", 15), ("hengyang", 15), ("hunan", 6), ("huayang", 6)])
def test_r8_tianhu_double_huxi(preset: str, base: int) -> None:
    """tianhu_double_huxi on for qq/hengyang: (2 × 28 − 12) // 3 + 1 = 15; off: (28 − 12) // 3 + 1 = 6."""
    assert score(WUDUI_ARR, find_preset(preset), tianhu=True).base == base


@pytest.mark.parametrize(("preset", "stake"), [("qq", 3), ("hengyang", 1), ("hunan", 1), ("huayang", 1)])
def test_r8_room_stake(preset: str, stake: int) -> None:
    rules = find_preset(preset)
    assert rules.stake == stake
    assert settle(0, 10, (0, 1, 2), rules.stake) == {0: 20 * stake, 1: -10 * stake, 2: -10 * stake}


@pytest.mark.parametrize("preset", ["qq", "hengyang", "hunan", "huayang"])
def test_r8_min_huxi_15(preset: str) -> None:
    """min_huxi 15 in every preset: a complete 14-胡息 hand is no win (it is complete at 14)."""
    hand, table = (
        parse_cards("d1d1d1 d9d9d9 x3 x4 x5 d4 d5 d6 x6 x7"),
        [Group.parse("peng:x5x5x5"), Group.parse("peng:x8x8x8")],
    )
    rules = find_preset(preset)
    assert rules.min_huxi == 15
    assert evaluate(hand, table, Card.X8, Source.SELF, rules) is None
    assert arrangements(hand, table, Card.X8, Source.SELF, min_huxi=14)


@pytest.mark.parametrize("preset", ["qq", "hengyang", "hunan", "huayang"])
def test_r8_no_win_on_discard(preset: str) -> None:
    hand = parse_cards("x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9")
    table = [Group.parse("peng:x7x7x7")]
    rules = find_preset(preset)
    assert not rules.win_on_discard
    assert evaluate(hand, table, Card.X10, Source.DISCARD, rules) is None
    assert evaluate(hand, table, Card.X10, Source.OTHER, rules) is not None
