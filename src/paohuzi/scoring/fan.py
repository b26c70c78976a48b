"""The 名堂 tables, R7.2 and R9: which 名堂 a win has and the 番 each adds, under table A (``qq``), B (``hunan``),
C (``huayang``) — :data:`TABLES` — or the regional families' D (``changde``), E (``changde_qmt``) and F
(``shihuka``) and G (``liuhuqiang``, 番 multiply) — :data:`FAMILY_TABLES`, which also look at what the play
decided (天胡, 地胡, 听胡 …). How each table combines its 番 is :data:`COMBINE`. Used by :mod:`paohuzi.scoring`,
which re-exports :class:`Name` and the plain names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from paohuzi.rules import RuleSet

__all__ = [
    "COMBINE",
    "DIHU",
    "FAMILY_TABLES",
    "NAMES_EN",
    "PINGHU",
    "TABLES",
    "TIANHU",
    "ZIMO",
    "Counts",
    "FamilyCounts",
    "Name",
    "named",
]

#: The entries of :attr:`Score.names` that are not 名堂 (R7.2: shown, but they act on the base or are the
#: plain hand).
PINGHU = "平胡"
ZIMO = "自摸"
TIANHU = "天胡"
DIHU = "地胡"


@dataclass(frozen=True, slots=True)
class Name:
    """One line of a score's 名堂 list: a Chinese name (红胡, 对对胡, 自摸 …) and the 番 it adds. R7.2.

    ``str(name)`` is ``"红胡 2"``. 自摸 and 天胡 have 番 0: they act on the base (R7.1).
    """

    name: str
    fan: int

    def __str__(self) -> str:
        return f"{self.name} {self.fan}"


class Counts(NamedTuple):
    """What the 名堂 tables look at in a win (R7.2): its red, big and small cards, 对对胡, 海底."""

    red: int
    big: int
    small: int
    duidui: bool
    haidi: bool


# Names are immutable: each (name, 番) is built once and shared (a hot path: every scored win lists some).
_NAMES: dict[tuple[str, int], Name] = {}


def named(name: str, fan: int) -> Name:
    got = _NAMES.get((name, fan))
    if got is None:
        got = _NAMES[name, fan] = Name(name, fan)
    return got


def _haidi(names: list[Name], name: str) -> None:
    """海底 (tables A and C): +2 番 on a 名堂胡; a 平胡 goes from 1 to 2 番, i.e. 平胡 1 + 海底 1."""
    if names:
        names.append(named(name, 2))
    else:
        names.extend((named(PINGHU, 1), named(name, 1)))


def _fan_qq(c: Counts, rules: RuleSet) -> list[Name]:
    """Table A (QQ游戏): every 名堂 that applies, 番 add up. R7.2."""
    names: list[Name] = []
    red = c.red
    # The red 名堂 exclude each other: 0, 1, 4, 7, 10, 11–12, ≥ 13 (table A, the source's literal reading).
    if red in (4, 7) or 10 < red < 13:
        names.append(named("红胡", 2))
    elif red == 1:
        names.append(named("真点胡", 4))
    elif red == 10:
        names.append(named("假点胡", 3))
    elif red >= 13:
        names.append(named("红乌", 4 + red - 13))
    elif red == 0:
        names.append(named("乌胡", 5))
    if c.duidui:
        names.append(named("对对胡", 5))
    if c.big >= 18:
        names.append(named("大字胡", 6 + c.big - 18))
    if c.small >= 16:
        names.append(named("小字胡", 8 + c.small - 16))
    if c.haidi:
        _haidi(names, "海底胡")
    return names


def _fan_hunan(c: Counts, rules: RuleSet) -> list[Name]:
    """Table B (湖南): one multiplier, the largest that applies; 16小字 and 18大字 add on. R7.2.

    海底 is not a 名堂 of table B and adds nothing (decision, docs/scoring.md).
    """
    red, dd = c.red, c.duidui
    candidates = [
        named(name, fan)
        for name, fan, applies in (
            ("红和", 2, 10 <= red < 13),
            ("一点红", 3, red == 1),
            ("红乌", 4, red >= 13),
            ("对对胡", 4, dd),
            ("黑乌", 5, red == 0),
            ("红对", 6, dd and 10 <= red <= 12),
            ("红乌对", 8, dd and red >= 13),
            ("乌对", 10, dd and red == 0),
        )
        if applies
    ]
    names = [max(candidates, key=lambda n: n.fan)] if candidates else []
    # "如果还构成其他名堂的，在此基础上倍数累加": the 字 multipliers add to the one above (decision).
    if c.small >= 16:
        names.append(named("16小字", 4 + c.small - 16))
    if c.big >= 18:
        names.append(named("18大字", 4 + c.big - 18))
    return names


def _fan_huayang(c: Counts, rules: RuleSet) -> list[Name]:
    """Table C (花样): 番 add up; ``basic`` has the red 名堂 only, ``half`` adds 对对胡 and 海底. R7.2."""
    names: list[Name] = []
    red = c.red
    if 10 <= red < 13:
        names.append(named("红胡", 2))
    elif red == 1:
        names.append(named("点胡", 3))
    elif red >= 13:
        names.append(named("红乌", 4))
    elif red == 0:
        names.append(named("乌胡", 5))
    if rules.huayang_level == "half":
        if c.duidui:
            # "乌胡和对对胡同时出现算10番": 乌胡 5 + 对对胡 5 instead of 4 (decision: shown as two lines).
            names.append(named("对对胡", 5 if red == 0 else 4))
        if c.haidi:
            _haidi(names, "海底")
    return names


TABLES = {"qq": _fan_qq, "hunan": _fan_hunan, "huayang": _fan_huayang}


# ---------------------------------------------------------------------------------------------------
# R9: the regional families' tables D, E, F (番 add up; 平胡 1 when none applies)
# ---------------------------------------------------------------------------------------------------


class FamilyCounts(NamedTuple):
    """What tables D, E, F look at (R9.1, R9.2): the counts of :class:`Counts` and what the arrangement and the
    play decided.

    :ivar tianhu: 天胡 (R6.4, either kind). :ivar dihu: 地胡 (R9.1 decision). :ivar tinghu: 听胡 (R9.1).
    :ivar shuahou: 耍猴, the winner held exactly one hand card before the card won (R9.1).
    :ivar hanghangxi: 行行息, all 7 门子 score 胡息 > 0 (so no 将 pair) (R9.1).
    :ivar tuanyuan: 团圆, how many points are held as 跑/提 in both cases (R9.1).
    :ivar drawn_before: 荒庄 in a row just before this hand (黄番, R9.1).
    """

    red: int
    big: int
    small: int
    duidui: bool
    haidi: bool
    tianhu: bool
    dihu: bool
    tinghu: bool
    shuahou: bool
    hanghangxi: bool
    tuanyuan: int
    drawn_before: int


def _fan_changde(c: FamilyCounts, rules: RuleSet) -> list[Name]:
    """Table D (常德 红黑点, R9.1): the red 名堂 exclude each other; 对对胡 with option ``duiduihu``; 番 add."""
    names: list[Name] = []
    red = c.red
    if 10 <= red <= 12:
        names.append(named("红胡", 2))
    elif red >= 13:
        names.append(named("红乌", 4))
    elif red == 1:
        names.append(named("点胡", 3))
    elif red == 0:
        names.append(named("黑胡", 5))
    if rules.duiduihu and c.duidui:
        names.append(named("对对胡", 4))
    return names


def _fan_changde_qmt(c: FamilyCounts, rules: RuleSet) -> list[Name]:
    """Table E (常德 全名堂, R9.1): every 名堂 that applies, 番 add up (天胡 or 地胡 with 听胡 included)."""
    names: list[Name] = []
    red = c.red
    if red >= 10:
        names.append(named("红胡", 3 + red - 10))
    elif red == 1:
        names.append(named("点胡", 6))
    elif red == 0:
        names.append(named("黑胡", 8))
    if c.big >= 18:
        names.append(named("大字胡", 8 + c.big - 18))
    if c.small >= 16:
        names.append(named("小字胡", 10 + c.small - 16))
    for name, fan, applies in (
        ("对对胡", 8, c.duidui),
        ("海底胡", 6, c.haidi),
        (TIANHU, 6, c.tianhu),
        (DIHU, 6, c.dihu),
        ("听胡", 6, c.tinghu),
        ("耍猴", 8, rules.shuahou and c.shuahou),
        ("行行息", 8, rules.hanghangxi and c.hanghangxi),
        ("团圆", 8 * c.tuanyuan, rules.tuanyuan and c.tuanyuan > 0),
        ("黄番", 1 + c.drawn_before, rules.huangfan and c.drawn_before >= 1),  # R9.1 decision: 1 + n, n ≥ 1
    ):
        if applies:
            names.append(named(name, fan))
    return names


def _fan_shihuka(c: FamilyCounts, rules: RuleSet) -> list[Name]:
    """Table F (衡阳十胡卡, R9.2): the red 名堂 with ``hongheidian``; 天胡, 地胡, 海底 2 each with ``tiandi_haidi``."""
    names: list[Name] = []
    red = c.red
    if rules.hongheidian:
        if 10 <= red <= 12:
            names.append(named("红胡", 2))  # decision (R9.2): 2, one source shows 3
        elif red >= 13:
            names.append(named("红乌", 5))
        elif red == 1:
            names.append(named("一点红", 3))
        elif red == 0:
            names.append(named("黑胡", 5))
    if rules.tiandi_haidi:
        for name, applies in ((TIANHU, c.tianhu), (DIHU, c.dihu), ("海底", c.haidi)):
            if applies:
                names.append(named(name, 2))
    return names


def _fan_liuhuqiang(c: FamilyCounts, rules: RuleSet) -> list[Name]:
    """Table G (衡阳六胡抢, R9.3), with ``hongheidian``: the red 名堂 exclude each other and multiply (平胡 1).
    三息一囤: 小红 8–9 × 2, 大红 ≥ 10 × 4, 一点红 × 3, 黑胡 × 5; 一息一囤: 大红, 一点红, 黑胡 × 2 each, no 小红."""
    if not rules.hongheidian:
        return []
    red = c.red
    one_xi = rules.tun == "1xi1tun"
    if red >= 10:
        return [named("大红", 2 if one_xi else 4)]
    if 8 <= red <= 9 and not one_xi:
        return [named("小红", 2)]
    if red == 1:
        return [named("一点红", 2 if one_xi else 3)]
    if red == 0:
        return [named("黑胡", 2 if one_xi else 5)]
    return []


FAMILY_TABLES = {
    "changde": _fan_changde,
    "changde_qmt": _fan_changde_qmt,
    "shihuka": _fan_shihuka,
    "liuhuqiang": _fan_liuhuqiang,
}

#: How each table combines its 名堂 (R7.2, R9): table B takes the largest (its 字 名堂 add on), table G multiplies
#: (R9.3), the others add.
COMBINE = {
    "qq": "add", "hunan": "largest", "huayang": "add", "changde": "add", "changde_qmt": "add", "shihuka": "add",
    "liuhuqiang": "multiply",
}  # fmt: skip

#: The English name of every 名堂 and of the other lines of a score (the web client's words agree).
NAMES_EN = {
    PINGHU: "Plain win",
    ZIMO: "Self-drawn",
    TIANHU: "Heavenly win",
    DIHU: "Earthly win",
    "红胡": "Red win",
    "真点胡": "True one-red",
    "假点胡": "False one-red",
    "点胡": "One-red win",
    "一点红": "One red",
    "红乌": "All red",
    "乌胡": "Black win",
    "黑胡": "Black win",
    "对对胡": "All pungs",
    "大字胡": "Big characters",
    "小字胡": "Small characters",
    "海底胡": "Last-card win",
    "海底": "Last card",
    "红和": "Red win",
    "黑乌": "Black win",
    "红对": "Red pungs",
    "红乌对": "All-red pungs",
    "乌对": "Black pungs",
    "16小字": "16 small",
    "18大字": "18 big",
    "听胡": "Ready from the deal",
    "耍猴": "Monkey (single wait)",
    "行行息": "Every group scores",
    "团圆": "Reunion",
    "黄番": "Drawn-hands bonus",
    "小红": "Some red",
    "大红": "Many red",
}
