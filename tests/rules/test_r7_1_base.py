"""R7.1 base (底/囤/等): floor((胡息 − 12) / 3), +1 for 自摸, 天胡 doubling 胡息 (``tianhu_double_huxi``)."""

from __future__ import annotations

import pytest

from paohuzi.analysis import Arrangement
from paohuzi.groups import Group
from paohuzi.rules import find_preset
from paohuzi.scoring import Name, base_of, score


def arr(text: str, *, loose: tuple = (), duidui: bool | None = None) -> Arrangement:
    """An arrangement built by hand from ``kind:cards`` groups; 胡息 is the groups' sum (R3)."""
    groups = tuple(Group.parse(t) for t in text.split())
    if duidui is None:
        duidui = all(g.kind.same_kind for g in groups) and not loose
    return Arrangement(groups, sum(g.huxi for g in groups), duidui, loose)


# A 平胡 for every table (red 3, big 9, small 12): 18 胡息.
PINGHU_18 = "ju:x4x5x6 kan:d1d1d1 ju:x3x4x5 ju:d3d4d5 ju:x2x7x10 kan:d9d9d9 kan:x8x8x8"


@pytest.mark.parametrize(
    ("huxi", "base"),
    [(15, 1), (16, 1), (17, 1), (18, 2), (19, 2), (20, 2), (21, 3), (23, 3), (24, 4), (30, 6), (57, 15)],
)
def test_r7_1_base_table(huxi: int, base: int) -> None:
    """The seeds' worked examples: 15–17 胡息 → 1, 18–20 → 2 ("18胡息为2等20胡息也为2等"), 21–23 → 3 …"""
    assert base_of(huxi) == base
    assert base_of(huxi, zimo=True) == base + 1


@pytest.mark.parametrize(("huxi", "base"), [(0, 0), (3, 0), (12, 0), (14, 0)])
def test_r7_1_base_never_negative(huxi: int, base: int) -> None:
    """Decision (docs/scoring.md): below 15 胡息 (a 天胡, or a lowered min_huxi) the base is 0, never < 0."""
    assert base_of(huxi) == base
    assert base_of(huxi, zimo=True) == base + 1


@pytest.mark.parametrize(
    ("huxi", "base"),
    # floor((2 × 胡息 − 12) / 3) + 1 for 自摸 (天胡 is 自摸).
    [
        (3, 0 + 1),
        (6, 0 + 1),
        (7, 0 + 1),
        (8, 1 + 1),
        (15, 6 + 1),
        (16, 6 + 1),
        (24, 12 + 1),
        (27, 14 + 1),
        (30, 16 + 1),
        (36, 20 + 1),
    ],
)
def test_r7_1_tianhu_doubled(huxi: int, base: int) -> None:
    assert base_of(huxi, zimo=True, doubled=True) == base


def test_r7_1_score_base_and_points() -> None:
    hand = arr(PINGHU_18)
    assert hand.huxi == 18
    s = score(hand, find_preset("qq"))
    assert (s.base, s.fan, s.points, s.names) == (2, 1, 2, (Name("平胡", 1),))
    assert not s.zimo and not s.tianhu and not s.haidi and s.pinghu


def test_r7_1_zimo_adds_one_to_the_base() -> None:
    s = score(arr(PINGHU_18), find_preset("qq"), zimo=True)
    assert (s.base, s.fan, s.points) == (3, 1, 3)
    assert s.names == (Name("平胡", 1), Name("自摸", 0))
    assert s.zimo


@pytest.mark.parametrize("preset", ["qq", "hengyang"])
def test_r7_1_tianhu_double_huxi(preset: str) -> None:
    """QQ: 天胡 base = floor((2 × 胡息 − 12) / 3), +1 for 自摸; 番 unchanged ("(息数*2－12)÷3×番数")."""
    s = score(arr(PINGHU_18), find_preset(preset), tianhu=True)
    assert s.huxi == 18  # the 胡息 shown stay as counted; only the base doubles them
    assert (s.base, s.fan, s.points) == ((36 - 12) // 3 + 1, 1, 9)
    assert s.names == (Name("平胡", 1), Name("天胡", 0), Name("自摸", 0))
    assert s.zimo and s.tianhu


@pytest.mark.parametrize("preset", ["hunan", "huayang"])
def test_r7_1_tianhu_without_doubling(preset: str) -> None:
    """Without ``tianhu_double_huxi`` a 天胡 is an ordinary 自摸 base."""
    s = score(arr(PINGHU_18), find_preset(preset), tianhu=True)
    assert (s.base, s.points) == (3, 3)
    assert s.zimo and s.tianhu


def test_r7_1_tianhu_counts_as_zimo_even_if_not_said() -> None:
    assert score(arr(PINGHU_18), find_preset("qq"), zimo=False, tianhu=True) == score(
        arr(PINGHU_18), find_preset("qq"), zimo=True, tianhu=True
    )


def test_r7_1_tianhu_with_mingtang() -> None:
    """The seed's formula for a 天胡 that is also a 名堂胡: (息数 × 2 − 12) ÷ 3 (+1 自摸) × 番."""
    red11 = arr("peng:x7x7x7 ju:x2x7x10 ju:d2d7d10 ju:x1x2x3 ju:x8x9x10 kan:d4d4d4 kan:d9d9d9")
    s = score(red11, find_preset("qq"), tianhu=True)
    assert (s.huxi, s.red, s.fan, s.base, s.points) == (25, 11, 2, 13, 26)


def test_r7_1_low_huxi_tianhu_scores_zimo_only() -> None:
    """A 天胡 has no 胡息 minimum (R6.4); its base is then just the 自摸 point."""
    s = score(
        arr("ju:x3x4x5 ju:x4x5x6 ju:d3d4d5 ju:d4d5d6 ju:x6x7x8 ju:d6d7d8 kan:x9x9x9"),
        find_preset("qq"),
        tianhu=True,
    )
    assert (s.huxi, s.base) == (3, 1)
