"""Scoring, R7 and R9: base (底/囤), 名堂 and 番, points, settlement, the escape penalty and levels.

Sections implemented here:

- R7.1 base: :func:`base_of`.
- R7.2 名堂: :func:`score` with the three 番 tables (A ``qq``, B ``hunan``, C ``huayang``).
- R6.2 best arrangement: :func:`evaluate`, :func:`evaluate_tianhu_dealt` (R6.4) and :func:`scored_waits`
  (听牌) score the candidates of :mod:`paohuzi.analysis` and keep the best by (points, 胡息);
  :func:`analyze_hand` is "the best win with this card, else the waits" (``paohuzi analyze``), and
  :meth:`Win.to_dict` / :func:`waits_to_dicts` the one JSON form of a win and of waits.
- R9 regional families (常德, 衡阳十胡卡): every function above takes ``facts`` (:class:`PlayFacts`, what the
  play decided) and hands a non-classic rule set to :mod:`paohuzi.scoring.family` (囤 functions, 醒, tables
  D/E/F of :mod:`paohuzi.scoring.fan`, R6.2 by the family's points); :func:`formula` writes a score out.
  :class:`Score` and :class:`Win` live in :mod:`paohuzi.scoring.results`.
- R7.3 settlement: :func:`settle`, :func:`escape_penalty`, :func:`escape_settlement`, and
- R7.4 levels: :data:`LEVELS`, :func:`level_title`, :func:`level_number`, in :mod:`paohuzi.scoring.settlement`
  (re-exported here).

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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from paohuzi import analysis
from paohuzi.analysis import Arrangement, Source
from paohuzi.cards import IS_BIG, IS_RED, TOKENS, Card
from paohuzi.groups import Group
from paohuzi.rules import RuleSet
from paohuzi.scoring import family
from paohuzi.scoring.family import NO_FACTS, PlayFacts
from paohuzi.scoring.fan import COMBINE, NAMES_EN, PINGHU, TABLES, TIANHU, ZIMO, Counts, Name, named
from paohuzi.scoring.formula import formula
from paohuzi.scoring.results import Score, WaitDict, Win, group_dict, new_score, new_win
from paohuzi.scoring.settlement import (
    LEVELS,
    ScoringError,
    escape_penalty,
    escape_settlement,
    level_number,
    level_title,
    settle,
)

__all__ = [
    "LEVELS",
    "NAMES_EN",
    "PlayFacts",
    "formula",
    "group_dict",
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
    "clear_cache",
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
    facts: PlayFacts | None = None,
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
    :param facts: what the play decided, for a regional family (R9). Without the table, 听胡 is only what the
        facts say (None: no 听胡) and 耍猴 never applies; :func:`evaluate` derives both from the cards.

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
    if rules.family != "classic":  # R9: the family's 囤, 醒 and table D/E/F
        return family.family_score(
            arrangement, red, big, n - big, rules, zimo=zimo, haidi=haidi, tianhu=tianhu,
            facts=facts or NO_FACTS, tinghu=bool(facts is not None and facts.tinghu),
        )  # fmt: skip
    return _score(arrangement.huxi, arrangement.duidui, red, big, n - big, rules, zimo, haidi, tianhu)


def _score(  # noqa: PLR0913, PLR0917 — the nine values a score depends on, the key of _cached_score
    huxi: int, duidui: bool, red: int, big: int, small: int, rules: RuleSet, zimo: bool, haidi: bool, tianhu: bool
) -> Score:
    """:func:`score` of an arrangement with this 胡息, shape and red/big/small cards."""
    zimo = zimo or tianhu  # 天胡 counts as 自摸 (R6.4)
    names, fan = _names(red, big, small, duidui, haidi, _entry(rules))
    if tianhu:
        names += (named(TIANHU, 0),)
    if zimo:
        names += (named(ZIMO, 0),)
    # R8.1: the +1 of R7.1 only under zimo plus_one; 自摸翻倍 doubles the points; then 封顶.
    plus_one = zimo and rules.zimo == "plus_one"
    base = base_of(huxi, zimo=plus_one, doubled=tianhu and rules.tianhu_double_huxi)
    zimo_double = zimo and rules.zimo == "double"
    uncapped = base * fan * (2 if zimo_double else 1)
    points = min(uncapped, rules.cap) if rules.cap else uncapped
    tun = base - 1 if plus_one else base  # 囤: the R7.1 base before 自摸's +1
    # Positional, in field order: names fan base points huxi zimo haidi tianhu red big small duidui table
    # zimo_double uncapped tun xing xing_card combine family base_bonus.
    return new_score(
        names, fan, base, points, huxi, zimo, haidi, tianhu, red, big, small, duidui, rules.fan_table,
        zimo_double, uncapped, tun, 0, None, COMBINE[rules.fan_table], rules.family, "none",
    )


# Scores are immutable and depend on nine small values: each is built once and shared, per rule set. Keyed by
# id(rules) with the rule set kept in the entry, so an id is never reused while its entry lives.
_ScoreKey = tuple[int, bool, int, int, int, bool, bool, bool]
_NamesKey = tuple[int, int, int, bool, bool]
_Entry = tuple[RuleSet, dict[_ScoreKey, Score], dict[_NamesKey, tuple[tuple[Name, ...], int]]]
_SCORES: dict[int, _Entry] = {}
_SCORES_LIMIT = 100_000


def _entry(rules: RuleSet) -> _Entry:
    """The shared scores and 名堂 lists of a rule set."""
    entry = _SCORES.get(id(rules))
    if entry is None:
        if len(_SCORES) >= 64:
            _SCORES.clear()
        entry = _SCORES[id(rules)] = (rules, {}, {})
    return entry


def _names(  # noqa: PLR0913, PLR0917 — what the 名堂 tables look at, and where to keep the answer
    red: int, big: int, small: int, duidui: bool, haidi: bool, entry: _Entry
) -> tuple[tuple[Name, ...], int]:
    """The 名堂 (R7.2) of a win with these cards and shape under the entry's rules, without 天胡/自摸, and 番."""
    key = (red, big, small, duidui, haidi)
    found = entry[2].get(key)
    if found is None:
        rules = entry[0]
        names = TABLES[rules.fan_table](Counts(red, big, small, duidui, haidi), rules)
        if not names:
            names.append(named(PINGHU, 1))  # R7.2: a hand with no 名堂 is 平胡 with 番 1
        if len(entry[2]) >= _SCORES_LIMIT:
            entry[2].clear()
        found = entry[2][key] = (tuple(names), sum(n.fan for n in names))
    return found


