"""The 名堂 tables, R7.2: which 名堂 a win has and the 番 each adds, under table A (``qq``), B (``hunan``) or
C (``huayang``). Used by :func:`paohuzi.scoring.score`, which re-exports :class:`Name` and the plain names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from paohuzi.rules import RuleSet

__all__ = ["PINGHU", "TABLES", "TIANHU", "ZIMO", "Counts", "Name", "named"]

#: The entries of :attr:`Score.names` that are not 名堂 (R7.2: shown, but they act on the base or are the
#: plain hand).
PINGHU = "平胡"
ZIMO = "自摸"
TIANHU = "天胡"


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
