"""R6.1: complete hands — the 将 rule, the uses of the card won for each source, 坎 never split, errors.

Each case gives the exact arrangements :func:`paohuzi.analysis.arrangements` returns: (胡息, 对对, groups).
"""

from __future__ import annotations

import pytest

from paohuzi.analysis import AnalysisError, Source, arrangements, is_complete
from paohuzi.cards import Card, PaohuziError, parse_cards

from .arrangement_shapes import DISCARD, NONE, OTHER, SELF, Shape, analyse, groups_of, want

# ---------------------------------------------------------------------------------------------- the 将 rule


@pytest.mark.parametrize(
    ("hand", "table", "expected"),
    [
        pytest.param(
            "x2x3x4 d5d5",
            "pao:x1x1x1x1",
            [want(6, False, "pao:x1x1x1x1 ju:x2x3x4 jiang:d5d5")],
            id="pao-needs-jiang",
        ),
        pytest.param("x2x3x4", "pao:x1x1x1x1", [], id="pao-without-jiang"),
        pytest.param("x1x2x3 d5d5", "", [], id="jiang-without-ti-or-pao"),
        pytest.param("d5d5 d6d6", "ti:x1x1x1x1", [], id="two-jiang"),
        pytest.param("d5d5 d6d6", "ti:x1x1x1x1 pao:d2d2d2d2", [], id="two-fours-still-one-jiang"),
        pytest.param(
            "x9x9",
            "ti:x1x1x1x1 pao:d2d2d2d2",
            [want(18, True, "ti:x1x1x1x1 pao:d2d2d2d2 jiang:x9x9")],
            id="two-fours-one-jiang",
        ),
        pytest.param("x5x5x5x5 x1x2x3", "", [], id="hand-four-is-ti-needs-jiang"),
        pytest.param(
            "x5x5x5x5 x1x2x3 d9d9",
            "",
            [want(12, False, "ti:x5x5x5x5 ju:x1x2x3 jiang:d9d9")],
            id="hand-four-is-ti-with-jiang",
        ),
        pytest.param("x5x5x5 x1x2x3", "", [want(6, False, "kan:x5x5x5 ju:x1x2x3")], id="kan-needs-no-jiang"),
        pytest.param(
            "x3x3x3 x7x7",
            "pao:d1d1d1d1",
            [want(12, True, "pao:d1d1d1d1 kan:x3x3x3 jiang:x7x7")],
            id="duidui-with-jiang",
        ),
        pytest.param("x3x3x3 x7x7", "peng:d1d1d1", [], id="peng-is-not-a-four"),
    ],
)
def test_r6_1_jiang_exactly_one_with_ti_or_pao_none_otherwise(hand: str, table: str, expected: list[Shape]) -> None:
    assert analyse(hand, table) == expected


@pytest.mark.parametrize(
    ("hand", "card", "source", "expected"),
    [
        pytest.param("x5x5x5 x1x2x3", "x5", SELF, [], id="own-draw-makes-ti-needs-jiang"),
        pytest.param(
            "x5x5x5 x1x2x3 d9d9",
            "x5",
            SELF,
            [want(12, False, "ti:x5x5x5x5 ju:x1x2x3 jiang:d9d9")],
            id="own-draw-makes-ti-with-jiang",
        ),
        pytest.param(
            "x5x5x5 x1x2x3 d9d9",
            "x5",
            OTHER,
            [want(9, False, "pao:x5x5x5x5 ju:x1x2x3 jiang:d9d9")],
            id="others-card-makes-pao-with-jiang",
        ),
    ],
)
def test_r6_1_jiang_counts_the_four_the_card_makes(hand: str, card: str, source: Source, expected: list[Shape]) -> None:
    assert analyse(hand, "", card, source) == expected


# --------------------------------------------------------------------------------- the card won, by source


