"""What scoring answers (R7, R9): :class:`Score`, :class:`Win` and :class:`WaitDict`, and their JSON forms.

Re-exported by :mod:`paohuzi.scoring` (import them from there).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypedDict

from paohuzi import analysis
from paohuzi.analysis import Arrangement
from paohuzi.cards import TOKENS, Card
from paohuzi.groups import Group
from paohuzi.scoring.fan import PINGHU, Name

__all__ = ["Score", "WaitDict", "Win", "group_dict", "new_score", "new_win"]


@dataclass(frozen=True, slots=True)
class Score:
    """The score of one win (R7): 名堂 with their 番, the base, the points.

    :ivar names: the 名堂 in the order of the preset's table, then 海底 where it adds 番, then 天胡 and
        自摸 (番 0). A hand without 名堂 lists ``平胡 1``. The 番 of the names always add up to :attr:`fan`.
    :ivar fan: 番, the multiplier (R7.2); 1 for a plain 平胡.
    :ivar base: 底 (R7.1), with the 自摸 +1 when the rule set's ``zimo`` is ``plus_one`` (R8.1): what 番
        multiplies. For a regional family (R9): 囤 + 醒, then ``base_bonus``, then the 自摸 +1 under ``plus_one``.
    :ivar points: base × 番 (R7.3), × 2 under ``zimo`` ``double`` for a 自摸, then at most the ``cap``
        (R8.1).
    :ivar huxi: the arrangement's 胡息 (not doubled for 天胡; the doubling is in the base).
    :ivar zimo: 自摸 (a 天胡 always counts as 自摸, R6.4).
    :ivar haidi: 海底, the card won was the last card of the stock (R6.3).
    :ivar tianhu: 天胡 (R6.4).
    :ivar red: red cards (红字) among the winner's cards; :ivar big: 大字; :ivar small: 小字.
    :ivar duidui: the arrangement is 对对 (every group of one kind).
    :ivar table: the 名堂 table used: ``qq`` (A), ``hunan`` (B), ``huayang`` (C), or a regional family's
        ``changde`` (D), ``changde_qmt`` (E), ``shihuka`` (F).
    :ivar zimo_double: 自摸翻倍 (R8.1 ``zimo`` ``double``) doubled the points; not a 番.
    :ivar uncapped: the points before 封顶 (R8.1 ``cap``); equal to :attr:`points` when the cap did not bite
        (:func:`score` always sets it).
    :ivar tun: 囤 — the family's 囤 function of the 胡息 (R9.2), for the classic family the R7.1 base before
        自摸's +1.
    :ivar xing: 醒, copies of the 醒 card in the winner's groups and pair (R9.4); 0 without 醒.
    :ivar xing_card: the 醒 card (R9.4), or None.
    :ivar combine: how the 名堂 combine: ``add``, ``multiply`` or ``largest`` (table B).
    :ivar family: the rule family (R9): ``classic``, ``changde``, ``shihuka``.
    :ivar base_bonus: the R9.2 底分 applied to 囤 + 醒: ``none``, ``plus_one`` or ``double``.
    """

    names: tuple[Name, ...]
    fan: int
    base: int
    points: int
    huxi: int
    zimo: bool = False
    haidi: bool = False
    tianhu: bool = False
    red: int = 0
    big: int = 0
    small: int = 0
    duidui: bool = False
    table: str = "qq"
    zimo_double: bool = False
    uncapped: int = 0
    tun: int = 0
    xing: int = 0
    xing_card: Card | None = None
    combine: str = "add"
    family: str = "classic"
    base_bonus: str = "none"

    @property
    def capped(self) -> bool:
        """封顶 (R8.1 ``cap``) lowered the points."""
        return self.points < self.uncapped

    @property
    def pinghu(self) -> bool:
        """平胡: no 名堂 (海底, 自摸 and 天胡 are not 名堂, R7.2)."""
        return any(n.name == PINGHU for n in self.names)

    def __str__(self) -> str:
        names = ", ".join(str(n) for n in self.names)
        text = f"{self.huxi} 胡息, {names}: 番 {self.fan} × 底 {self.base}"
        if self.zimo_double:
            text += " × 2 (自摸翻倍)"
        if self.capped:
            text += f" = {self.uncapped}, 封顶 {self.points}"
            return text
        return f"{text} = {self.points}"


@dataclass(frozen=True, slots=True)
class Win:
    """A winning hand: the arrangement that scores best (R6.2) and its score."""

    arrangement: Arrangement
    score: Score

    @property
    def huxi(self) -> int:
        """胡息 of the arrangement."""
        return self.arrangement.huxi

    @property
    def points(self) -> int:
        """Points of the win (base × 番)."""
        return self.score.points

    def _key(self) -> tuple[int, int]:
        """R6.2: the better of two wins scores more points, then more 胡息."""
        return (self.score.points, self.arrangement.huxi)

    def better_than(self, other: Win | None) -> bool:
        """True if this win beats ``other`` (or there is none) by R6.2: more points, then more 胡息."""
        return other is None or self._key() > other._key()  # noqa: SLF001 — the same class's R6.2 order

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of a win, the one every layer sends (``paohuzi analyze``, the engine's outcome).

        ``{"huxi", "groups": [{"kind", "cards", "huxi"}, …], "names": [{"name", "fan"}, …], "fan", "base",
        "points", "zimo"}``; then, only when the R8.1 options changed the points, ``"zimo_double": true``
        (自摸翻倍 applied) and ``"uncapped"`` (the points before 封顶); then ``"loose"`` when a 天胡's
        partial arrangement left cards out (R6.4); then, for a regional family only (R9), ``"tun"``, ``"xing"``,
        ``"xing_card"`` (a card or null) and ``"combine"``. A wait is written by :func:`waits_to_dicts`.
        """
        s = self.score
        out: dict[str, Any] = {
            "huxi": self.arrangement.huxi,
            "groups": [group_dict(g) for g in self.arrangement.groups],
            "names": [{"name": n.name, "fan": n.fan} for n in s.names],
            "fan": s.fan,
            "base": s.base,
            "points": s.points,
            "zimo": s.zimo,
        }
        if s.zimo_double:
            out["zimo_double"] = True
        if s.capped:
            out["uncapped"] = s.uncapped
        if self.arrangement.loose:
            out["loose"] = [str(c) for c in self.arrangement.loose]
        if s.family != "classic":  # R9 (issue 29): the classic families' answers stay as they were
            out["tun"] = s.tun
            out["xing"] = s.xing
            out["xing_card"] = None if s.xing_card is None else TOKENS[s.xing_card]
            out["combine"] = s.combine
        return out


# Score and Win built by the accelerator's compiled constructor when it is loaded (the same objects).
new_score: Callable[..., Score] = analysis.compiled_constructor(Score) or Score
new_win: Callable[..., Win] = analysis.compiled_constructor(Win) or Win


class WaitDict(TypedDict):
    """The JSON form of one wait (听牌): the card, and the 胡息 and points of its best win."""

    card: str
    huxi: int
    points: int



# Their wire form's parts (Group.to_dict), for Win.to_dict: a fresh dict and list each time, as to_dict gives.
_WIRE = {id(g): (g.kind.value, [TOKENS[c] for c in g.cards], g.huxi) for g in analysis.SHARED_GROUPS}


def group_dict(g: Group) -> dict[str, Any]:
    """``g.to_dict()``, without rebuilding it for the analysis's shared groups."""
    wire = _WIRE.get(id(g))
    if wire is None:
        return g.to_dict()
    return {"kind": wire[0], "cards": wire[1].copy(), "huxi": wire[2]}
