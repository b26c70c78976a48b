"""Partial arrangements and the dealt 天胡 (R6.4, R7.3 逃跑): :func:`partial_arrangement`, :func:`dealt_tianhu`,
:func:`tianhu_arrangement`. Re-exported by :mod:`paohuzi.analysis`; import them from there.
"""

from __future__ import annotations

from collections.abc import Sequence

from paohuzi.analysis.types import AnalysisError, Arrangement
from paohuzi.cards import CARDS, NUM_KINDS, Card
from paohuzi.groups import Group, GroupKind

__all__ = ["partial_arrangement", "dealt_tianhu", "tianhu_arrangement"]


def _group_order(g: Group) -> tuple[int, tuple[Card, ...]]:
    return (_KIND_ORDER[g.kind], g.cards)


_KIND_ORDER = {k: i for i, k in enumerate(GroupKind)}


def partial_arrangement(cards: Sequence[Card], *, yiwushi: bool = False) -> Arrangement:
    """The best partial arrangement of any cards (R6.4): 提 and 坎, then the scoring sequences
    (一二三, 二七十 and their big forms; 一五十 too with ``yiwushi``, R9.3) that give the most 胡息; the other cards
    stay loose.

    >>> from paohuzi.cards import parse_cards
    >>> a = partial_arrangement(parse_cards("x1 x2 x3 x2 x7 x10 d4 d4 d4 d9"))
    >>> a.huxi, [str(g) for g in a.groups], [str(c) for c in a.loose]
    (12, ['kan:d4 d4 d4', 'ju:x1 x2 x3', 'ju:x2 x7 x10'], ['d9'])
    >>> b = partial_arrangement(parse_cards("x1 x1 x2 x3 x5 x10"), yiwushi=True)
    >>> b.huxi, [str(g) for g in b.groups]
    (6, ['ju:x1 x2 x3', 'ju:x1 x5 x10'])
    """
    counts = [0] * NUM_KINDS
    for c in cards:
        if not isinstance(c, int) or not 0 <= c < NUM_KINDS:
            raise AnalysisError(f"not a card: {c!r}")
        counts[c] += 1
        if counts[c] > 4:
            raise AnalysisError(f"more than 4 copies of {Card(c)} (R1)")
    groups: list[Group] = []
    for k in range(NUM_KINDS):
        if counts[k] >= 3:
            groups.append(Group(GroupKind.TI if counts[k] == 4 else GroupKind.KAN, (CARDS[k],) * counts[k]))
            counts[k] = 0
    for offset in (0, 10):
        one, two, three, five, seven, ten = (counts[offset + p - 1] for p in (1, 2, 3, 5, 7, 10))
        # x2 is shared by 一二三 and 二七十, x1 and x10 by 一五十 (R9.3) too; all score the same, so take as many
        # groups as fit (without 一五十 exactly as before: w stays 0).
        best = (0, 0, 0)
        for w in range(min(one, five, ten) + 1 if yiwushi else 1):
            for a in range(min(one - w, two, three) + 1):
                b = min(two - a, seven, ten - w)
                if a + b + w > sum(best):
                    best = (a, b, w)
        for points, n in (((1, 2, 3), best[0]), ((2, 7, 10), best[1]), ((1, 5, 10), best[2])):
            for _ in range(n):
                kinds = tuple(CARDS[offset + p - 1] for p in points)
                groups.append(Group(GroupKind.JU, kinds))
                for k in kinds:
                    counts[k] -= 1
    groups.sort(key=_group_order)
    loose = tuple(CARDS[k] for k in range(NUM_KINDS) for _ in range(counts[k]))
    return Arrangement(tuple(groups), sum(g.huxi for g in groups), False, loose)


def dealt_tianhu(hand: Sequence[Card], table: Sequence[Group] = ()) -> bool:
    """True if the dealt cards are a 天胡 (R6.4): 3 or more 提, or 5 or more kinds held 3 or 4 times.

    Table 提 (put down at the opening, R4.1) count as 提 held four times.

    >>> from paohuzi.cards import parse_cards
    >>> dealt_tianhu(parse_cards("x1 x1 x1 x2 x2 x2 x3 x3 x3 x4 x4 x4 d5 d5 d5"))
    True
    """
    counts = [0] * NUM_KINDS
    for c in hand:
        counts[c] += 1
    ti = sum(1 for g in table if g.kind is GroupKind.TI) + sum(1 for n in counts if n == 4)
    kan = sum(1 for n in counts if n == 3)
    return ti >= 3 or ti + kan >= 5


def tianhu_arrangement(hand: Sequence[Card], table: Sequence[Group] = (), *, yiwushi: bool = False) -> Arrangement:
    """The arrangement a dealt 天胡 scores (R6.4): the table groups, then the hand's partial arrangement."""
    part = partial_arrangement(hand, yiwushi=yiwushi)
    groups = tuple(table) + part.groups
    return Arrangement(groups, sum(g.huxi for g in groups), False, part.loose)
