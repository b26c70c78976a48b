"""R9.1 tables D (``changde``) and E (``changde_qmt``), R9.2 table F (``shihuka``): one test per 名堂, their
boundaries, how they add up, 平胡 1 only when nothing applies, and the options that switch them.

Hands come from tests/rules/fan_hands.py (each checks its red/big/small counts); facts (天胡, 地胡, 听胡, 黄番) are
given as the engine gives them.
"""

from __future__ import annotations

import pytest

from paohuzi.analysis import Source
from paohuzi.cards import Card, parse_cards
from paohuzi.groups import Group
from paohuzi.rules import find_preset
from paohuzi.scoring import Name, PlayFacts, evaluate, score

from .fan_hands import BIG, DUIDUI, RED, SMALL, arr, names

D = find_preset("changde")
E = find_preset("changde_qmt")
F = find_preset("shihuka")


def _red(red: int) -> tuple[str, int]:
    text, huxi, big = RED[red]
    return text, huxi


@pytest.mark.parametrize(
    ("red", "expected"),
    [
        (0, names(("黑胡", 5))),
        (1, names(("点胡", 3))),
        (4, names(("平胡", 1))),
        (9, names(("平胡", 1))),
        (10, names(("红胡", 2))),
        (12, names(("红胡", 2))),
        (13, names(("红乌", 4))),
        (14, names(("红乌", 4))),
    ],
)
def test_r9_1_table_d_red(red: int, expected: tuple[Name, ...]) -> None:
    """Table D: 红胡 10–12: 2 · 红乌 ≥ 13: 4 (no +1 per red) · 点胡 1: 3 · 黑胡 0: 5; else 平胡 1."""
    s = score(arr(_red(red)[0]), D)
    assert s.red == red and s.names == expected and s.fan == expected[0].fan
    assert (s.combine, s.family, s.table) == ("add", "changde", "changde")


def test_r9_1_table_d_duiduihu_adds_and_is_an_option() -> None:
    """对对胡 4, adding to a red 名堂; option ``duiduihu`` (default on) switches it off."""
    s = score(arr(DUIDUI[12]), D)
    assert s.names == names(("红胡", 2), ("对对胡", 4)) and s.fan == 6
    assert score(arr(DUIDUI[6]), D).names == names(("对对胡", 4))
    assert score(arr(DUIDUI[6]), D.with_options(duiduihu=False)).names == names(("平胡", 1))


def test_r9_1_table_d_has_no_zi_haidi_or_tianhu() -> None:
    """Table D has no 大字/小字/海底 名堂, and 天胡 is shown with 番 0."""
    assert score(arr(BIG[19]), D, haidi=True).names == names(("平胡", 1))
    assert score(arr(SMALL[21]), D).names == names(("平胡", 1))
    assert score(arr(_red(4)[0]), D, tianhu=True).names == names(("平胡", 1), ("天胡", 0), ("自摸", 0))


@pytest.mark.parametrize(
    ("red", "expected"),
    [
        (0, names(("黑胡", 8))),
        (1, names(("点胡", 6))),
        (9, names(("平胡", 1))),
        (10, names(("红胡", 3))),
        (11, names(("红胡", 4))),
        (12, names(("红胡", 5))),
        (13, names(("红胡", 6))),
        (14, names(("红胡", 7))),
    ],
)
def test_r9_1_table_e_red(red: int, expected: tuple[Name, ...]) -> None:
    """Table E: 红胡 red ≥ 10: 3 + (red − 10) · 点胡 1: 6 · 黑胡 0: 8."""
    s = score(arr(_red(red)[0]), E)
    assert s.red == red and s.names == expected


def test_r9_1_table_e_dazi() -> None:
    """大字胡 big ≥ 18: 8 + (big − 18)."""
    assert score(arr(BIG[17]), E).names == names(("平胡", 1))
    assert score(arr(BIG[18]), E).names == names(("大字胡", 8))
    assert score(arr(BIG[19]), E).names == names(("大字胡", 9))


def test_r9_1_table_e_xiaozi() -> None:
    """小字胡 small ≥ 16: 10 + (small − 16)."""
    assert score(arr(SMALL[15]), E).names == names(("平胡", 1))
    assert score(arr(SMALL[16]), E).names == names(("小字胡", 10))
    assert score(arr(SMALL[17]), E).names == names(("小字胡", 11))


