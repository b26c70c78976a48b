"""R6.4: the dealt 天胡 and its 胡息 — 提/坎 plus the best partial arrangement of the other cards."""

from __future__ import annotations

import pytest

from paohuzi.analysis import dealt_tianhu, partial_arrangement, tianhu_arrangement
from paohuzi.cards import parse_cards
from paohuzi.groups import Group


def _groups(text: str) -> list[Group]:
    return [Group.parse(t) for t in text.split()]


def _sorted(groups: tuple[Group, ...] | list[Group]) -> list[str]:
    return sorted(str(g) for g in groups)


@pytest.mark.parametrize(
    ("hand", "table", "tianhu"),
    [
        pytest.param("x1x1x1x1 x2x2x2x2 x3x3x3x3 d1 d2 d3 x7 x10", "", True, id="three-ti-in-hand"),
        pytest.param("x3x3x3x3 d1 d2 d3 x7 x10", "ti:x1x1x1x1 ti:x2x2x2x2", True, id="two-table-ti-one-hand-ti"),
        pytest.param("d1 d2 d3 x7 x10", "ti:x1x1x1x1 ti:x2x2x2x2 ti:d9d9d9d9", True, id="three-table-ti"),
        pytest.param("x1x1x1x1 x2x2x2x2 x3x3x3 x4x4x4 d5 d6 d7", "", False, id="two-ti-two-kan"),
        pytest.param("x1x1x1 x2x2x2 x3x3x3 x4x4x4 d5d5d5 d7", "", True, id="five-kan"),
        pytest.param("x1x1x1 x2x2x2 x3x3x3 x4x4x4 d5d5 d7 d8", "", False, id="four-kan"),
        pytest.param("x1x1x1x1 x2x2x2 x3x3x3 x4x4x4 d5d5d5", "", True, id="one-ti-four-kan"),
        pytest.param(
            "x4x4x4 x5x5x5 x6x6x6 x2 x7 x10",
            "ti:d9d9d9d9 ti:d10d10d10d10",
            True,
            id="table-ti-count-as-held-four",
        ),
        pytest.param(
            "x4x4x4 x5x5x5 x2 x7 x10 d1 d2 d3",
            "ti:d9d9d9d9 ti:d10d10d10d10",
            False,
            id="two-ti-two-kan-table",
        ),
        pytest.param("x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 d1 d2 d3 d4 d5 d6 d7 d8 d9 d10", "", False, id="nothing"),
    ],
)
def test_r6_4_dealt_tianhu(hand: str, table: str, tianhu: bool) -> None:
    assert dealt_tianhu(parse_cards(hand), _groups(table)) is tianhu


@pytest.mark.parametrize(
    ("hand", "table", "huxi", "groups", "loose"),
    [
        pytest.param(
            "x1x1x1x1 x2x2x2x2 x3x3x3x3 d1d2d3 x7 x10 x5 x9 d8",
            "",
            33,
            "ti:x1x1x1x1 ti:x2x2x2x2 ti:x3x3x3x3 ju:d1d2d3",
            "x5 x7 x9 x10 d8",
            id="three-ti",
        ),
        pytest.param(
            "x4x4x4 x5x5x5 x6x6x6 x2 x7 x10",
            "ti:d9d9d9d9 ti:d10d10d10d10",
            36,
            "ti:d9d9d9d9 ti:d10d10d10d10 kan:x4x4x4 kan:x5x5x5 kan:x6x6x6 ju:x2x7x10",
            "",
            id="table-ti",
        ),
        pytest.param(
            "x1x1x1 x2x2x2 x3x3x3 x4x4x4 d5d5d5 d7 d2 d10 x8",
            "",
            24,
            "kan:x1x1x1 kan:x2x2x2 kan:x3x3x3 kan:x4x4x4 kan:d5d5d5 ju:d2d7d10",
            "x8",
            id="five-kan",
        ),
    ],
)
def test_r6_4_tianhu_arrangement(hand: str, table: str, huxi: int, groups: str, loose: str) -> None:
    a = tianhu_arrangement(parse_cards(hand), _groups(table))
    assert a.huxi == huxi
    assert _sorted(a.groups) == _sorted(_groups(groups))
    assert sorted(a.loose) == sorted(parse_cards(loose))


@pytest.mark.parametrize(
    ("cards", "huxi", "groups", "loose"),
    [
        pytest.param("x1 x2 x3 x2 x7 x10 d4 d4 d4 d9", 12, "kan:d4d4d4 ju:x1x2x3 ju:x2x7x10", "d9", id="docstring"),
        pytest.param(
            "x1 x2 x3 x2 x7 x10 d1 d2 d3 d2 d7 d10",
            18,
            "ju:x1x2x3 ju:x2x7x10 ju:d1d2d3 ju:d2d7d10",
            "",
            id="four-scoring-ju",
        ),
        pytest.param("x4 x5 x6 x8 x8 d8", 0, "", "x4 x5 x6 x8 x8 d8", id="no-scoring-group"),
        pytest.param("x1x1x1 x2x2 x3x3", 3, "kan:x1x1x1", "x2 x2 x3 x3", id="kan-kept-whole"),
        pytest.param("d1d1d1d1 d2 d3", 12, "ti:d1d1d1d1", "d2 d3", id="ti-kept-whole"),
        pytest.param("", 0, "", "", id="empty"),
        pytest.param("d2 d7 d10 d2 d7 d10 x1 x2 x3", 15, "ju:d2d7d10 ju:d2d7d10 ju:x1x2x3", "", id="two-big-er-qi-shi"),
    ],
)
def test_r6_4_partial_arrangement(cards: str, huxi: int, groups: str, loose: str) -> None:
    a = partial_arrangement(parse_cards(cards))
    assert a.huxi == huxi
    assert _sorted(a.groups) == _sorted(_groups(groups))
    assert sorted(a.loose) == sorted(parse_cards(loose))


def test_r6_4_partial_arrangement_one_of_two_scoring_ju() -> None:
    # x2 can go into 一二三 or 二七十, not both: 3 胡息 either way, two cards loose.
    a = partial_arrangement(parse_cards("x1 x2 x3 x7 x10"))
    assert a.huxi == 3
    assert len(a.groups) == 1 and a.groups[0].huxi == 3 and len(a.loose) == 2
