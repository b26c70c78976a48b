"""The engine skips the full R6.1 analysis when a cheap bound says a hand cannot be complete
(``Hand._maybe_complete``). It must never skip a complete hand: checked against the analysis for every
card kind and source, at many positions of random games."""

from __future__ import annotations

import random

from paohuzi import analysis
from paohuzi.analysis import Source
from paohuzi.cards import Card
from paohuzi.engine import Hand
from paohuzi.rules import find_preset


def test_the_prefilter_never_rejects_a_complete_hand() -> None:
    rules = find_preset("qq")
    rng = random.Random(5)
    checked = complete = 0
    for seed in range(150):
        hand = Hand(rules, seed=seed)
        while not hand.over:
            for s in hand.seats:
                cards, table = hand.hand_of(s), hand.table_of(s)
                held = [0] * 20
                for c in cards:
                    held[c] += 1
                for g in table:
                    for c in g.cards:
                        held[c] += 1
                options: list[tuple[Card | None, Source]] = [(None, Source.NONE)]
                options += [(c, src) for c in Card if held[c] < 4 for src in (Source.SELF, Source.OTHER)]
                for card, source in options:
                    if source is Source.NONE and max(held) > 4:
                        continue
                    ok = analysis.is_complete(cards, table, card, source, min_huxi=rules.min_huxi)
                    checked += 1
                    if ok:
                        complete += 1
                        assert hand._maybe_complete(s, None if card is None else int(card)), (seed, s, card)
            seat = rng.choice(hand.deciding)
            hand.apply(seat, rng.choice(hand.legal_actions(seat)))
    assert checked > 50_000 and complete > 20