def test_r9_1_table_e_duiduihu() -> None:
    """对对胡 8, always on in table E, adding to 红胡."""
    assert score(arr(DUIDUI[6]), E).names == names(("对对胡", 8))
    assert score(arr(DUIDUI[12]), E).names == names(("红胡", 5), ("对对胡", 8))


def test_r9_1_table_e_haidi() -> None:
    """海底胡 6."""
    assert score(arr(_red(4)[0]), E, haidi=True).names == names(("海底胡", 6))


def test_r9_1_table_e_tianhu() -> None:
    """天胡 6 (either kind), a 名堂 here (no 天胡 0 line); counts as 自摸."""
    s = score(arr(_red(4)[0]), E, tianhu=True)
    assert s.names == names(("天胡", 6), ("自摸", 0)) and s.fan == 6 and s.zimo


def test_r9_1_table_e_dihu() -> None:
    """地胡 6."""
    assert score(arr(_red(4)[0]), E, facts=PlayFacts(dihu=True)).names == names(("地胡", 6))


def test_r9_1_table_e_tinghu() -> None:
    """听胡 6, adding up with 天胡 or 地胡 (R9.1 decision)."""
    assert score(arr(_red(4)[0]), E, facts=PlayFacts(tinghu=True)).names == names(("听胡", 6))
    both = score(arr(_red(0)[0]), E, facts=PlayFacts(dihu=True, tinghu=True))
    assert both.names == names(("黑胡", 8), ("地胡", 6), ("听胡", 6)) and both.fan == 20
    heaven = score(arr(_red(4)[0]), E, tianhu=True, facts=PlayFacts(tinghu=True))
    assert heaven.names == names(("天胡", 6), ("听胡", 6), ("自摸", 0))


def test_r9_1_table_e_hanghangxi() -> None:
    """行行息 8 (option ``hanghangxi``): all 7 门子 score 胡息 > 0, so no 将 pair; off by default."""
    every = "kan:x1x1x1 kan:d1d1d1 ju:x1x2x3 kan:d9d9d9 kan:x8x8x8 ju:d2d7d10 peng:x5x5x5"
    assert all(g.huxi > 0 for g in arr(every).groups)
    assert score(arr(every), E).names == names(("平胡", 1))
    assert score(arr(every), E.with_options(hanghangxi=True)).names == names(("行行息", 8))
    one_zero = "kan:x1x1x1 kan:d1d1d1 ju:x1x2x3 kan:d9d9d9 kan:x8x8x8 ju:d2d7d10 ju:x4x5x6"
    assert score(arr(one_zero), E.with_options(hanghangxi=True)).names == names(("平胡", 1))
    with_pair = "ti:x3x3x3x3 kan:d1d1d1 ju:x1x2x3 kan:d9d9d9 kan:x8x8x8 ju:d2d7d10 jiang:x5x5"
    assert score(arr(with_pair), E.with_options(hanghangxi=True)).names == names(("平胡", 1))


def test_r9_1_table_e_shuahou() -> None:
    """耍猴 8 (option ``shuahou``): the winner held exactly one hand card before the card won (evaluate decides;
    here through the engine's facts, as a wait)."""
    table = [Group.parse(g) for g in ("ti:x1x1x1x1", "ti:d3d3d3d3", "ti:x9x9x9x9", "peng:x4x4x4")]
    table += [Group.parse(g) for g in ("peng:d5d5d5", "wei:x6x6x6")]
    on = E.with_options(shuahou=True)
    win = evaluate(parse_cards("x8"), table, Card.X8, Source.SELF, on, facts=PlayFacts(tinghu=False))
    assert win is not None and ("耍猴", 8) in [(n.name, n.fan) for n in win.score.names]
    plain = evaluate(parse_cards("x8"), table, Card.X8, Source.SELF, E, facts=PlayFacts(tinghu=False))
    assert plain is not None and "耍猴" not in [n.name for n in plain.score.names]


