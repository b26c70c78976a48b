"""R7.2 table C (``huayang``, 花样): 番 add up; level ``basic`` (red 名堂) or ``half`` (+ 对对胡, 海底).

Hands are built by hand (7 groups, 21 cards); each test also checks the counts the hand was built for.
"""

from __future__ import annotations

import pytest

from paohuzi.rules import find_preset
from paohuzi.scoring import Name, score

from .fan_hands import DUIDUI, RED, arr, names

HALF = find_preset("huayang")
BASIC = HALF.with_options(huayang_level="basic")



@pytest.mark.parametrize("rules", [HALF, BASIC], ids=["half", "basic"])
@pytest.mark.parametrize(
    ("red", "expected"),
    [
        (0, names(("乌胡", 5))),
        (1, names(("点胡", 3))),
        (4, names(("平胡", 1))),
        (7, names(("平胡", 1))),
        (9, names(("平胡", 1))),
        (10, names(("红胡", 2))),
        (11, names(("红胡", 2))),
        (12, names(("红胡", 2))),
        (13, names(("红乌", 4))),
        (14, names(("红乌", 4))),
    ],
)
def test_r7_2_c_red_boundaries(rules: object, red: int, expected: tuple[Name, ...]) -> None:
    """Basic 花样: 红胡 10 ≤ red < 13, 点胡 1, 红乌 ≥ 13 (flat 4), 乌胡 0 — at both levels."""
    text, huxi, _big = RED[red]
    s = score(arr(text), rules)  # type: ignore[arg-type]
    assert (s.red, s.huxi, s.table) == (red, huxi, "huayang")
    assert s.names == expected
    assert s.points == ((huxi - 12) // 3) * s.fan  # 平胡: points = base


@pytest.mark.parametrize(
    ("red", "half", "basic"),
    [
        (0, names(("乌胡", 5), ("对对胡", 5)), names(("乌胡", 5))),
        (6, names(("对对胡", 4)), names(("平胡", 1))),
        (12, names(("红胡", 2), ("对对胡", 4)), names(("红胡", 2))),
        (13, names(("红乌", 4), ("对对胡", 4)), names(("红乌", 4))),
    ],
)
def test_r7_2_c_duidui(red: int, half: tuple[Name, ...], basic: tuple[Name, ...]) -> None:
    """对对胡 4 番 at level half only, added to the others; 乌胡 + 对对胡 together count 10 ("算10番")."""
    hand = arr(DUIDUI[red])
    s = score(hand, HALF)
    assert (s.red, s.duidui) == (red, True)
    assert s.names == half
    assert score(hand, BASIC).names == basic


def test_r7_2_c_wudui_counts_ten() -> None:
    assert score(arr(DUIDUI[0]), HALF).fan == 10


def test_r7_2_c_haidi_on_pinghu() -> None:
    """海底 on a 平胡 (level half): 番 1 → 2 ("平胡海底算1番" on top of the plain 1)."""
    text, huxi, _big = RED[9]
    s = score(arr(text), HALF, haidi=True)
    assert s.names == names(("平胡", 1), ("海底", 1))
    assert (s.fan, s.points) == (2, 2 * ((huxi - 12) // 3))


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        (RED[11][0], names(("红胡", 2), ("海底", 2))),
        (DUIDUI[0], names(("乌胡", 5), ("对对胡", 5), ("海底", 2))),
        (DUIDUI[6], names(("对对胡", 4), ("海底", 2))),
    ],
)
def test_r7_2_c_haidi_on_mingtang(hand: str, expected: tuple[Name, ...]) -> None:
    """海底 on a 名堂胡: +2 番."""
    s = score(arr(hand), HALF, haidi=True)
    assert s.names == expected and s.fan == sum(n.fan for n in expected)


def test_r7_2_c_basic_has_no_haidi() -> None:
    text, _, _big = RED[11]
    assert score(arr(text), BASIC, haidi=True).names == names(("红胡", 2))
    text, _, _big = RED[9]
    assert score(arr(text), BASIC, haidi=True).names == names(("平胡", 1))


def test_r7_2_c_no_zi_mingtang() -> None:
    """Table C has no 大字/小字 名堂."""
    all_small = arr("kan:x1x1x1 ju:x3x4x5 kan:x9x9x9 kan:x8x8x8 ju:x2x7x10 ju:x4x5x6 peng:x6x6x6")
    s = score(all_small, HALF)
    assert (s.small, s.names) == (21, names(("平胡", 1)))


def test_r7_2_c_zimo_tianhu() -> None:
    text, huxi, _big = RED[13]
    s = score(arr(text), HALF, zimo=True, tianhu=True)
    assert s.names == names(("红乌", 4), ("天胡", 0), ("自摸", 0))
    assert (s.base, s.points) == ((huxi - 12) // 3 + 1, 4 * ((huxi - 12) // 3 + 1))
