"""Helpers for the 衡阳六胡抢 tests (R9.3): a quiet four-player deal of 15/14-card hands.

Dealer 0; turn order 0 → 1 → 2 → 3. Every seat holds four 坎 and two loose cards (the fourth copies of other
seats' 坎 kinds, chosen so that no two of them make a 句 or 绞 with anything that comes up); the dealer's
亮张 is d3. The stock starts with the fifteen other d3–d6, which nobody can claim, then the fourth copies of
the remaining 坎 kinds. So after the dealer's discard of d3 fifteen draws go by unclaimed, and a test changes
only the cards its rule needs.
"""

from __future__ import annotations

from collections.abc import Mapping

from paohuzi.engine import Hand, stack_deck
from paohuzi.rules import RuleSet, find_preset

LHQ = find_preset("liuhuqiang")

#: seat -> its dealt cards (the dealer's 14, the 亮张 apart). 胡息 of the 坎: 15, 18, 18, 15.
BASE4: dict[int, str] = {
    0: "x1 x1 x1 x5 x5 x5 x9 x9 x9 d10 d10 d10 x2 x8",
    1: "x2 x2 x2 x6 x6 x6 d1 d1 d1 d7 d7 d7 x3 d9",
    2: "x3 x3 x3 x7 x7 x7 d2 d2 d2 d8 d8 d8 x4 d10",
    3: "x4 x4 x4 x8 x8 x8 x10 x10 x10 d9 d9 d9 x5 d1",
}
QUIET4 = "d3 d3 d3 d4 d4 d4 d4 d5 d5 d5 d5 d6 d6 d6 d6"


def deal4(
    hands: Mapping[int, str] | None = None,
    *,
    liang: str = "d3",
    stock: str = QUIET4,
    rules: RuleSet = LHQ,
    dealer: int = 0,
) -> Hand:
    """A stacked four-player hand: :data:`BASE4` with ``hands`` replacing whole hands, the 亮张, and the first
    stock cards; the cards left over fill the rest of the stock (shuffled with ``fill_seed`` 0)."""
    full = {**BASE4, **(hands or {})}
    deck = stack_deck(rules, dealer, full, liangzhang=liang, stock=stock)
    return Hand(rules, None, dealer, deck=deck)


def total(hand: Hand, seat: int) -> int:
    """Hand + table cards of ``seat`` (R4.6)."""
    return len(hand.hand_of(seat)) + sum(len(g.cards) for g in hand.table_of(seat))