@pytest.mark.parametrize(
    ("hand", "table", "card", "source", "expected"),
    [
        # A hand pair: own draw must 偎 (R4.2, R6.1); another's card may use the pair as 将 + a 句.
        pytest.param("x3x3 x4x5 d1d2d3", "pao:d9d9d9d9", "x3", SELF, [], id="pair-own-draw-must-wei"),
        pytest.param(
            "x3x3 x4x5 d1d2d3",
            "pao:d9d9d9d9",
            "x3",
            OTHER,
            [want(15, False, "pao:d9d9d9d9 ju:x3x4x5 jiang:x3x3 ju:d1d2d3")],
            id="pair-other-free",
        ),
        pytest.param(
            "x3x3 x4x5 d1d2d3",
            "pao:d9d9d9d9",
            "x3",
            DISCARD,
            [want(15, False, "pao:d9d9d9d9 ju:x3x4x5 jiang:x3x3 ju:d1d2d3")],
            id="pair-discard-free",
        ),
        pytest.param("x8x8 x1x2x3", "", "x8", SELF, [want(6, False, "wei:x8x8x8 ju:x1x2x3")], id="pair-self-wei"),
        pytest.param("x8x8 x1x2x3", "", "x8", OTHER, [want(4, False, "peng:x8x8x8 ju:x1x2x3")], id="pair-other-peng"),
        pytest.param(
            "x8x8 x1x2x3",
            "",
            "x8",
            DISCARD,
            [want(4, False, "peng:x8x8x8 ju:x1x2x3")],
            id="pair-discard-peng",
        ),
        pytest.param(
            "x8x8 d3d3d3",
            "",
            "x8",
            OTHER,
            [want(7, True, "peng:x8x8x8 kan:d3d3d3")],
            id="pair-other-peng-duidui",
        ),
        pytest.param(
            "x8x8 d3d3d3", "", "x8", SELF, [want(9, True, "wei:x8x8x8 kan:d3d3d3")], id="pair-self-wei-duidui"
        ),
        # A hand 坎: the card always joins it — 提 (own draw) or 跑 (another's card or a discard).
        pytest.param(
            "x6x6x6 x1x2x3 d8d8",
            "",
            "x6",
            SELF,
            [want(12, False, "ti:x6x6x6x6 ju:x1x2x3 jiang:d8d8")],
            id="kan-self-ti",
        ),
        pytest.param(
            "x6x6x6 x1x2x3 d8d8",
            "",
            "x6",
            OTHER,
            [want(9, False, "pao:x6x6x6x6 ju:x1x2x3 jiang:d8d8")],
            id="kan-other-pao",
        ),
        pytest.param(
            "x6x6x6 x1x2x3 d8d8",
            "",
            "x6",
            DISCARD,
            [want(9, False, "pao:x6x6x6x6 ju:x1x2x3 jiang:d8d8")],
            id="kan-discard-pao",
        ),
        pytest.param("x3x3x3 x1x2 d9d9", "pao:d10d10d10d10", "x3", SELF, [], id="kan-self-never-in-a-ju"),
        pytest.param("x3x3x3 x1x2 d9d9", "pao:d10d10d10d10", "x3", OTHER, [], id="kan-other-never-in-a-ju"),
        pytest.param("x3x3x3 x1x2", "", "x3", DISCARD, [], id="kan-discard-never-in-a-ju"),
        # A table 偎/臭偎: own draw must 提; another's card may 跑 or go into the hand.
        pytest.param("d1 d3 x4x5x6", "wei:d2d2d2", "d2", SELF, [], id="wei-self-must-ti"),
        pytest.param(
            "d1 d3 x4x5x6",
            "wei:d2d2d2",
            "d2",
            OTHER,
            [want(12, False, "wei:d2d2d2 ju:d1d2d3 ju:x4x5x6")],
            id="wei-other-may-stay",
        ),
        pytest.param(
            "d1 d3 x4x5x6",
            "wei:d2d2d2",
            "d2",
            DISCARD,
            [want(12, False, "wei:d2d2d2 ju:d1d2d3 ju:x4x5x6")],
            id="wei-discard-may-stay",
        ),
        pytest.param(
            "x4x5x6 x9x9",
            "wei:d2d2d2",
            "d2",
            SELF,
            [want(12, False, "ti:d2d2d2d2 ju:x4x5x6 jiang:x9x9")],
            id="wei-self-ti",
        ),
        pytest.param(
            "x4x5x6 x9x9",
            "wei:d2d2d2",
            "d2",
            OTHER,
            [want(9, False, "pao:d2d2d2d2 ju:x4x5x6 jiang:x9x9")],
            id="wei-other-pao",
        ),
        pytest.param(
            "x4x5x6 x9x9",
            "wei:d2d2d2",
            "d2",
            DISCARD,
            [want(9, False, "pao:d2d2d2d2 ju:x4x5x6 jiang:x9x9")],
            id="wei-discard-pao",
        ),
        pytest.param(
            "d1d2d3 x5x5",
            "chouwei:x7x7x7",
            "x7",
            SELF,
            [want(15, False, "ti:x7x7x7x7 ju:d1d2d3 jiang:x5x5")],
            id="chouwei-self-ti",
        ),
        pytest.param(
            "d1d2d3 x5x5",
            "chouwei:x7x7x7",
            "x7",
            OTHER,
            [want(12, False, "pao:x7x7x7x7 ju:d1d2d3 jiang:x5x5")],
            id="chouwei-other-pao",
        ),
        # A table 碰: a drawn card (own or another's) may make it 跑; a discard never does.
        pytest.param(
            "x1x2x3 d7d7",
            "peng:x10x10x10",
            "x10",
            SELF,
            [want(9, False, "pao:x10x10x10x10 ju:x1x2x3 jiang:d7d7")],
            id="peng-self-pao",
        ),
        pytest.param(
            "x1x2x3 d7d7",
            "peng:x10x10x10",
            "x10",
            OTHER,
            [want(9, False, "pao:x10x10x10x10 ju:x1x2x3 jiang:d7d7")],
            id="peng-other-pao",
        ),
        pytest.param("x1x2x3 d7d7", "peng:x10x10x10", "x10", DISCARD, [], id="peng-discard-never-pao"),
        pytest.param(
            "x8 x9 x1x2x3",
            "peng:x10x10x10",
            "x10",
            SELF,
            [want(4, False, "peng:x10x10x10 ju:x8x9x10 ju:x1x2x3")],
            id="peng-self-may-stay",
        ),
        pytest.param(
            "x8 x9 x1x2x3",
            "peng:x10x10x10",
            "x10",
            DISCARD,
            [want(4, False, "peng:x10x10x10 ju:x8x9x10 ju:x1x2x3")],
            id="peng-discard-in-hand",
        ),
        # The card in a 将 or a 绞 with hand cards.
        pytest.param(
            "x2x3x4 d6",
            "ti:x1x1x1x1",
            "d6",
            OTHER,
            [want(9, False, "ti:x1x1x1x1 ju:x2x3x4 jiang:d6d6")],
            id="card-in-jiang-other",
        ),
        pytest.param(
            "x2x3x4 d6",
            "ti:x1x1x1x1",
            "d6",
            SELF,
            [want(9, False, "ti:x1x1x1x1 ju:x2x3x4 jiang:d6d6")],
            id="card-in-jiang-self",
        ),
        pytest.param(
            "x9 d9 x1x2x3",
            "",
            "d9",
            DISCARD,
            [want(3, False, "jiao:x9d9d9 ju:x1x2x3")],
            id="card-in-jiao-discard",
        ),
        pytest.param("x9 x9 x1x2x3", "", "d9", SELF, [want(3, False, "jiao:x9x9d9 ju:x1x2x3")], id="card-in-jiao-self"),
    ],
)
def test_r6_1_uses_of_the_card_won(hand: str, table: str, card: str, source: Source, expected: list[Shape]) -> None:
    assert analyse(hand, table, card, source) == expected


