"""R7.2 table B (``hunan``, 湖南): one multiplier, the largest that applies; 16小字/18大字 add on; no 海底.

Hands are built by hand (7 groups, 21 cards); each test also checks the counts the hand was built for.
"""

from __future__ import annotations

import pytest

from paohuzi.rules import find_preset
from paohuzi.scoring import Name, score

from .fan_hands import BIG, DUIDUI, RED, SMALL, arr, names

HUNAN = find_preset("hunan")



@pytest.mark.parametrize(
    ("red", "expected"),
    [
        (0, names(("黑乌", 5))),
        (1, names(("一点红", 3))),
        (4, names(("平胡", 1))),
        (7, names(("平胡", 1))),
        (9, names(("平胡", 1))),
        (10, names(("红和", 2))),
        (11, names(("红和", 2))),
        (12, names(("红和", 2))),
        (13, names(("红乌", 4))),
        (14, names(("红乌", 4))),
    ],
)
def test_r7_2_b_red_boundaries(red: int, expected: tuple[Name, ...]) -> None:
    """红和 10 ≤ red < 13; 一点红 1; 红乌 ≥ 13 (no +1 per red in table B); 黑乌 0; 4 and 7: nothing."""
    text, huxi, _big = RED[red]
    s = score(arr(text), HUNAN)
    assert (s.red, s.huxi, s.table) == (red, huxi, "hunan")
    assert s.names == expected
    assert s.points == ((huxi - 12) // 3) * s.fan


@pytest.mark.parametrize(
    ("red", "expected"),
    [
        (0, names(("乌对", 10))),
        (6, names(("对对胡", 4))),
        (10, names(("红对", 6))),
        (12, names(("红对", 6))),
        (13, names(("红乌对", 8))),
    ],
)
def test_r7_2_b_duidui_one_multiplier(red: int, expected: tuple[Name, ...]) -> None:
    """One multiplier, the largest that applies: 对对胡 4 alone, 红对 6, 红乌对 8, 乌对 10 — never a sum."""
    s = score(arr(DUIDUI[red]), HUNAN)
    assert (s.red, s.duidui) == (red, True)
    assert s.names == expected and s.fan == expected[0].fan


@pytest.mark.parametrize(
    ("big", "expected"),
    [(17, names(("平胡", 1))), (18, names(("18大字", 4))), (19, names(("18大字", 5)))],
)
def test_r7_2_b_dazi(big: int, expected: tuple[Name, ...]) -> None:
    """18大字: ×4 at 18 big cards, +1 per big card over 18."""
    s = score(arr(BIG[big]), HUNAN)
    assert (s.big, s.red) == (big, 3)
    assert s.names == expected


@pytest.mark.parametrize(
    ("small", "expected"),
    [
        (15, names(("平胡", 1))),
        (16, names(("16小字", 4))),
        (17, names(("16小字", 5))),
        (21, names(("16小字", 9))),
    ],
)
def test_r7_2_b_xiaozi(small: int, expected: tuple[Name, ...]) -> None:
    """16小字: ×4 at 16 small cards, +1 per small card over 16."""
    s = score(arr(SMALL[small]), HUNAN)
    assert (s.small, s.red) == (small, 3)
    assert s.names == expected


def test_r7_2_b_xiaozi_added_to_the_others() -> None:
    """ "如果还构成其他名堂的，在此基础上倍数累加": 黑乌 5 + 16小字 4 = 9 (added, not multiplied)."""
    s = score(arr("kan:x1x1x1 ju:x3x4x5 kan:x9x9x9 kan:x8x8x8 ju:x4x5x6 jiao:x6d6d6 kan:d1d1d1"), HUNAN)
    assert (s.red, s.small) == (0, 16)
    assert s.names == names(("黑乌", 5), ("16小字", 4)) and s.fan == 9


def test_r7_2_b_dazi_added_to_wudui() -> None:
    """乌对 10 + 18大字 4 = 14."""
    s = score(arr("kan:d1d1d1 kan:d3d3d3 kan:d4d4d4 peng:d5d5d5 wei:d9d9d9 kan:d8d8d8 kan:x3x3x3"), HUNAN)
    assert (s.red, s.big, s.duidui) == (0, 18, True)
    assert s.names == names(("乌对", 10), ("18大字", 4)) and s.fan == 14


@pytest.mark.parametrize("red", [1, 9, 11])
def test_r7_2_b_no_haidi(red: int) -> None:
    """Table B has no 海底: the flag is kept, the 番 do not change (decision, docs/scoring.md)."""
    text, _huxi, _big = RED[red]
    plain, haidi = score(arr(text), HUNAN), score(arr(text), HUNAN, haidi=True)
    assert haidi.names == plain.names and haidi.fan == plain.fan and haidi.haidi


def test_r7_2_b_zimo_and_tianhu() -> None:
    """自摸 +1 on the base; 天胡 is 自摸 and, without tianhu_double_huxi, does not double the 胡息."""
    text, huxi, _big = RED[11]
    s = score(arr(text), HUNAN, tianhu=True)
    assert s.names == names(("红和", 2), ("天胡", 0), ("自摸", 0))
    assert (s.base, s.points) == ((huxi - 12) // 3 + 1, 2 * ((huxi - 12) // 3 + 1))
