"""Scoring of the regional families (R9.1, R9.2, R9.4): what the play decided (:class:`PlayFacts`), the 囤
functions (:data:`TUN`), 醒, and the best win by the family's own points (R6.2).

:func:`paohuzi.scoring.evaluate` and its siblings come here for every rule set whose ``family`` is not
``classic``; the classic presets never do (their path and speed are unchanged). The points of a family win:

    base = (囤 + 醒, then ``base_bonus``) + 1 for 自摸 under ``zimo`` ``plus_one`` (常德, R9.1)
    points = base × 番 (tables D, E, F add up), × 2 for 自摸 under ``zimo`` ``double`` (R9.2), then the cap

R6.2 ranks by these points, then 胡息. They are not monotonic in 胡息 where the 囤 table has 卡胡 (10 胡息 → 3
囤, 11 → 1), and for 行行息 and 团圆 (they depend on the groups): there every distinct arrangement is scored
(:func:`paohuzi.analysis.arrangements_all_counted`); otherwise the best arrangement of each shape is enough, as
for the classic presets. (醒 is the same in every complete arrangement: all the cards are in groups.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paohuzi import analysis
from paohuzi.analysis import Arrangement, Source
from paohuzi.cards import IS_BIG, IS_RED, Card
from paohuzi.groups import Group, GroupKind
from paohuzi.rules import RuleSet
from paohuzi.scoring.fan import COMBINE, FAMILY_TABLES, PINGHU, TIANHU, ZIMO, FamilyCounts, Name, named
from paohuzi.scoring.results import Score, Win, new_score, new_win
from paohuzi.scoring.settlement import ScoringError

__all__ = [
    "KAHU",
    "NO_FACTS",
    "TUN",
    "PlayFacts",
    "best_family_win",
    "check_facts",
    "family_score",
    "family_waits",
    "is_kahu",
    "tianhu_dealt_win",
    "tinghu_of",
    "tun_classic",
    "tun_liuhuqiang",
    "tun_shihuka",
    "xing_count",
]

KAHU = "卡胡"


@dataclass(frozen=True, slots=True)
class PlayFacts:
    """What the play decided that a family's score needs (R9.1, R9.4); the engine fills it, ``paohuzi analyze``
    reads it from the request.

    :ivar drawn_before: 荒庄 in a row just before this hand in the match (黄番 n, R9.1).
    :ivar xing_card: the 醒 card (R9.4), chosen by the engine (翻醒: the next stock card; 随醒: the card won).
    :ivar dihu: the win is a 地胡 (R9.1 decision).
    :ivar tinghu: the win is a 听胡 (R9.1 decision); None: derived from the table — it holds only 提.
    """

    drawn_before: int = 0
    xing_card: Card | None = None
    dihu: bool = False
    tinghu: bool | None = None


NO_FACTS = PlayFacts()


def check_facts(facts: PlayFacts, rules: RuleSet) -> None:
    """Refuse facts that make no sense for these rules, naming the field and the family.

    :raises ScoringError: a negative ``drawn_before``, a ``xing_card`` that is not a card or given to rules
        without 醒, a ``dihu``/``tinghu`` that is not a bool.
    """
    # Exact type checks: cheap on the hot path, and a bool is not a count (True is not 1 here).
    n = facts.drawn_before
    if type(n) is not int or n < 0:
        raise ScoringError(f"drawn_before must be a whole number ≥ 0, got {n!r}")
    x = facts.xing_card
    if x is not None:
        if type(x) is not Card:
            raise ScoringError(f"xing_card must be a card, got {x!r}")
        if rules.xing == "none":
            where = f"the {rules.name} rules ({rules.family} family)"
            raise ScoringError(f"xing_card is given but {where} have no 醒 (xing is none, R9.4)")
    if type(facts.dihu) is not bool:
        raise ScoringError(f"dihu must be true or false, got {facts.dihu!r}")
    if facts.tinghu is not None and type(facts.tinghu) is not bool:
        raise ScoringError(f"tinghu must be true, false or null, got {facts.tinghu!r}")


# ---------------------------------------------------------------------------------------------------
# 囤 (the base before 醒 and bonuses)
# ---------------------------------------------------------------------------------------------------


def tun_classic(huxi: int, tianhu: bool, rules: RuleSet) -> int:
    """R7.1: ⌊(胡息 − 12)/3⌋, never below 0; a 天胡 under ``tianhu_double_huxi`` doubles the 胡息 first.

    >>> from paohuzi.rules import find_preset
    >>> [tun_classic(h, False, find_preset("changde")) for h in (15, 17, 18, 21)]
    [1, 1, 2, 3]
    """
    h = 2 * huxi if tianhu and rules.tianhu_double_huxi else huxi
    return max(0, (h - 12) // 3)


def tun_shihuka(huxi: int, tianhu: bool, rules: RuleSet) -> int:
    """R9.2 衡阳十胡卡: 10 → 3 (卡胡), 11 → 1, 12–14 → 2, 15–17 → 3, then 3 + ⌊(胡息 − 15)/3⌋; a 天胡 uses the same
    table and counts 1 below 10 胡息.

    >>> from paohuzi.rules import find_preset
    >>> [tun_shihuka(h, False, find_preset("shihuka")) for h in (10, 11, 12, 14, 15, 17, 18, 21)]
    [3, 1, 2, 2, 3, 3, 4, 5]
    >>> tun_shihuka(6, True, find_preset("shihuka"))
    1
    """
    if huxi < 10:
        return 1  # only a 天胡 wins below 10 (R6.4: no 胡息 minimum)
    if huxi == 10:
        return 3  # 卡胡
    if huxi == 11:
        return 1
    if huxi <= 14:
        return 2
    return 3 + (huxi - 15) // 3


def tun_liuhuqiang(huxi: int, tianhu: bool, rules: RuleSet) -> int:
    """R9.3 衡阳六胡抢: ``3xi1tun`` 底 + ⌊(胡息 − 6)/3⌋ (底 1 or 2; never below 底, decision for a 天胡 under 6
    胡息); ``1xi1tun`` 囤 = 胡息.

    >>> from paohuzi.rules import find_preset
    >>> rules = find_preset("liuhuqiang")
    >>> [tun_liuhuqiang(h, False, rules) for h in (6, 8, 9, 14, 15, 21)]
    [1, 1, 2, 3, 4, 6]
    >>> one_xi = rules.with_options(tun="1xi1tun")
    >>> tun_liuhuqiang(14, False, rules.with_options(di=2)), tun_liuhuqiang(14, False, one_xi)
    (4, 14)
    """
    if rules.tun == "1xi1tun":
        return huxi
    return rules.di + max(0, (huxi - 6) // 3)


TUN = {"classic": tun_classic, "shihuka": tun_shihuka, "3xi1tun": tun_liuhuqiang, "1xi1tun": tun_liuhuqiang}


def is_kahu(score: Score) -> bool:
    """卡胡 (R9.2): a 十胡卡 win with exactly 10 胡息, whose 囤 is 3."""
    return score.family == "shihuka" and score.huxi == 10


# ---------------------------------------------------------------------------------------------------
# What an arrangement decides: 醒, 行行息, 团圆
# ---------------------------------------------------------------------------------------------------


def xing_count(groups: Sequence[Group], card: Card) -> int:
    """醒 (R9.4): copies of ``card`` (case matters) in these groups — 4 in a 提/跑, 3 in a 坎/偎/碰, 1 in a 句, 1 or
    2 in a 绞, 2 in the pair. Loose cards of a 天胡's partial arrangement are not groups and do not count.

    >>> xing_count([Group.parse("ti:x5x5x5x5"), Group.parse("jiao:x5x5d5"), Group.parse("ju:d4d5d6")], Card.D5)
    2
    """
    return sum(1 for g in groups for c in g.cards if c == card)


def _hanghangxi(arrangement: Arrangement) -> bool:
    """行行息 (R9.1): every 门子 scores 胡息 > 0, so there is no 将 pair, and no card is left loose."""
    return not arrangement.loose and all(g.huxi > 0 for g in arrangement.groups)


def _tuanyuan(groups: Sequence[Group]) -> int:
    """团圆 (R9.1): how many points are held as 跑/提 in both cases (跑 八 and 提 捌)."""
    ti, pao = _TI, _PAO  # identity, not Enum hashing: a hot path
    fours = [g.cards[0] for g in groups if g.kind is ti or g.kind is pao]
    if len(fours) < 2:
        return 0
    return sum(1 for c in fours if c < 10 and c + 10 in fours)


def tinghu_of(facts: PlayFacts, table: Sequence[Group]) -> bool:
    """听胡 (R9.1): as the facts say, else derived: the table holds nothing but 提 (no 吃, 碰, 偎, 跑)."""
    if facts.tinghu is not None:
        return facts.tinghu
    return all(g.kind is GroupKind.TI for g in table)


# ---------------------------------------------------------------------------------------------------
# Scoring one arrangement, and the best of several (R6.2)
# ---------------------------------------------------------------------------------------------------

_CacheKey = tuple[object, ...]
_NamesFound = tuple[tuple[Name, ...], int]
_Entry = tuple[RuleSet, dict[_CacheKey, Score], dict[tuple[FamilyCounts, bool], _NamesFound]]
_CACHE: dict[int, _Entry] = {}


def family_score(  # noqa: PLR0913 — what a family's points depend on
    arrangement: Arrangement,
    red: int,
    big: int,
    small: int,
    rules: RuleSet,
    *,
    zimo: bool,
    haidi: bool,
    tianhu: bool,
    facts: PlayFacts = NO_FACTS,
    tinghu: bool = False,
    shuahou: bool = False,
    xing: int | None = None,
    tuanyuan: int | None = None,
) -> Score:
    """The score of one arrangement under a regional family's rules (R9.1, R9.2, R9.4).

    :param tinghu: 听胡 (see :func:`tinghu_of`); :param shuahou: the winner held one hand card before the card won.
    :param xing: 醒 when the caller counted it already (the same for every complete arrangement of the cards).
    :param tuanyuan: 团圆's points when the caller counted them already (see :func:`_tuanyuan_varies`).
    """
    if xing is None:
        xing = 0 if facts.xing_card is None else xing_count(arrangement.groups, facts.xing_card)
    hhx = rules.hanghangxi and _hanghangxi(arrangement)
    ty = tuanyuan if tuanyuan is not None else _tuanyuan(arrangement.groups) if rules.tuanyuan else 0
    # One tuple, built once: a hot path (every candidate of every win and wait). The facts' fields, not the facts
    # (a dataclass hashes and compares in Python).
    key: _CacheKey = (arrangement.huxi, arrangement.duidui, red, big, small, zimo, haidi, tianhu, xing, hhx, ty,
                      facts.dihu, facts.drawn_before, facts.xing_card, tinghu, shuahou)  # fmt: skip
    entry = _CACHE.get(id(rules))
    if entry is None:
        if len(_CACHE) >= 64:
            _CACHE.clear()
        entry = _CACHE[id(rules)] = (rules, {}, {})
    found = entry[1].get(key)
    if found is None:
        if len(entry[1]) >= 100_000:
            entry[1].clear()
        counts = FamilyCounts(
            red, big, small, arrangement.duidui, haidi, tianhu, facts.dihu, tinghu, shuahou, hhx, ty, facts.drawn_before
        )
        found = entry[1][key] = _score(arrangement.huxi, counts, entry, zimo, xing, facts.xing_card)
    return found


def _names(c: FamilyCounts, zimo: bool, entry: _Entry) -> _NamesFound:
    """The 名堂 lines of a family win (its table's, 平胡 1 when none applies, then 天胡 0 and 自摸 0) and 番; kept
    per rule set (many wins share them)."""
    found = entry[2].get((c, zimo))
    if found is None:
        rules = entry[0]
        names: list[Name] = FAMILY_TABLES[rules.fan_table](c, rules)
        if not names:
            names.append(named(PINGHU, 1))  # R9.1, R9.2: 平胡 1 only when no 名堂 (黄番 included) applies
        fan = _combined(names, COMBINE[rules.fan_table])
        if c.tianhu and all(n.name != TIANHU for n in names):
            names.append(named(TIANHU, 0))
        if zimo:
            names.append(named(ZIMO, 0))
        if len(entry[2]) >= 100_000:
            entry[2].clear()
        found = entry[2][c, zimo] = (tuple(names), fan)
    return found


def _combined(names: Sequence[Name], combine: str) -> int:
    """The 番 of the 名堂 lines: their product for a table that multiplies (G, R9.3), else their sum (D, E, F)."""
    if combine == "multiply":
        fan = 1
        for n in names:
            fan *= n.fan
        return fan
    return sum(n.fan for n in names)


def _score(  # noqa: PLR0913, PLR0917 — the values a family score is built from
    huxi: int, c: FamilyCounts, entry: _Entry, zimo: bool, xing: int, xing_card: Card | None
) -> Score:
    rules = entry[0]
    zimo = zimo or c.tianhu  # 天胡 counts as 自摸 (R6.4)
    names, fan = _names(c, zimo, entry)
    tun = TUN[rules.tun](huxi, c.tianhu, rules)
    base = tun + xing  # R9.4: 醒 adds to 囤 before 番
    if rules.base_bonus == "plus_one":  # R9.2 底分
        base += 1
    elif rules.base_bonus == "double":
        base *= 2
    if zimo and rules.zimo == "plus_one":  # R9.1 常德: 自摸 + 1 as R7.1
        base += 1
    zimo_double = zimo and rules.zimo == "double"
    uncapped = base * fan * (2 if zimo_double else 1)
    points = min(uncapped, rules.cap) if rules.cap else uncapped
    return new_score(
        names, fan, base, points, huxi, zimo, c.haidi, c.tianhu, c.red, c.big, c.small, c.duidui,
        rules.fan_table, zimo_double, uncapped, tun, xing, xing_card, COMBINE[rules.fan_table], rules.family,
        rules.base_bonus,
    )  # fmt: skip


def _needs_every_arrangement(rules: RuleSet, table: Sequence[Group], card: Card | None) -> bool:
    """Whether the points may depend on more than (胡息, shape), so that every arrangement must be scored.

    - 醒 never does: every card of a complete hand lies in a group or the pair, so the copies of the 醒 card are
      the same in every arrangement (R9.4).
    - 团圆 only when the card won may join a table 碰/偎 as a 跑 or stay in the hand's groups (R6.1): any other
      four is a 提/跑 in every arrangement (R3). ``card`` None (a wait): any table 碰/偎.
    - 行行息 unless the table rules it out in every arrangement: a table group of 0 胡息, or a 提/跑 there (it
      calls for a 将 pair, which scores 0).
    - 卡胡 is decided per hand (:func:`_kahu_possible`).
    """
    if rules.hanghangxi and not any(g.huxi == 0 or g.kind is _TI or g.kind is _PAO for g in table):
        return True
    return rules.tuanyuan and _tuanyuan_varies(table, card)


def _tuanyuan_varies(table: Sequence[Group], card: Card | None) -> bool:
    """Whether 团圆 may differ between arrangements: only when the card won may join a table 碰/偎 as a 跑 or
    stay in the hand's groups (R6.1); any other four is a 提/跑 in every arrangement (R3). ``card`` None: any."""
    peng, wei, chouwei = _PENG, _WEI, _CHOUWEI
    for g in table:
        k = g.kind
        if (k is peng or k is wei or k is chouwei) and (card is None or g.cards[0] is card):
            return True
    return False


_PENG, _WEI, _CHOUWEI = GroupKind.PENG, GroupKind.WEI, GroupKind.CHOUWEI
_TI, _PAO = GroupKind.TI, GroupKind.PAO


def _kahu_possible(rules: RuleSet, found: tuple[Arrangement, ...]) -> bool:
    """Under the 十胡卡 囤 table a 10-胡息 reading (3 囤) beats 11–14 胡息 (1–2 囤) but never 15 or more (3+)."""
    return rules.tun == "shihuka" and 11 <= max(a.huxi for a in found) <= 14


def _pick(  # noqa: PLR0913 — the candidates, their counts and what the score looks at
    found: tuple[Arrangement, ...],
    red: int,
    big: int,
    n: int,
    rules: RuleSet,
    *,
    zimo: bool,
    haidi: bool,
    tianhu: bool,
    facts: PlayFacts,
    tinghu: bool,
    shuahou: bool,
    xing: int,
    tuanyuan_varies: bool,
) -> Win | None:
    """The best candidate by (points, 胡息) (R6.2); on a full tie the first. ``xing``: 醒 (the same for every
    complete arrangement, :func:`_held`); ``tuanyuan_varies``: 团圆 must be counted per arrangement."""
    best: Win | None = None
    best_key = (0, 0)
    small = n - big
    ty = _tuanyuan(found[0].groups) if rules.tuanyuan and found and not tuanyuan_varies else None
    for arrangement in found:
        s = family_score(
            arrangement, red, big, small, rules, zimo=zimo, haidi=haidi, tianhu=tianhu, facts=facts, tinghu=tinghu,
            shuahou=shuahou, xing=xing, tuanyuan=ty,
        )  # fmt: skip
        key = (s.points, arrangement.huxi)
        if best is None or key > best_key:
            best, best_key = new_win(arrangement, s), key
    return best


def _held(hand: Sequence[Card], table: Sequence[Group], card: Card | None) -> int:
    """醒 (R9.4) of a complete hand: every card lies in a group or the pair, so it is the copies of the 醒 card
    among all the winner's cards, whatever the arrangement. ``card`` is the 醒 card here."""
    if card is None:
        return 0
    return hand.count(card) + sum(g.cards.count(card) for g in table)


def best_family_win(  # noqa: PLR0913 — evaluate's arguments
    hand: Sequence[Card],
    table: Sequence[Group],
    card: Card | None,
    source: Source,
    rules: RuleSet,
    *,
    last_card: bool,
    tianhu: bool,
    zimo: bool,
    facts: PlayFacts,
) -> Win | None:
    """:func:`paohuzi.scoring.evaluate` for a regional family (the discard rule already checked)."""
    y = rules.yiwushi  # 一五十 is a 句 (R9.3)
    if _needs_every_arrangement(rules, table, card):
        found, red, big, n = analysis.arrangements_all_counted(hand, table, card, source, rules.min_huxi, yiwushi=y)
    else:
        found, red, big, n = analysis.arrangements_counted(hand, table, card, source, rules.min_huxi, yiwushi=y)
        if found and _kahu_possible(rules, found):
            found, red, big, n = analysis.arrangements_all_counted(hand, table, card, source, rules.min_huxi, yiwushi=y)
    if not found:
        return None
    x = facts.xing_card
    xing = 0 if x is None else _held(hand, table, x) + (card is x)
    return _pick(
        found, red, big, n, rules, zimo=zimo, haidi=last_card, tianhu=tianhu, facts=facts,
        tinghu=tinghu_of(facts, table), shuahou=card is not None and len(hand) == 1, xing=xing,
        tuanyuan_varies=rules.tuanyuan and _tuanyuan_varies(table, card),
    )  # fmt: skip


def family_waits(
    hand: Sequence[Card], table: Sequence[Group], rules: RuleSet, *, last_card: bool, facts: PlayFacts
) -> list[tuple[Card, Win]]:
    """:func:`paohuzi.scoring.scored_waits` for a regional family: each wait scored as an own draw."""
    y = rules.yiwushi  # 一五十 is a 句 (R9.3)
    every = (rules.hanghangxi or rules.tuanyuan) and _needs_every_arrangement(rules, table, None)
    waits = (analysis.waits_all_counted if every else analysis.waits_counted)(hand, table, rules.min_huxi, yiwushi=y)
    if not waits:
        return []  # most hands: nothing more to pay for
    tinghu = tinghu_of(facts, table)
    x = facts.xing_card
    held = _held(hand, table, x)
    out: list[tuple[Card, Win]] = []
    for card, found, red, big, n in waits:
        if not every and found and _kahu_possible(rules, found):  # as best_family_win: only where 卡胡 may win
            found, red, big, n = analysis.arrangements_all_counted(
                hand, table, card, Source.SELF, rules.min_huxi, yiwushi=y
            )
        win = _pick(
            found, red, big, n, rules, zimo=True, haidi=last_card, tianhu=False, facts=facts, tinghu=tinghu,
            shuahou=len(hand) == 1, xing=held + (card is x),
            tuanyuan_varies=rules.tuanyuan and _tuanyuan_varies(table, card),
        )  # fmt: skip
        if win is not None:
            out.append((card, win))
    return out


def tianhu_dealt_win(arrangement: Arrangement, rules: RuleSet, facts: PlayFacts, table: Sequence[Group]) -> Win:
    """The dealt 天胡 (R6.4) under a family: 自摸 and 天胡, scored on its partial arrangement (loose cards count for
    red/big/small, never for 醒)."""
    red = big = n = 0
    for cards in [*(g.cards for g in arrangement.groups), arrangement.loose]:
        for c in cards:
            red += IS_RED[c]
            big += IS_BIG[c]
            n += 1
    s = family_score(
        arrangement, red, big, n - big, rules, zimo=True, haidi=False, tianhu=True, facts=facts,
        tinghu=tinghu_of(facts, table),
    )  # fmt: skip
    return new_win(arrangement, s)
