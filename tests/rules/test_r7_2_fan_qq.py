"""R7.2 table A (``qq``, QQ游戏): every 名堂 and its boundaries; 番 add up; 海底 on 平胡 and on 名堂胡.

Hands are built by hand (7 groups, 21 cards unless said); each test also checks the red/big/small counts the
hand was built for, so a typo in a hand cannot hide behind a passing 番.
"""

from __future__ import annotations

import pytest

from paohuzi.rules import find_preset
from paohuzi.scoring import Name, score

from .fan_hands import BIG, DUIDUI, RED, SMALL, arr, names

QQ = find_preset("qq")



@pytest.mark.parametrize(
    ("red", "expected"),
    [
        (0, names(("乌胡", 5))),
        (1, names(("真点胡", 4))),
        (4, names(("红胡", 2))),
        (7, names(("红胡", 2))),
        (9, names(("平胡", 1))),
        (10, names(("假点胡", 3))),
        (11, names(("红胡", 2))),
        (12, names(("红胡", 2))),
        (13, names(("红乌", 4))),
        (14, names(("红乌", 5))),
    ],
)
def test_r7_2_a_red_boundaries(red: int, expected: tuple[Name, ...]) -> None:
    """红胡 at red 4, 7, 11, 12 (literal reading); 真点胡 1; 假点胡 10; 红乌 ≥ 13 (+1 per red); 乌胡 0."""
    text, huxi, big = RED[red]
    s = score(arr(text), QQ)
    assert (s.red, s.big, s.small, s.huxi) == (red, big, 21 - big, huxi)
    assert s.names == expected
    assert s.fan == sum(n.fan for n in expected)
    assert s.points == s.base * s.fan == ((huxi - 12) // 3) * s.fan


@pytest.mark.parametrize("red", [2, 3, 5, 6, 8, 9])
def test_r7_2_a_other_red_counts_are_pinghu(red: int) -> None:
    # Built from loose cards (at most 2 of a kind): only the counts matter to the 名堂 (R7.2).
    reds = ["x2", "d2", "x7", "d7", "x10", "d10"] * 2
    blacks = ["x1", "d1", "x3", "d3", "x4", "d4", "x5", "d5", "x6", "d6", "x8", "d8", "x9", "d9"] * 2
    loose = " ".join(reds[:red] + blacks[: 21 - red])
    s = score(arr("", loose=loose), QQ)
    assert (s.red, s.big + s.small) == (red, 21) and 4 <= s.big <= 17
    assert s.names == names(("平胡", 1))


def test_r7_2_a_hongwu_up_to_24_red() -> None:
    """红乌: 4 番 at 13 red, +1 per red over 13: 24 red → 15 番 (the source: "最多为24只红字，15番")."""
    every_red = arr(
        "ti:x2x2x2x2 ti:x7x7x7x7 ti:x10x10x10x10 ti:d2d2d2d2 ti:d7d7d7d7 ti:d10d10d10d10 jiang:x1x1",
        duidui=False,
    )
    s = score(every_red, QQ)
    assert (s.red, s.big, s.small) == (24, 12, 14)
    assert s.names == names(("红乌", 15))


@pytest.mark.parametrize(
    ("red", "expected"),
    [
        (0, names(("乌胡", 5), ("对对胡", 5))),
        (6, names(("对对胡", 5))),
        (10, names(("假点胡", 3), ("对对胡", 5))),
        (12, names(("红胡", 2), ("对对胡", 5))),
        (13, names(("红乌", 4), ("对对胡", 5))),
    ],
)
def test_r7_2_a_duidui_adds_up(red: int, expected: tuple[Name, ...]) -> None:
    """对对胡 5 番, added to the red 名堂 (番 add up in table A)."""
    hand = arr(DUIDUI[red])
    assert hand.duidui and len([c for g in hand.groups for c in g.cards]) == 21
    s = score(hand, QQ)
    assert (s.red, s.duidui) == (red, True)
    assert s.names == expected and s.fan == sum(f for _, f in ((n.name, n.fan) for n in expected))


def test_r7_2_a_duidui_flag_decides() -> None:
    """对对胡 follows the arrangement's shape flag (the analysis decides the shape)."""
    assert score(arr(DUIDUI[6], duidui=False), QQ).names == names(("平胡", 1))


@pytest.mark.parametrize(
    ("big", "expected"),
    [(17, names(("平胡", 1))), (18, names(("大字胡", 6))), (19, names(("大字胡", 7)))],
)
def test_r7_2_a_dazi_boundaries(big: int, expected: tuple[Name, ...]) -> None:
    """大字胡: 18 or more big cards, 6 番 at 18, +1 per big card over 18."""
    s = score(arr(BIG[big]), QQ)
    assert (s.big, s.small, s.red) == (big, 21 - big, 3)
    assert s.names == expected


@pytest.mark.parametrize(
    ("small", "expected"),
    [
        (15, names(("平胡", 1))),
        (16, names(("小字胡", 8))),
        (17, names(("小字胡", 9))),
        (21, names(("小字胡", 13))),
    ],
)
def test_r7_2_a_xiaozi_boundaries(small: int, expected: tuple[Name, ...]) -> None:
    """小字胡: 16 or more small cards, 8 番 at 16, +1 per small card over 16."""
    s = score(arr(SMALL[small]), QQ)
    assert (s.small, s.big, s.red) == (small, 21 - small, 3)
    assert s.names == expected


def test_r7_2_a_everything_adds_up() -> None:
    """乌胡 + 对对胡 + 大字胡 in one hand: 5 + 5 + 6 = 16 番."""
    hand = arr("kan:d1d1d1 kan:d3d3d3 kan:d4d4d4 peng:d5d5d5 wei:d9d9d9 kan:d8d8d8 kan:x3x3x3")
    s = score(hand, QQ)
    assert (s.red, s.big, s.duidui) == (0, 18, True)
    assert s.names == names(("乌胡", 5), ("对对胡", 5), ("大字胡", 6))
    assert (s.fan, s.base, s.points) == (16, (hand.huxi - 12) // 3, 16 * ((hand.huxi - 12) // 3))


def test_r7_2_a_wuhu_and_xiaozi() -> None:
    hand = arr("kan:x1x1x1 ju:x3x4x5 kan:x9x9x9 kan:x8x8x8 ju:x4x5x6 jiao:x6d6d6 kan:d1d1d1")
    s = score(hand, QQ)
    assert (s.red, s.small) == (0, 16)
    assert s.names == names(("乌胡", 5), ("小字胡", 8)) and s.fan == 13


def test_r7_2_a_haidi_on_pinghu() -> None:
    """海底 on a 平胡: 番 goes from 1 to 2 ("平胡加1番"), shown as 平胡 1 + 海底胡 1."""
    text, _huxi, _ = RED[9]
    s = score(arr(text), QQ, haidi=True)
    assert s.names == names(("平胡", 1), ("海底胡", 1))
    assert (s.fan, s.base, s.points, s.haidi, s.pinghu) == (2, 2, 4, True, True)


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        (RED[11][0], names(("红胡", 2), ("海底胡", 2))),
        (RED[1][0], names(("真点胡", 4), ("海底胡", 2))),
        (DUIDUI[0], names(("乌胡", 5), ("对对胡", 5), ("海底胡", 2))),
    ],
)
def test_r7_2_a_haidi_on_mingtang(hand: str, expected: tuple[Name, ...]) -> None:
    """海底 on a 名堂胡: +2 番 ("名堂胡加2番")."""
    s = score(arr(hand), QQ, haidi=True)
    assert s.names == expected and s.fan == sum(n.fan for n in expected) and not s.pinghu


def test_r7_2_a_zimo_and_tianhu_shown_with_no_fan() -> None:
    """自摸 and 天胡 are shown but add no 番 (they act on the base, R7.1)."""
    text, huxi, _ = RED[11]
    s = score(arr(text), QQ, zimo=True, haidi=True, tianhu=True)
    assert s.names == names(("红胡", 2), ("海底胡", 2), ("天胡", 0), ("自摸", 0))
    assert (s.fan, s.base, s.points) == (4, (2 * huxi - 12) // 3 + 1, 4 * ((2 * huxi - 12) // 3 + 1))


def test_r7_2_a_hengyang_uses_table_a() -> None:
    for text, _huxi, _big in RED.values():
        assert score(arr(text), find_preset("hengyang")).names == score(arr(text), QQ).names


def test_r7_2_counts_include_loose_cards() -> None:
    """Counts are over all the arrangement's cards, loose ones included (a dealt 天胡's partial one)."""
    partial = arr("ti:x1x1x1x1 ti:x4x4x4x4 ti:d5d5d5d5", loose="x2 x3 x7 x9 d8 d8")
    s = score(partial, QQ, tianhu=True)
    assert (s.red, s.big, s.small) == (2, 6, 12)
