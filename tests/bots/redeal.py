"""The R5 permutation tests' position: the same decision with the other seats' hands and the stock dealt again."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import replace

from paohuzi.bots import make_bot
from paohuzi.engine import Hand, Observation
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


def redealt_positions(rules: RuleSet, seeds: Iterable[int]) -> Iterator[tuple[Hand, int, Observation, Hand]]:
    """Every decision of hands played by greedy (hand seeds ``seeds``): ``(hand, seat, observation, other)``,
    ``other`` being :func:`redealt` (shuffled with ``random.Random(seed)``). Greedy's move is played after each."""
    bot = make_bot("greedy", seed=0)
    for seed in seeds:
        rng = random.Random(seed)
        hand = Hand(rules, seed=seed)
        while not hand.over:
            seat = hand.deciding[0]
            obs = hand.observation(seat)
            yield hand, seat, obs, redealt(rules, hand, seat, rng)
            hand.apply(seat, bot.act(obs, hand.legal_actions(seat)))
