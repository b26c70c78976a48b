"""The engine's door to :mod:`paohuzi.scoring` (R6.2, R7): only the final settlement steps call these.

Kept apart so that the rest of the engine does not depend on the scoring module's details.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from paohuzi import scoring
from paohuzi.analysis import Source
from paohuzi.cards import Card, PaohuziError
from paohuzi.groups import Group
from paohuzi.rules import RuleSet
from paohuzi.scoring import PlayFacts, Win

__all__ = [
    "Win",
    "PlayFacts",
    "ScoringMismatch",
    "evaluate",
    "liangzhang_tianhu",
    "dealt_tianhu",
    "settle",
    "escape_payments",
    "names",
]


class ScoringMismatch(PaohuziError):
    """The engine found a win that scoring does not: a bug in one of them, never a player's fault."""


def evaluate(
    hand: Sequence[Card],
    table: Sequence[Group],
    card: Card | None,
    source: Source,
    rules: RuleSet,
    *,
    last_card: bool,
    zimo: bool,
    facts: PlayFacts | None = None,
) -> Win:
    """The best win (R6.2) of cards the engine found complete (R6.1); ``facts``: what the play decided
    (R9: 黄番, 醒 card, 地胡, 听胡), None for the classic families."""
    win = scoring.evaluate(hand, table, card, source, rules, last_card=last_card, zimo=zimo, facts=facts)
    if win is None:
        raise ScoringMismatch(f"scoring finds no win in {list(map(str, hand))} {list(map(str, table))} {card} {source}")
    return win


def liangzhang_tianhu(
    hand: Sequence[Card],
    table: Sequence[Group],
    card: Card | None,
    source: Source,
    rules: RuleSet,
    facts: PlayFacts | None = None,
) -> Win:
    """天胡 on the 亮张 (R6.4 option): complete per R6.1 (胡息 minimum included, decision in
    docs/decisions.md), scored as 天胡 and 自摸; the best arrangement (R6.2)."""
    win = scoring.evaluate(hand, table, card, source, rules, tianhu=True, facts=facts)
    if win is None:
        raise ScoringMismatch(f"no 亮张 天胡 in {list(map(str, hand))} {list(map(str, table))} {card}")
    return win


def dealt_tianhu(
    hand: Sequence[Card], table: Sequence[Group], rules: RuleSet, facts: PlayFacts | None = None
) -> Win:
    """A dealt 天胡 (R6.4): the 提/坎 plus the best partial arrangement, no 胡息 minimum, 自摸."""
    win = scoring.evaluate_tianhu_dealt(hand, table, rules, facts=facts)
    if win is None:
        raise ScoringMismatch(f"no dealt 天胡 in {list(map(str, hand))} {list(map(str, table))}")
    return win


def settle(
    winner: int,
    points: int,
    seats: Sequence[int],
    stake: int,
    double_cards: Iterable[int],
    table_size: int,
    payer: int | None = None,
) -> tuple[int, ...]:
    """R7.3: each loser in play pays points × stake (or ``payer`` alone pays it all, R8.1 放炮包赔); a
    winning 双倍积分卡 holder's gain doubles. One payment per seat at the table (0 for a seat out)."""
    paid = scoring.settle(winner, points, tuple(seats), stake, frozenset(double_cards), payer=payer)
    return tuple(paid.get(s, 0) for s in range(table_size))


def escape_payments(leaver: int, huxis: Mapping[int, int], stake: int, table_size: int) -> tuple[int, ...]:
    """R7.3 逃跑: the leaver pays (max(0, (H − 12) // 3) + 8) × d, shared by the others."""
    paid = scoring.escape_settlement(leaver, dict(huxis), stake)
    return tuple(paid.get(s, 0) for s in range(table_size))


def names(score: scoring.Score | None) -> tuple[tuple[str, int], ...]:
    """The score's 名堂 as (name, 番) (R7.2), 平胡/天胡/自摸 included."""
    if score is None:
        return ()
    return tuple((n.name, n.fan) for n in score.names)