def test_r6_1_chouwei_other_pao_below_min_huxi() -> None:
    assert analyse("d1d2d3 x5x5", "chouwei:x7x7x7", "x7", OTHER, min_huxi=15) == []
    assert analyse("d1d2d3 x5x5", "chouwei:x7x7x7", "x7", SELF, min_huxi=15) == [
        want(15, False, "ti:x7x7x7x7 ju:d1d2d3 jiang:x5x5")
    ]


# -------------------------------------------------------------------------------------- 坎 and 提 stay whole


@pytest.mark.parametrize(
    "hand",
    [
        pytest.param("x1 x2 x3x3x3 d3", id="kan-not-split-into-ju-and-jiao"),
        pytest.param("x1x2 x3x3x3x3 x4x5 d3", id="four-not-split-into-ju-ju-jiao"),
        pytest.param("x2 x3 x3 x4 x4 x4 x5 x5 x6", id="kan-not-split-into-three-ju"),
    ],
)
def test_r3_r6_1_kan_and_four_never_split(hand: str) -> None:
    assert analyse(hand) == []


# ------------------------------------------------------------------------------------------------ min_huxi


def test_r6_1_default_min_huxi_is_15() -> None:
    hand, table = parse_cards("x1x2x3 x6x6"), groups_of("ti:d4d4d4d4")
    (a,) = arrangements(hand, table)
    assert (a.huxi, a.duidui) == (15, False)
    assert is_complete(hand, table)
    assert not is_complete(hand, groups_of("ti:x4x4x4x4"))  # 9 + 3 = 12
    assert is_complete(hand, groups_of("ti:x4x4x4x4"), min_huxi=12)


def test_r6_1_card_count_is_not_checked() -> None:
    assert analyse("x1x2x3") == [want(3, False, "ju:x1x2x3")]
    assert analyse("") == [want(0, True, "")]


# ------------------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("hand", "table", "card", "source"),
    [
        pytest.param("x1x1x1x1", "", "x1", SELF, id="five-with-card"),
        pytest.param("x1", "pao:x1x1x1x1", None, NONE, id="five-with-table"),
        pytest.param("x2x2", "peng:x2x2x2", None, NONE, id="five-pair-and-peng"),
        pytest.param("x2", "peng:x2x2x2", "x2", OTHER, id="five-peng-and-card"),
        pytest.param("x1", "", "x2", NONE, id="card-without-source"),
        pytest.param("x1", "", None, SELF, id="source-without-card"),
        pytest.param("x1", "kan:x3x3x3", None, NONE, id="kan-on-table"),
        pytest.param("x1", "jiang:x3x3", None, NONE, id="jiang-on-table"),
    ],
)
def test_r6_1_bad_input_raises_analysis_error(hand: str, table: str, card: str | None, source: Source) -> None:
    with pytest.raises(AnalysisError):
        arrangements(parse_cards(hand), groups_of(table), None if card is None else Card.parse(card), source)
    with pytest.raises(AnalysisError):
        is_complete(parse_cards(hand), groups_of(table), None if card is None else Card.parse(card), source)


def test_r6_1_analysis_error_is_a_paohuzi_value_error() -> None:
    assert issubclass(AnalysisError, PaohuziError) and issubclass(AnalysisError, ValueError)