def clear_cache() -> None:
    """Forget the shared scores and the analysis memo (for benchmarks that measure cold requests)."""
    _SCORES.clear()
    analysis.clear_cache()


def _cached_score(  # noqa: PLR0913, PLR0917 — as _score
    huxi: int, duidui: bool, red: int, big: int, small: int, rules: RuleSet, zimo: bool, haidi: bool, tianhu: bool
) -> Score:
    entry = _entry(rules)
    key = (huxi, duidui, red, big, small, zimo, haidi, tianhu)
    found = entry[1].get(key)
    if found is None:
        if len(entry[1]) >= _SCORES_LIMIT:
            entry[1].clear()
        found = entry[1][key] = _score(huxi, duidui, red, big, small, rules, zimo, haidi, tianhu)
    return found


# ---------------------------------------------------------------------------------------------------
# R6.2 the best scoring arrangement
# ---------------------------------------------------------------------------------------------------


def _best(  # noqa: PLR0913 — the counts of analysis.arrangements_counted and the score's flags
    found: tuple[Arrangement, ...],
    red: int,
    big: int,
    n: int,
    rules: RuleSet,
    *,
    zimo: bool,
    haidi: bool,
    tianhu: bool,
) -> Win | None:
    """The best of the candidates by (points, 胡息) (R6.2); on a full tie the first (analysis lists 对对 last).
    ``red``, ``big``, ``n``: the winner's red, big and all cards (the same for every candidate)."""
    best: Win | None = None
    best_key = (0, 0)
    for arrangement in found:
        s = _cached_score(arrangement.huxi, arrangement.duidui, red, big, n - big, rules, zimo, haidi, tianhu)
        key = (s.points, arrangement.huxi)
        if best is None or key > best_key:
            best, best_key = new_win(arrangement, s), key
    return best