def test_r9_1_table_e_tuanyuan() -> None:
    """团圆 8 per point held as 跑/提 in both cases (option ``tuanyuan``)."""
    one = "pao:x8x8x8x8 ti:d8d8d8d8 jiang:x1x1 kan:d1d1d1 ju:x2x7x10 ju:d3d4d5 kan:x9x9x9"
    two = "pao:x8x8x8x8 ti:d8d8d8d8 ti:x3x3x3x3 pao:d3d3d3d3 jiang:x1x1 kan:d1d1d1 kan:x7x7x7"
    on = E.with_options(tuanyuan=True)
    assert score(arr(one), E).names == names(("平胡", 1))
    assert score(arr(one), on).names == names(("团圆", 8))
    assert score(arr(two), on).names == names(("对对胡", 8), ("团圆", 16))
    half = "pao:x8x8x8x8 kan:d8d8d8 jiang:x1x1 kan:d1d1d1 ju:x2x7x10 ju:d3d4d5 kan:x9x9x9"
    assert score(arr(half), on).names == names(("平胡", 1))


@pytest.mark.parametrize(("n", "expected"), [(0, names(("平胡", 1))), (1, names(("黄番", 2))), (2, names(("黄番", 3)))])
def test_r9_1_table_e_huangfan(n: int, expected: tuple[Name, ...]) -> None:
    """黄番 1 + n after n ≥ 1 drawn hands in a row (option ``huangfan``); none at n = 0; it replaces 平胡 1."""
    on = E.with_options(huangfan=True)
    assert score(arr(_red(4)[0]), on, facts=PlayFacts(drawn_before=n)).names == expected
    assert score(arr(_red(4)[0]), E, facts=PlayFacts(drawn_before=n)).names == names(("平胡", 1))


def test_r9_1_table_e_everything_adds() -> None:
    """All 名堂 of table E add up (红胡 + 对对胡 + 海底胡 + 天胡 + 听胡 + 黄番)."""
    on = E.with_options(huangfan=True)
    s = score(arr(DUIDUI[12]), on, haidi=True, tianhu=True, facts=PlayFacts(tinghu=True, drawn_before=1))
    want = names(("红胡", 5), ("对对胡", 8), ("海底胡", 6), ("天胡", 6), ("听胡", 6), ("黄番", 2), ("自摸", 0))
    assert s.names == want
    assert s.fan == 33


@pytest.mark.parametrize(
    ("red", "expected"),
    [
        (0, names(("黑胡", 5))),
        (1, names(("一点红", 3))),
        (9, names(("平胡", 1))),
        (10, names(("红胡", 2))),
        (12, names(("红胡", 2))),
        (13, names(("红乌", 5))),
        (14, names(("红乌", 5))),
    ],
)
def test_r9_2_table_f_red(red: int, expected: tuple[Name, ...]) -> None:
    """Table F (红黑点): 红胡 10–12: 2 (decision) · 红乌 ≥ 13: 5 · 一点红 1: 3 · 黑胡 0: 5."""
    s = score(arr(_red(red)[0]), F)
    assert s.red == red and s.names == expected and (s.family, s.combine) == ("shihuka", "add")


def test_r9_2_table_f_without_hongheidian_is_always_pinghu() -> None:
    off = F.with_options(hongheidian=False)
    assert all(score(arr(RED[r][0]), off).names == names(("平胡", 1)) for r in RED)


def test_r9_2_table_f_tiandi_haidi() -> None:
    """天胡 2, 地胡 2, 海底 2 with option ``tiandi_haidi`` (default off), adding up with the others."""
    on = F.with_options(tiandi_haidi=True)
    text = _red(11)[0]
    assert score(arr(text), F, haidi=True).names == names(("红胡", 2))
    assert score(arr(text), on, haidi=True).names == names(("红胡", 2), ("海底", 2))
    assert score(arr(text), on, facts=PlayFacts(dihu=True)).names == names(("红胡", 2), ("地胡", 2))
    s = score(arr(text), on, tianhu=True)
    assert s.names == names(("红胡", 2), ("天胡", 2), ("自摸", 0)) and s.fan == 4
    assert score(arr(text), F, tianhu=True).names == names(("红胡", 2), ("天胡", 0), ("自摸", 0))
    assert score(arr(text), F, facts=PlayFacts(dihu=True)).names == names(("红胡", 2))


def test_r9_2_table_f_has_no_duiduihu_or_zi() -> None:
    assert score(arr(DUIDUI[6]), F).names == names(("平胡", 1))
    assert score(arr(BIG[19]), F).names == names(("平胡", 1))
