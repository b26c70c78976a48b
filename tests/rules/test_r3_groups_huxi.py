"""R3: the groups (门子) and the 胡息 each scores, in hand-made hands analysed by :mod:`paohuzi.analysis`.

Every case gives the exact arrangement: its 胡息, its shape (对对 or not) and its groups. ``min_huxi`` is 0
so that the groups' own 胡息 can be seen.
"""

from __future__ import annotations

import pytest

from paohuzi.groups import Group

from .arrangement_shapes import Shape, analyse, want


@pytest.mark.parametrize(
    ("group", "huxi"),
    [
        ("ti:x1x1x1x1", 9),
        ("ti:d1d1d1d1", 12),
        ("pao:x9x9x9x9", 6),
        ("pao:d9d9d9d9", 9),
        ("wei:x4x4x4", 3),
        ("wei:d4d4d4", 6),
        ("chouwei:x6x6x6", 3),
        ("chouwei:d6d6d6", 6),
        ("kan:x8x8x8", 3),
        ("kan:d8d8d8", 6),
        ("peng:x5x5x5", 1),
        ("peng:d5d5d5", 3),
        ("ju:x1x2x3", 3),
        ("ju:d1d2d3", 6),
        ("ju:x2x7x10", 3),
        ("ju:d2d7d10", 6),
        ("ju:x2x3x4", 0),
        ("ju:x8x9x10", 0),
        ("ju:d4d5d6", 0),
        ("jiao:x8x8d8", 0),
        ("jiao:x8d8d8", 0),
        ("jiang:x5x5", 0),
        ("jiang:d10d10", 0),
    ],
)
def test_r3_group_huxi_table(group: str, huxi: int) -> None:
    assert Group.parse(group).huxi == huxi


@pytest.mark.parametrize(
    ("hand", "table", "expected"),
    [
        pytest.param("x5x5x5x5 x8x8", "", [want(9, True, "ti:x5x5x5x5 jiang:x8x8")], id="ti-small-in-hand"),
        pytest.param("x8x8", "ti:d5d5d5d5", [want(12, True, "ti:d5d5d5d5 jiang:x8x8")], id="ti-big-table"),
        pytest.param("d9d9", "pao:x3x3x3x3", [want(6, True, "pao:x3x3x3x3 jiang:d9d9")], id="pao-small"),
        pytest.param("x1x1", "pao:d3d3d3d3", [want(9, True, "pao:d3d3d3d3 jiang:x1x1")], id="pao-big"),
        pytest.param("", "wei:x4x4x4 wei:d4d4d4", [want(9, True, "wei:x4x4x4 wei:d4d4d4")], id="wei-both"),
        pytest.param(
            "",
            "chouwei:x6x6x6 chouwei:d6d6d6",
            [want(9, True, "chouwei:x6x6x6 chouwei:d6d6d6")],
            id="chouwei-both",
        ),
        pytest.param("x9x9x9 d9d9d9", "", [want(9, True, "kan:x9x9x9 kan:d9d9d9")], id="kan-both"),
        pytest.param("", "peng:x1x1x1 peng:d1d1d1", [want(4, True, "peng:x1x1x1 peng:d1d1d1")], id="peng-both"),
        pytest.param("x1x2x3 d1d2d3", "", [want(9, False, "ju:x1x2x3 ju:d1d2d3")], id="yi-er-san"),
        pytest.param("x2 x7 x10 d2 d7 d10", "", [want(9, False, "ju:x2x7x10 ju:d2d7d10")], id="er-qi-shi"),
        pytest.param(
            "x4x5x6 d8d9d10 x8x9x10 d2d3d4",
            "",
            [want(0, False, "ju:x4x5x6 ju:d8d9d10 ju:x8x9x10 ju:d2d3d4")],
            id="other-ju-score-0",
        ),
        pytest.param("x8x8d8 x3d3d3", "", [want(0, False, "jiao:x8x8d8 jiao:x3d3d3")], id="jiao-both-ways"),
        pytest.param(
            "",
            "ju:d2d7d10 jiao:x3x3d3 ju:x1x2x3",
            [want(9, False, "ju:d2d7d10 jiao:x3x3d3 ju:x1x2x3")],
            id="eaten-groups-keep-huxi",
        ),
        pytest.param(
            "x6x6x6 d7d8d9 x5x5",
            "ti:d1d1d1d1 pao:x2x2x2x2 wei:d3d3d3 peng:x4x4x4",
            [
                want(
                    28,
                    False,
                    "ti:d1d1d1d1 pao:x2x2x2x2 wei:d3d3d3 peng:x4x4x4 kan:x6x6x6 ju:d7d8d9 jiang:x5x5",
                )
            ],
            id="seven-groups-all-kinds",
        ),
    ],
)
def test_r3_huxi_of_each_group_kind_in_an_arrangement(hand: str, table: str, expected: list[Shape]) -> None:
    assert analyse(hand, table) == expected


@pytest.mark.parametrize(
    "hand",
    [
        pytest.param("x9 x10 x1", id="no-wraparound"),
        pytest.param("x1 x2 d3", id="sequence-never-mixes-cases"),
        pytest.param("x2 x7 d10", id="er-qi-shi-never-mixes-cases"),
        pytest.param("x1 x3 x5", id="not-consecutive"),
        pytest.param("x8 x8 d9", id="jiao-is-one-point"),
        # Complete if the 坎/提 could be broken up, which R3 forbids:
        pytest.param("x2 x2 x2 x2 x7 x7 x10 x10 d2", id="ti-not-lent-to-er-qi-shi-and-jiao"),
        pytest.param("x1 x2 x2 x2 x3 x3 x4 x7 x10", id="kan-not-lent-to-er-qi-shi"),
        pytest.param("x7 x8 x8 x8 x9 d8", id="kan-not-lent-to-jiao"),
    ],
)
def test_r3_notgroups_of(hand: str) -> None:
    assert analyse(hand) == []