def evaluate(  # noqa: PLR0913 — the cards, the rules, and what the play decided
    hand: Sequence[Card],
    table: Sequence[Group],
    card: Card | None,
    source: Source,
    rules: RuleSet,
    *,
    last_card: bool = False,
    tianhu: bool = False,
    zimo: bool | None = None,
    facts: PlayFacts | None = None,
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
    :param facts: what the play decided (R9: 黄番's n, the 醒 card, 地胡, 听胡); a regional family ranks the
        arrangements by its own points (R6.2, :mod:`paohuzi.scoring.family`).
    :raises paohuzi.analysis.AnalysisError: for more than 4 of a kind, a card without a source …
    :raises ScoringError: for facts these rules cannot use (a 醒 card without 醒 …).

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
    if facts is not None:
        family.check_facts(facts, rules)
    if source is Source.DISCARD and not rules.win_on_discard:
        # R4.2: nobody may 胡 a discarded card. Bad input is still refused, without the search.
        analysis.validate(hand, table, card, source, min_huxi=rules.min_huxi, yiwushi=rules.yiwushi)
        return None
    if zimo is None:
        zimo = source is Source.SELF or tianhu
    if rules.family != "classic":
        return family.best_family_win(
            hand, table, card, source, rules, last_card=last_card, tianhu=tianhu, zimo=zimo, facts=facts or NO_FACTS
        )
    found, red, big, n = analysis.arrangements_counted(hand, table, card, source, rules.min_huxi)
    if not found:
        return None
    return _best(found, red, big, n, rules, zimo=zimo, haidi=last_card, tianhu=tianhu)


def evaluate_tianhu_dealt(
    hand: Sequence[Card], table: Sequence[Group], rules: RuleSet, facts: PlayFacts | None = None
) -> Win | None:
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
    >>> evaluate_tianhu_dealt(three_ti, [], find_preset("liuhuqiang")) is None  # R9.3: not on 15-card hands
    True
    """
    if facts is not None:
        family.check_facts(facts, rules)
    if rules.dealer_cards < 21 or not analysis.dealt_tianhu(hand, table):
        return None  # R9.3 decision: no automatic 3 提 / 5 坎 天胡 on 15-card hands
    arrangement = analysis.tianhu_arrangement(hand, table, yiwushi=rules.yiwushi)
    if rules.family != "classic":  # R9.2: the 囤 table (below 10 胡息: 1); 醒 over its groups only (R9.4)
        return family.tianhu_dealt_win(arrangement, rules, facts or NO_FACTS, table)
    return Win(arrangement, score(arrangement, rules, zimo=True, tianhu=True))


def scored_waits(
    hand: Sequence[Card],
    table: Sequence[Group],
    rules: RuleSet,
    *,
    last_card: bool = False,
    facts: PlayFacts | None = None,
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
    if rules.family != "classic":
        if facts is not None:
            family.check_facts(facts, rules)
        return family.family_waits(hand, table, rules, last_card=last_card, facts=facts or NO_FACTS)
    if facts is not None:
        family.check_facts(facts, rules)
    out: list[tuple[Card, Win]] = []
    for card, found, red, big, n in analysis.waits_counted(hand, table, rules.min_huxi):
        win = _best(found, red, big, n, rules, zimo=True, haidi=last_card, tianhu=False)
        if win is not None:
            out.append((card, win))
    return out


def waits_to_dicts(waits: Iterable[tuple[Card, Win]]) -> list[WaitDict]:
    """The JSON form of :func:`scored_waits` (``paohuzi analyze``, the server's ``waits``):
    ``[{"card", "huxi", "points"}, …]``."""
    tokens = TOKENS
    return [{"card": tokens[card], "huxi": win.arrangement.huxi, "points": win.score.points} for card, win in waits]


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
    facts: PlayFacts | None = None,
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
        win = evaluate(hand, table, card, source, rules, last_card=last_card, tianhu=tianhu, facts=facts)
        return HandAnalysis(win, None)
    win = evaluate(hand, table, None, source, rules, last_card=last_card, tianhu=tianhu, zimo=True, facts=facts)
    if tianhu:
        dealt = evaluate_tianhu_dealt(hand, table, rules, facts)
        if dealt is not None and dealt.better_than(win):
            win = dealt
    return HandAnalysis(win, tuple(scored_waits(hand, table, rules, last_card=last_card, facts=facts)))
