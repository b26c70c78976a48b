"""The R5 permutation tests' position: the same decision with the other seats' hands and the stock dealt again."""

from __future__ import annotations

import random
from dataclasses import replace

from paohuzi.engine import Hand
from paohuzi.rules import RuleSet


def redealt(rules: RuleSet, hand: Hand, seat: int, rng: random.Random) -> Hand:
    """``hand`` rebuilt at this decision (:meth:`Hand.from_position`) from ``seat``'s observation, the other
    seats' hands and the stock dealt out again from the same cards (their sizes kept): everything ``seat``
    sees is unchanged, everything hidden from it is shuffled."""
    hidden = hand.hidden(seat)
    pool = [c for s, cards in enumerate(hidden.hands) if s != seat for c in cards] + list(hidden.stock)
    rng.shuffle(pool)
    hands = []
    for s, cards in enumerate(hidden.hands):
        if s == seat:
            hands.append(cards)
        else:
            hands.append(tuple(pool[: len(cards)]))
            del pool[: len(cards)]
    return Hand.from_position(rules, hand.observation(seat), replace(hidden, hands=tuple(hands), stock=tuple(pool),
                                                                       decided=()))
