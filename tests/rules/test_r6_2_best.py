"""R6.2: the best arrangement — the most 胡息 of each shape, even where the first way found is worse.

The analysis returns the best arrangement of each shape (对对 or not, 对对 last); scoring picks between
them. Each case gives the exact arrangements: (胡息, 对对, groups).
"""

from __future__ import annotations

import pytest

from paohuzi.analysis import Source

from .arrangement_shapes import DISCARD, OTHER, SELF, Shape, analyse, want


@pytest.mark.parametrize(
    ("hand", "table", "expected"),
    [
        # 绞 of the lowest point first would score 0; the 句 score 12 or 15.
        pytest.param(
            "x2x2 x7x7 x10x10 d2 d7 d10",
            "",
            [want(12, False, "ju:x2x7x10 ju:x2x7x10 ju:d2d7d10")],
            id="ju-not-jiao-er-qi-shi",
        ),
        pytest.param(
            "x1x2x3 d1d1 d2d2 d3d3",
            "",
            [want(15, False, "ju:x1x2x3 ju:d1d2d3 ju:d1d2d3")],
            id="ju-not-jiao-yi-er-san",
        ),
        pytest.param(
            "x1x1 x2x2 x3x3 d1d2d3",
            "",
            [want(12, False, "ju:x1x2x3 ju:x1x2x3 ju:d1d2d3")],
            id="ju-not-jiao-small",
        ),
        pytest.param(
            "x2 x7 x10 d2d2 d7d7 d10d10",
            "",
            [want(15, False, "ju:x2x7x10 ju:d2d7d10 ju:d2d7d10")],
            id="ju-not-jiao-big-er-qi-shi",
        ),
        # The lowest pair as 将 first would score 6; the best 将 is the highest pair.
        pytest.param(
            "d1d1 d2d2 d3d3 d4d4",
            "pao:x9x9x9x9",
            [want(18, False, "pao:x9x9x9x9 ju:d1d2d3 ju:d1d2d3 jiang:d4d4")],
            id="jiang-choice",
        ),
        pytest.param(
            "x1x1 x4x4 d1d2d3d4",
            "pao:x9x9x9x9",
            [want(12, False, "pao:x9x9x9x9 jiang:x1x1 jiao:x4x4d4 ju:d1d2d3")],
            id="jiang-and-jiao-choice",
        ),
        pytest.param(
            "x2x2 d2 d7 d8 d9 d10 d10",
            "pao:x9x9x9x9",
            [want(12, False, "pao:x9x9x9x9 jiang:x2x2 ju:d2d7d10 ju:d8d9d10")],
            id="jiang-frees-er-qi-shi",
        ),
        pytest.param(
            "x1x2x3x4 d1d1 d4d4",
            "pao:x9x9x9x9",
            [want(9, False, "pao:x9x9x9x9 ju:x1x2x3 jiao:x4d4d4 jiang:d1d1")],
            id="ju-123-not-234",
        ),
    ],
)
def test_r6_2_best_huxi_not_first_found(hand: str, table: str, expected: list[Shape]) -> None:
    assert analyse(hand, table) == expected


@pytest.mark.parametrize(
    ("hand", "table", "card", "source", "expected"),
    [
        # 跑 (9) beats a 绞 with the hand pair (3).
        pytest.param(
            "x2x2",
            "peng:d2d2d2 ju:x7x8x9",
            "d2",
            OTHER,
            [want(9, False, "pao:d2d2d2d2 ju:x7x8x9 jiang:x2x2")],
            id="pao-beats-jiao",
        ),
        pytest.param(
            "x1x1",
            "chouwei:d1d1d1 ju:x1x2x3",
            "d1",
            DISCARD,
            [want(12, False, "pao:d1d1d1d1 ju:x1x2x3 jiang:x1x1")],
            id="pao-from-chouwei-beats-jiao",
        ),
    ],
)
def test_r6_2_best_use_of_the_card(hand: str, table: str, card: str, source: Source, expected: list[Shape]) -> None:
    assert analyse(hand, table, card, source) == expected


def test_r6_2_both_shapes_duidui_last() -> None:
    both = [
        want(6, False, "peng:d3d3d3 chouwei:x10x10x10 jiao:x3x3d3"),
        want(12, True, "pao:d3d3d3d3 chouwei:x10x10x10 jiang:x3x3"),
    ]
    assert analyse("x3x3", "peng:d3d3d3 chouwei:x10x10x10", "d3", SELF) == both
    assert analyse("x3x3", "peng:d3d3d3 chouwei:x10x10x10", "d3", SELF, min_huxi=6) == both
    assert analyse("x3x3", "peng:d3d3d3 chouwei:x10x10x10", "d3", SELF, min_huxi=7) == both[1:]
    assert analyse("x3x3", "peng:d3d3d3 chouwei:x10x10x10", "d3", SELF, min_huxi=13) == []
    # A discard cannot make the 碰 a 跑: only the 绞 remains.
    assert analyse("x3x3", "peng:d3d3d3 chouwei:x10x10x10", "d3", DISCARD) == both[:1]


def test_r6_2_both_shapes_full_table() -> None:
    table = "wei:d4d4d4 peng:d3d3d3 peng:d10d10d10 chouwei:d2d2d2"
    assert analyse("x3x3", table, "d3", OTHER, min_huxi=15) == [
        want(18, False, "wei:d4d4d4 peng:d3d3d3 peng:d10d10d10 chouwei:d2d2d2 jiao:x3x3d3"),
        want(24, True, "wei:d4d4d4 pao:d3d3d3d3 peng:d10d10d10 chouwei:d2d2d2 jiang:x3x3"),
    ]


def test_r6_2_pair_and_others_card_both_shapes() -> None:
    # 碰 with the pair and d5d5 as 将 (对对), or a 绞 x5 d5 d5 with x5 x5 as 将.
    assert analyse("x5x5 d5d5 x9x9x9", "pao:d1d1d1d1", "x5", OTHER) == [
        want(12, False, "pao:d1d1d1d1 kan:x9x9x9 jiao:x5d5d5 jiang:x5x5"),
        want(13, True, "pao:d1d1d1d1 kan:x9x9x9 peng:x5x5x5 jiang:d5d5"),
    ]
