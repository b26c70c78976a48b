"""R6 waits (听牌): each card kind whose own draw (R4.2: forced 提/偎 first) completes the hand."""

from __future__ import annotations

import pytest

from paohuzi.analysis import Source, is_complete, waits
from paohuzi.cards import Card, parse_cards
from paohuzi.groups import Group

Shape = tuple[int, bool, list[str]]


def _groups(text: str) -> list[Group]:
    return [Group.parse(t) for t in text.split()]


def want(huxi: int, duidui: bool, groups: str) -> Shape:
    return huxi, duidui, sorted(str(g) for g in _groups(groups))


def analyse_waits(hand: str, table: str = "", *, min_huxi: int = 0) -> dict[str, list[Shape]]:
    w = waits(parse_cards(hand), _groups(table), min_huxi=min_huxi)
    return {str(card): [(a.huxi, a.duidui, sorted(str(g) for g in a.groups)) for a in arrs] for card, arrs in w.items()}


@pytest.mark.parametrize(
    ("hand", "table", "min_huxi", "expected"),
    [
        pytest.param("x1 x2 x3 x7 x10", "", 0, {"x2": [want(6, False, "ju:x1x2x3 ju:x2x7x10")]}, id="docstring"),
        pytest.param("x1 x2", "", 0, {"x3": [want(3, False, "ju:x1x2x3")]}, id="edge-wait"),
        pytest.param(
            "x2 x3",
            "",
            0,
            {"x1": [want(3, False, "ju:x1x2x3")], "x4": [want(0, False, "ju:x2x3x4")]},
            id="two-sided",
        ),
        pytest.param("x1 x5", "", 0, {}, id="no-wait"),
        pytest.param(
            "x1x2x3 d5",
            "pao:x9x9x9x9",
            0,
            {"d5": [want(9, False, "pao:x9x9x9x9 ju:x1x2x3 jiang:d5d5")]},
            id="jiang-wait",
        ),
        pytest.param(
            "x1x2x3 x7",
            "ti:d3d3d3d3",
            15,
            {"x7": [want(15, False, "ti:d3d3d3d3 ju:x1x2x3 jiang:x7x7")]},
            id="jiang-wait-min-15",
        ),
        # x3 would complete as another's card (x3x4x5 + 将 x3x3) but an own draw must 偎 it.
        pytest.param(
            "x3x3 x4x5 d1d2d3",
            "pao:d10d10d10d10",
            15,
            {"x6": [want(15, False, "pao:d10d10d10d10 ju:x4x5x6 jiang:x3x3 ju:d1d2d3")]},
            id="pair-wei-trap",
        ),
        # x4 would make x2x3x4, but all four x4 are on the table: it cannot be drawn.
        pytest.param(
            "x2 x3 x5x5",
            "ti:x4x4x4x4",
            0,
            {"x1": [want(12, False, "ti:x4x4x4x4 ju:x1x2x3 jiang:x5x5")]},
            id="held-four-left-out",
        ),
        pytest.param(
            "x1x2x3 d2 d7 d10 d4d5d6 x8x8x8 x4x5",
            "wei:d9d9d9",
            15,
            {
                "x3": [want(18, False, "wei:d9d9d9 ju:x1x2x3 ju:d2d7d10 ju:d4d5d6 kan:x8x8x8 ju:x3x4x5")],
                "x6": [want(18, False, "wei:d9d9d9 ju:x1x2x3 ju:d2d7d10 ju:d4d5d6 kan:x8x8x8 ju:x4x5x6")],
            },
            id="two-sided-full-hand",
        ),
        # Own draw of x10 may 跑 the 碰 (then d7d7 is the 将); own draw of d7 must 偎 the pair; x7 makes a 绞.
        pytest.param(
            "x1x2x3 d7d7",
            "peng:x10x10x10",
            0,
            {
                "x7": [want(4, False, "peng:x10x10x10 jiao:x7d7d7 ju:x1x2x3")],
                "x10": [want(9, False, "pao:x10x10x10x10 ju:x1x2x3 jiang:d7d7")],
                "d7": [want(10, False, "peng:x10x10x10 wei:d7d7d7 ju:x1x2x3")],
            },
            id="peng-pao-wei-jiao",
        ),
    ],
)
def test_r6_waits(hand: str, table: str, min_huxi: int, expected: dict[str, list[Shape]]) -> None:
    assert analyse_waits(hand, table, min_huxi=min_huxi) == expected


def test_r6_waits_kan_card_is_no_wait() -> None:
    # Drawing the 坎's fourth card makes a 提, which needs a 将: x8 is not a wait.
    assert analyse_waits("x1x2x3 x8x8x8 x9 x10", min_huxi=0) == {}


def test_r6_waits_pair_trap_others_card_completes() -> None:
    hand, table = parse_cards("x3x3 x4x5 d1d2d3"), _groups("pao:d10d10d10d10")
    assert is_complete(hand, table, Card.X3, Source.OTHER)
    assert not is_complete(hand, table, Card.X3, Source.SELF)
