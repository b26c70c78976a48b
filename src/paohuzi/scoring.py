"""Scoring, R7: base (底), 名堂 and 番, points, settlement, the escape penalty and levels.

Sections implemented here:

- R7.1 base: :func:`base_of`.
- R7.2 名堂: :func:`score` with the three 番 tables (A ``qq``, B ``hunan``, C ``huayang``).
- R6.2 best arrangement: :func:`evaluate`, :func:`evaluate_tianhu_dealt` (R6.4) and :func:`scored_waits`
  (听牌) score the candidates of :mod:`paohuzi.analysis` and keep the best by (points, 胡息);
  :func:`analyze_hand` is "the best win with this card, else the waits" (``paohuzi analyze``), and
  :meth:`Win.to_dict` / :func:`waits_to_dicts` the one JSON form of a win and of waits.
- R7.3 settlement: :func:`settle`, :func:`escape_penalty`, :func:`escape_settlement`.
- R7.4 levels: :data:`LEVELS`, :func:`level_title`, :func:`level_number`.

Where the rule book leaves a question open the choice is written in ``docs/scoring.md`` and
``docs/decisions.md``; comments cite them as "decision".

>>> from paohuzi.analysis import Source
>>> from paohuzi.cards import parse_cards
>>> from paohuzi.groups import Group
>>> from paohuzi.rules import find_preset
>>> hand = parse_cards("x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9")
>>> win = evaluate(hand, [Group.parse("peng:x7x7x7")], Card.X10, Source.SELF, find_preset("qq"))
>>> win.huxi, win.score.red, [str(n) for n in win.score.names], win.score.fan, win.score.base, win.points
(25, 11, ['红胡 2', '自摸 0'], 2, 5, 10)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypedDict

from paohuzi import analysis
from paohuzi.analysis import Arrangement, Source
from paohuzi.cards import IS_BIG, IS_RED, Card, PaohuziError
from paohuzi.groups import Group
from paohuzi.rules import RuleSet

__all__ = [
    "LEVELS",
    "PINGHU",
    "TIANHU",
    "ZIMO",
    "Name",
    "Score",
    "ScoringError",
    "Win",
    "WaitDict",
    "HandAnalysis",
    "analyze_hand",
    "waits_to_dicts",
    "base_of",
    "escape_penalty",
    "escape_settlement",
    "evaluate",
    "evaluate_tianhu_dealt",
    "level_number",
    "level_title",
    "score",
    "scored_waits",
    "settle",
]

#: The entries of :attr:`Score.names` that are not 名堂 (R7.2: shown, but they act on the base or are the
#: plain hand).
PINGHU = "平胡"
ZIMO = "自摸"
TIANHU = "天胡"


class ScoringError(PaohuziError):
    """Scoring or settlement asked with values that make no sense (a winner not at the table …)."""


@dataclass(frozen=True, slots=True)
class Name:
    """One line of a score's 名堂 list: a Chinese name (红胡, 对对胡, 自摸 …) and the 番 it adds. R7.2.

    ``str(name)`` is ``"红胡 2"``. 自摸 and 天胡 have 番 0: they act on the base (R7.1).
    """

    name: str
    fan: int

    def __str__(self) -> str:
        return f"{self.name} {self.fan}"


@dataclass(frozen=True, slots=True)
class Score:
    """The score of one win (R7): 名堂 with their 番, the base, the points.

    :ivar names: the 名堂 in the order of the preset's table, then 海底 where it adds 番, then 天胡 and
        自摸 (番 0). A hand without 名堂 lists ``平胡 1``. The 番 of the names always add up to :attr:`fan`.
    :ivar fan: 番, the multiplier (R7.2); 1 for a plain 平胡.
    :ivar base: 底 (R7.1), with the 自摸 +1 when the rule set's ``zimo`` is ``plus_one`` (R8.1).
    :ivar points: base × 番 (R7.3), × 2 under ``zimo`` ``double`` for a 自摸, then at most the ``cap``
        (R8.1).
    :ivar huxi: the arrangement's 胡息 (not doubled for 天胡; the doubling is in the base).
    :ivar zimo: 自摸 (a 天胡 always counts as 自摸, R6.4).
    :ivar haidi: 海底, the card won was the last card of the stock (R6.3).
    :ivar tianhu: 天胡 (R6.4).
    :ivar red: red cards (红字) among the winner's cards; :ivar big: 大字; :ivar small: 小字.
    :ivar duidui: the arrangement is 对对 (every group of one kind).
    :ivar table: the 名堂 table used: ``qq`` (A), ``hunan`` (B) or ``huayang`` (C).
    :ivar zimo_double: 自摸翻倍 (R8.1 ``zimo`` ``double``) doubled the points; not a 番.
    :ivar uncapped: the points before 封顶 (R8.1 ``cap``); equal to :attr:`points` when the cap did not bite
        (:func:`score` always sets it).
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
        partial arrangement left cards out (R6.4). A wait is written by :func:`waits_to_dicts`.
        """
        s = self.score
        out: dict[str, Any] = {
            "huxi": self.arrangement.huxi,
            "groups": [g.to_dict() for g in self.arrangement.groups],
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
        return out


class WaitDict(TypedDict):
    """The JSON form of one wait (听牌): the card, and the 胡息 and points of its best win."""

    card: str
    huxi: int
    points: int


# ---------------------------------------------------------------------------------------------------
# R7.1 base
# ---------------------------------------------------------------------------------------------------


def base_of(huxi: int, *, zimo: bool = False, doubled: bool = False) -> int:
    """底 (R7.1): floor((胡息 − 12) / 3), +1 for 自摸; with ``doubled`` (天胡 under ``tianhu_double_huxi``)
    floor((2 × 胡息 − 12) / 3), +1 for 自摸.

    Decision (docs/scoring.md): the part before 自摸 never goes below 0, so a 天胡 with few 胡息 (it has no
    胡息 minimum, R6.4) scores 0 + 1 for 自摸 instead of a negative base.

    >>> [base_of(h) for h in (15, 17, 18, 20, 21, 23, 24)]
    [1, 1, 2, 2, 3, 3, 4]
    >>> base_of(18, zimo=True), base_of(15, zimo=True, doubled=True), base_of(3, zimo=True, doubled=True)
    (3, 7, 1)
    """
    h = 2 * huxi if doubled else huxi
    return max(0, (h - 12) // 3) + (1 if zimo else 0)


# ---------------------------------------------------------------------------------------------------
# R7.2 名堂 tables
# ---------------------------------------------------------------------------------------------------


class _Counts(NamedTuple):
    red: int
    big: int
    small: int
    duidui: bool
    haidi: bool


# Names are immutable: each (name, 番) is built once and shared (a hot path: every scored win lists some).
_NAMES: dict[tuple[str, int], Name] = {}


def _name(name: str, fan: int) -> Name:
    got = _NAMES.get((name, fan))
    if got is None:
        got = _NAMES[name, fan] = Name(name, fan)
    return got


def _haidi(names: list[Name], name: str) -> None:
    """海底 (tables A and C): +2 番 on a 名堂胡; a 平胡 goes from 1 to 2 番, i.e. 平胡 1 + 海底 1."""
    if names:
        names.append(_name(name, 2))
    else:
        names.extend((_name(PINGHU, 1), _name(name, 1)))


def _fan_qq(c: _Counts, rules: RuleSet) -> list[Name]:
    """Table A (QQ游戏): every 名堂 that applies, 番 add up. R7.2."""
    names: list[Name] = []
    red = c.red
    # The red 名堂 exclude each other: 0, 1, 4, 7, 10, 11–12, ≥ 13 (table A, the source's literal reading).
    if red in (4, 7) or 10 < red < 13:
        names.append(_name("红胡", 2))
    elif red == 1:
        names.append(_name("真点胡", 4))
    elif red == 10:
        names.append(_name("假点胡", 3))
    elif red >= 13:
        names.append(_name("红乌", 4 + red - 13))
    elif red == 0:
        names.append(_name("乌胡", 5))
    if c.duidui:
        names.append(_name("对对胡", 5))
    if c.big >= 18:
        names.append(_name("大字胡", 6 + c.big - 18))
    if c.small >= 16:
        names.append(_name("小字胡", 8 + c.small - 16))
    if c.haidi:
        _haidi(names, "海底胡")
    return names


def _fan_hunan(c: _Counts, rules: RuleSet) -> list[Name]:
    """Table B (湖南): one multiplier, the largest that applies; 16小字 and 18大字 add on. R7.2.

    海底 is not a 名堂 of table B and adds nothing (decision, docs/scoring.md).
    """
    red, dd = c.red, c.duidui
    candidates = [
        _name(name, fan)
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
        names.append(_name("16小字", 4 + c.small - 16))
    if c.big >= 18:
        names.append(_name("18大字", 4 + c.big - 18))
    return names


def _fan_huayang(c: _Counts, rules: RuleSet) -> list[Name]:
    """Table C (花样): 番 add up; ``basic`` has the red 名堂 only, ``half`` adds 对对胡 and 海底. R7.2."""
    names: list[Name] = []
    red = c.red
    if 10 <= red < 13:
        names.append(_name("红胡", 2))
    elif red == 1:
        names.append(_name("点胡", 3))
    elif red >= 13:
        names.append(_name("红乌", 4))
    elif red == 0:
        names.append(_name("乌胡", 5))
    if rules.huayang_level == "half":
        if c.duidui:
            # "乌胡和对对胡同时出现算10番": 乌胡 5 + 对对胡 5 instead of 4 (decision: shown as two lines).
            names.append(_name("对对胡", 5 if red == 0 else 4))
        if c.haidi:
            _haidi(names, "海底")
    return names


_TABLES = {"qq": _fan_qq, "hunan": _fan_hunan, "huayang": _fan_huayang}


def _colours(cards: Iterable[Card]) -> tuple[int, int, int]:
    """(red, big, all) cards among these (R1)."""
    red = big = n = 0
    for c in cards:
        red += IS_RED[c]
        big += IS_BIG[c]
        n += 1
    return red, big, n


# By id() of the analysis's shared group objects, which live as long as the process (no id is reused).
_COLOURS = {id(g): _colours(g.cards) for g in analysis.SHARED_GROUPS}


def score(
    arrangement: Arrangement,
    rules: RuleSet,
    *,
    zimo: bool = False,
    haidi: bool = False,
    tianhu: bool = False,
) -> Score:
    """Score a winning arrangement (R7.1, R7.2) under the preset's 名堂 table, with the R8.1 ``zimo`` and
    ``cap`` options: base (+1 for 自摸 only under ``plus_one``) × 番, then × 2 for a 自摸 under ``double``,
    then at most ``cap`` (0 = no cap).

    Red, big and small cards are counted over all the arrangement's cards (groups and loose cards).
    A 天胡 counts as 自摸 (R6.4) and, with ``rules.tianhu_double_huxi``, doubles the 胡息 of the base.
    The arrangement is trusted as given (:mod:`paohuzi.analysis` builds it); ``duidui`` decides 对对胡.

    :param zimo: 自摸, the card won was the winner's own draw (R6.3).
    :param haidi: 海底, the card won was the last card of the stock (R6.3).
    :param tianhu: 天胡 (R6.4).

    >>> from paohuzi.rules import find_preset
    >>> groups = tuple(Group.parse(g) for g in (
    ...     "peng:x7x7x7", "ju:x2x7x10", "ju:d2d7d10", "ju:x1x2x3", "ju:x8x9x10", "kan:d4d4d4", "kan:d9d9d9"))
    >>> red_hand = Arrangement(groups, huxi=sum(g.huxi for g in groups), duidui=False)
    >>> s = score(red_hand, find_preset("qq"), zimo=True)
    >>> s.huxi, s.red, s.fan, s.base, s.points, [str(n) for n in s.names]
    (25, 11, 2, 5, 10, ['红胡 2', '自摸 0'])
    >>> score(red_hand, find_preset("qq"), tianhu=True).base    # floor((50 - 12) / 3) + 1 (天胡 is 自摸)
    13
    >>> score(red_hand, find_preset("hunan"), haidi=True).names   # table B: 红和, no 海底
    (Name(name='红和', fan=2),)
    >>> d = score(red_hand, find_preset("qq").with_options(zimo="double"), zimo=True)  # 自摸翻倍: 4 × 2 × 2
    >>> d.base, d.points, d.zimo_double
    (4, 16, True)
    >>> c = score(red_hand, find_preset("qq").with_options(zimo="double", cap=50), tianhu=True)  # 12 × 2 × 2
    >>> c.uncapped, c.points, c.capped, str(c)
    (48, 48, False, '25 胡息, 红胡 2, 天胡 0, 自摸 0: 番 2 × 底 12 × 2 (自摸翻倍) = 48')
    """
    # Red and big cards (R1) by group, from a table for the analysis's own group objects; no enum property
    # calls on this hot path.
    red = big = n = 0
    colours = _COLOURS.get
    for g in arrangement.groups:
        counted = colours(id(g))
        if counted is None:
            counted = _colours(g.cards)
        red += counted[0]
        big += counted[1]
        n += counted[2]
    if arrangement.loose:
        counted = _colours(arrangement.loose)
        red += counted[0]
        big += counted[1]
        n += counted[2]
    small = n - big
    zimo = zimo or tianhu  # 天胡 counts as 自摸 (R6.4)
    counts = _Counts(red, big, small, arrangement.duidui, haidi)
    names = _TABLES[rules.fan_table](counts, rules)
    if not names:
        names.append(_name(PINGHU, 1))  # R7.2: a hand with no 名堂 is 平胡 with 番 1
    fan = sum(n.fan for n in names)
    if tianhu:
        names.append(_name(TIANHU, 0))
    if zimo:
        names.append(_name(ZIMO, 0))
    # R8.1: the +1 of R7.1 only under zimo plus_one; 自摸翻倍 doubles the points; then 封顶.
    plus_one = zimo and rules.zimo == "plus_one"
    base = base_of(arrangement.huxi, zimo=plus_one, doubled=tianhu and rules.tianhu_double_huxi)
    zimo_double = zimo and rules.zimo == "double"
    uncapped = base * fan * (2 if zimo_double else 1)
    points = min(uncapped, rules.cap) if rules.cap else uncapped
    return Score(
        names=tuple(names),
        fan=fan,
        base=base,
        points=points,
        zimo_double=zimo_double,
        uncapped=uncapped,
        huxi=arrangement.huxi,
        zimo=zimo,
        haidi=haidi,
        tianhu=tianhu,
        red=red,
        big=big,
        small=small,
        duidui=arrangement.duidui,
        table=rules.fan_table,
    )


# ---------------------------------------------------------------------------------------------------
# R6.2 the best scoring arrangement
# ---------------------------------------------------------------------------------------------------


def _best(
    found: Iterable[Arrangement], rules: RuleSet, *, zimo: bool, haidi: bool, tianhu: bool
) -> Win | None:
    """The best by (points, 胡息) (R6.2); on a full tie the first candidate (analysis lists 对对 last)."""
    best: Win | None = None
    for arrangement in found:
        win = Win(arrangement, score(arrangement, rules, zimo=zimo, haidi=haidi, tianhu=tianhu))
        if win.better_than(best):
            best = win
    return best


def evaluate(
    hand: Sequence[Card],
    table: Sequence[Group],
    card: Card | None,
    source: Source,
    rules: RuleSet,
    *,
    last_card: bool = False,
    tianhu: bool = False,
    zimo: bool | None = None,
) -> Win | None:
    """The best win (R6.2) of these cards, or None if they are not complete (R6.1).

    :param hand: the cards in hand, before the card won.
    :param table: the player's table groups.
    :param card: the card won, or None for the cards as they stand (R4.2.3, or a dealer's 天胡 as dealt).
    :param source: where the card came from (:class:`~paohuzi.analysis.Source`). A discard is never won
        unless ``rules.win_on_discard`` (R4.2): the answer is then None.
    :param last_card: the card won was the last card of the stock (海底, R6.3).
    :param tianhu: a 天胡 on the 亮张 (R6.4): counts as 自摸; the hand must still be complete, 胡息
        minimum included (decision, docs/decisions.md — only the dealt 天胡 has no minimum).
    :param zimo: 自摸; by default ``source is Source.SELF or tianhu``.
    :raises paohuzi.analysis.AnalysisError: for more than 4 of a kind, a card without a source …

    >>> from paohuzi.cards import parse_cards
    >>> from paohuzi.rules import find_preset
    >>> hand = parse_cards("x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9")
    >>> table = [Group.parse("peng:x7x7x7")]
    >>> evaluate(hand, table, Card.X10, Source.OTHER, find_preset("qq")).points     # 25 胡息: 底 4 × 红胡 2
    8
    >>> evaluate(hand, table, Card.X10, Source.DISCARD, find_preset("qq")) is None
    True
    >>> evaluate(hand, table, Card.X4, Source.SELF, find_preset("qq")) is None
    True
    """
    if source is Source.DISCARD and not rules.win_on_discard:
        # R4.2: nobody may 胡 a discarded card. Bad input is still refused, without the search.
        analysis.validate(hand, table, card, source, min_huxi=rules.min_huxi)
        return None
    found = analysis.arrangements(hand, table, card, source, min_huxi=rules.min_huxi)
    if zimo is None:
        zimo = source is Source.SELF or tianhu
    return _best(found, rules, zimo=zimo, haidi=last_card, tianhu=tianhu)


def evaluate_tianhu_dealt(hand: Sequence[Card], table: Sequence[Group], rules: RuleSet) -> Win | None:
    """The dealt 天胡 (R6.4) — 3 or more 提, or 5 or more kinds held three or four times — or None.

    It is scored as 自摸 and 天胡 on :func:`paohuzi.analysis.tianhu_arrangement`: the 提/坎 plus the best
    partial arrangement of the other cards (loose cards count for red/big/small), with no 胡息 minimum.

    >>> from paohuzi.cards import parse_cards
    >>> from paohuzi.rules import find_preset
    >>> three_ti = parse_cards("x1x1x1x1 x4x4x4x4 d5d5d5d5 x2 x3 x7 x9 d8 d8")
    >>> win = evaluate_tianhu_dealt(three_ti, [], find_preset("qq"))
    >>> win.huxi, win.score.base, win.points, [str(n) for n in win.score.names]
    (30, 17, 17, ['平胡 1', '天胡 0', '自摸 0'])
    >>> evaluate_tianhu_dealt(parse_cards("x1x1x1x1 x2 x3"), [], find_preset("qq")) is None
    True
    """
    if not analysis.dealt_tianhu(hand, table):
        return None
    arrangement = analysis.tianhu_arrangement(hand, table)
    return Win(arrangement, score(arrangement, rules, zimo=True, tianhu=True))


def scored_waits(
    hand: Sequence[Card], table: Sequence[Group], rules: RuleSet, *, last_card: bool = False
) -> list[tuple[Card, Win]]:
    """听牌 (R6): each card kind whose own draw completes the hand, with its best win, in card order.

    Each card is scored as the player's own draw (自摸); ``last_card`` scores them as 海底 too.

    >>> from paohuzi.cards import parse_cards
    >>> from paohuzi.rules import find_preset
    >>> hand = parse_cards("x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9")
    >>> table = [Group.parse("peng:x7x7x7")]
    >>> [(str(c), w.huxi, w.points) for c, w in scored_waits(hand, table, find_preset("qq"))]
    [('x10', 25, 10)]
    """
    out: list[tuple[Card, Win]] = []
    for card, found in sorted(analysis.waits(hand, table, min_huxi=rules.min_huxi).items()):
        win = _best(found, rules, zimo=True, haidi=last_card, tianhu=False)
        if win is not None:
            out.append((card, win))
    return out


def waits_to_dicts(waits: Iterable[tuple[Card, Win]]) -> list[WaitDict]:
    """The JSON form of :func:`scored_waits` (``paohuzi analyze``, the server's ``waits``):
    ``[{"card", "huxi", "points"}, …]``."""
    return [WaitDict(card=str(card), huxi=win.huxi, points=win.points) for card, win in waits]


@dataclass(frozen=True, slots=True)
class HandAnalysis:
    """What :func:`analyze_hand` found.

    :ivar win: the best win (R6.2) with the card, or of the cards as they stand; None if not complete.
    :ivar waits: without a card, the scored waits (:func:`scored_waits`); None when a card was given.
    """

    win: Win | None
    waits: tuple[tuple[Card, Win], ...] | None


def analyze_hand(
    hand: Sequence[Card],
    table: Sequence[Group],
    card: Card | None,
    source: Source,
    rules: RuleSet,
    *,
    last_card: bool = False,
    tianhu: bool = False,
) -> HandAnalysis:
    """The best win with the card; without one, the win of the cards as they stand and the waits (听牌).

    - With a card: :func:`evaluate` (R6.1, R6.2); ``tianhu`` scores it as a 天胡 on the 亮张 (R6.4).
    - Without (``source`` must be ``Source.NONE``): the cards as they stand, which in play is a forced
      提/偎 completion (R4.2.3) or a dealer's 天胡 as dealt — both 自摸 (R6.3, R6.4); with ``tianhu`` the
      dealt 天胡 (:func:`evaluate_tianhu_dealt`) is tried too and the better kept (R6.2). The waits are
      scored as own draws (自摸), and as 海底 with ``last_card``.

    :raises paohuzi.analysis.AnalysisError: for more than 4 of a kind (R1), a group that cannot lie on a
        table, a card without a source …

    >>> from paohuzi.cards import parse_cards
    >>> from paohuzi.rules import find_preset
    >>> hand = parse_cards("x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9")
    >>> found = analyze_hand(hand, [Group.parse("peng:x7x7x7")], None, Source.NONE, find_preset("qq"))
    >>> found.win, waits_to_dicts(found.waits)
    (None, [{'card': 'x10', 'huxi': 25, 'points': 10}])
    """
    if card is not None:
        win = evaluate(hand, table, card, source, rules, last_card=last_card, tianhu=tianhu)
        return HandAnalysis(win, None)
    win = evaluate(hand, table, None, source, rules, last_card=last_card, tianhu=tianhu, zimo=True)
    if tianhu:
        dealt = evaluate_tianhu_dealt(hand, table, rules)
        if dealt is not None and dealt.better_than(win):
            win = dealt
    return HandAnalysis(win, tuple(scored_waits(hand, table, rules, last_card=last_card)))


# ---------------------------------------------------------------------------------------------------
# R7.3 settlement
# ---------------------------------------------------------------------------------------------------


def _whole(name: str, value: object, *, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ScoringError(f"{name} must be a whole number ≥ {low}, got {value!r}")
    return value


def settle(
    winner: int | None,
    points: int,
    seats: Iterable[int],
    stake: int,
    double_cards: Iterable[int] = frozenset(),
    *,
    payer: int | None = None,
) -> dict[int, int]:
    """What each seat wins (+) or pays (−) for a hand (R7.3).

    Each loser pays points × stake to the winner; the winner receives the sum. A drawn hand (荒庄, winner
    None) pays nothing. The deltas add up to 0 unless the winner holds a 双倍积分卡.

    - 双倍积分卡 (R7.3 option ``double_card``): the card doubles only its holder's own **gain**; a loss is
      never doubled and the other seats' changes are untouched, so a winning holder receives twice what
      the losers pay (the hand is then not zero-sum).
    - 放炮包赔 (R8.1 ``discarder_pays``): ``payer`` (the discarder of the card won) pays every loser's
      share; the other losers pay nothing.

    :param seats: the seats that play the hand (a 守醒 player sitting out is not one of them).
    :param double_cards: the seats holding a 双倍积分卡 for this hand.
    :param payer: the one seat that pays for everybody (放炮包赔), or None.
    :raises ScoringError: for a winner or payer not among the seats, repeated seats or negative values.

    >>> settle(0, 10, (0, 1, 2), 3)                         # QQ: the winner gets 2 × points × d
    {0: 60, 1: -30, 2: -30}
    >>> settle(0, 10, (0, 1, 2), 3, double_cards={0})      # the winner's gain doubles, nobody pays more
    {0: 120, 1: -30, 2: -30}
    >>> settle(0, 10, (0, 1, 2), 3, double_cards={2})      # a losing holder's loss is not doubled
    {0: 60, 1: -30, 2: -30}
    >>> settle(0, 10, (0, 1, 2), 3, payer=2)               # 放炮包赔: the discarder pays both shares
    {0: 60, 1: 0, 2: -60}
    >>> settle(None, 0, (0, 1, 2), 3)
    {0: 0, 1: 0, 2: 0}
    """
    seat_list = list(seats)
    if len(set(seat_list)) != len(seat_list):
        raise ScoringError(f"seats repeat: {seat_list}")
    _whole("points", points)
    _whole("stake", stake)
    result = {s: 0 for s in seat_list}
    if winner is None:
        return result  # 荒庄
    if winner not in result:
        raise ScoringError(f"winner {winner!r} is not one of the seats {seat_list}")
    if payer is not None and (payer not in result or payer == winner):
        raise ScoringError(f"payer {payer!r} must be a losing seat among {seat_list}")
    gain = 0
    for seat in seat_list:
        if seat == winner:
            continue
        pay = points * stake
        result[payer if payer is not None else seat] -= pay
        gain += pay
    # R7.3 双倍积分卡: the holder's own gain only (decision in RULES.md R7.3).
    result[winner] += gain * (2 if winner in frozenset(double_cards) else 1)
    return result


def escape_penalty(remaining_huxi_sum: int, stake: int) -> int:
    """What a player who leaves a hand early (逃跑, R7.3) pays: (max(0, floor((H − 12) / 3)) + 8) × d.

    H is the sum, over the remaining players, of the 胡息 of each one's best partial arrangement
    (:func:`paohuzi.analysis.partial_arrangement` of table and hand cards).

    >>> escape_penalty(0, 3), escape_penalty(14, 3), escape_penalty(15, 3), escape_penalty(30, 1)
    (24, 24, 27, 14)
    """
    _whole("remaining_huxi_sum", remaining_huxi_sum)
    _whole("stake", stake)
    return (max(0, (remaining_huxi_sum - 12) // 3) + 8) * stake


def escape_settlement(leaver: int, remaining: Mapping[int, int], stake: int) -> dict[int, int]:
    """Deltas when ``leaver`` leaves a hand early (逃跑, R7.3): the leaver pays :func:`escape_penalty` of the
    remaining players' 胡息 sum, shared equally among them; the odd point goes to the one with more 胡息,
    and on equal 胡息 to the first after the leaver in turn order (decision).

    :param remaining: seat → that player's partial-arrangement 胡息, for each player still at the table.

    >>> escape_settlement(0, {1: 10, 2: 9}, 3)          # H = 19: (2 + 8) × 3 = 30
    {0: -30, 1: 15, 2: 15}
    >>> escape_settlement(0, {1: 3, 2: 9}, 1)           # H = 12: 8 × 1, shared 4 / 4
    {0: -8, 1: 4, 2: 4}
    >>> escape_settlement(1, {0: 9, 2: 3}, 3)           # H = 12: 24 shared 12 / 12
    {1: -24, 0: 12, 2: 12}
    >>> escape_settlement(2, {0: 7, 1: 21}, 1)          # H = 28: 5 + 8 = 13, the odd point to seat 1
    {2: -13, 0: 6, 1: 7}
    """
    if not remaining:
        raise ScoringError("escape_settlement needs the remaining players")
    if leaver in remaining:
        raise ScoringError(f"the leaver {leaver} cannot also be a remaining player")
    for seat, huxi in remaining.items():
        _whole(f"胡息 of seat {seat}", huxi)
    penalty = escape_penalty(sum(remaining.values()), stake)
    share, odd = divmod(penalty, len(remaining))
    span = max(leaver, *remaining) + 1
    # Most 胡息 first; ties in turn order from the leaver's 下家.
    order = sorted(remaining, key=lambda s: (-remaining[s], (s - leaver) % span))
    result = {leaver: -penalty}
    for seat in remaining:
        result[seat] = share
    for seat in order[:odd]:
        result[seat] += 1
    return result


# ---------------------------------------------------------------------------------------------------
# R7.4 levels
# ---------------------------------------------------------------------------------------------------

#: The 23 level titles (等级, QQ) with the total points each starts at, lowest first (R7.4). The sources
#: give 包身工 (below 30), 佃户 90, 贫农 180, 猎人 530 and 掌柜 1600; the others are the project's
#: (decision, docs/scoring.md): the step from one title to the next never shrinks. 包身工 also covers
#: every total below 0.
LEVELS: tuple[tuple[int, str], ...] = (
    (0, "包身工"),
    (30, "短工"),
    (60, "长工"),
    (90, "佃户"),
    (180, "贫农"),
    (330, "渔夫"),
    (530, "猎人"),
    (800, "中农"),
    (1150, "富农"),
    (1600, "掌柜"),
    (2200, "商人"),
    (3000, "衙役"),
    (4000, "小财主"),
    (5500, "大财主"),
    (7500, "小地主"),
    (10000, "大地主"),
    (13500, "知县"),
    (18000, "通判"),
    (24000, "知府"),
    (32000, "总督"),
    (43000, "巡抚"),
    (57000, "丞相"),
    (75000, "帝王"),
)


def level_number(points: int) -> int:
    """The level (等级) of a points total, 1 (包身工) to 23 (帝王). R7.4.

    >>> level_number(-5), level_number(29), level_number(30), level_number(1600), level_number(10**9)
    (1, 1, 2, 10, 23)
    """
    level = 1
    for i, (threshold, _title) in enumerate(LEVELS):
        if points >= threshold:
            level = i + 1
    return level


def level_title(points: int) -> str:
    """The level title (等级名) of a points total. R7.4.

    >>> level_title(29), level_title(90), level_title(179), level_title(180), level_title(1600)
    ('包身工', '佃户', '佃户', '贫农', '掌柜')
    """
    return LEVELS[level_number(points) - 1][1]
