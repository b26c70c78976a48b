"""The engine skips the full R6.1 analysis when a cheap bound says a hand cannot be complete
(``Seat.maybe_complete``). It must never skip a complete hand: checked against the analysis for every
card kind and source, at many positions of random games."""

from __future__ import annotations

import random

import pytest

from paohuzi import analysis
from paohuzi.analysis import Source
from paohuzi.cards import Card
from paohuzi.engine import Hand
from paohuzi.groups import PARTNERS, GroupKind, same_kind_huxi
from paohuzi.rules import RuleSet, find_preset


@pytest.mark.parametrize(
    ("rules", "seeds", "enough"),
    [
        (find_preset("qq"), 150, 50_000),
        # R9.3: 15-card hands, 起胡 6, 一五十 a 句 (the seat's partner mask and 胡息 bound count it)
        (find_preset("liuhuqiang").with_options(yiwushi=True), 60, 10_000),
    ],
    ids=["qq", "liuhuqiang-yiwushi"],
)
def test_the_prefilter_never_rejects_a_complete_hand(rules: RuleSet, seeds: int, enough: int) -> None:
    rng = random.Random(5)
    checked = complete = 0
    for seed in range(seeds):
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
                    ok = analysis.is_complete(
                        cards, table, card, source, min_huxi=rules.min_huxi, yiwushi=rules.yiwushi
                    )
                    checked += 1
                    if ok:
                        complete += 1
                        seat = hand._st.players[s]
                        assert seat.maybe_complete(None if card is None else int(card), rules.min_huxi), (seed, s, card)
            seat = rng.choice(hand.deciding)
            hand.apply(seat, rng.choice(hand.legal_actions(seat)))
    assert checked > enough and complete > 20


def _reference_maybe_complete(hand: Hand, s: int, card: int | None, min_huxi: int) -> bool:
    """The prefilter as first written (R3, R6.1): one loop per question, straight from the hand's cards."""
    held = [0] * 20
    for c in hand.hand_of(s):
        held[c] += 1
    bound = sum(g.huxi for g in hand.table_of(s))
    loose = [0] * 20
    for k in range(20):
        if held[k] >= 3:
            bound += same_kind_huxi(GroupKind.KAN, k)
        else:
            loose[k] = held[k]
    if card is not None:
        on_table = {g.cards[0]: g.kind for g in hand.table_of(s) if g.kind.same_kind}
        if held[card] == 3 or on_table.get(Card(card)) in (GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PENG):
            bound += 6
        elif held[card] == 2:
            bound += same_kind_huxi(GroupKind.WEI, card)
        loose[card] += 1
    for base, value in ((0, 3), (10, 6)):
        two = loose[base + 1]
        bound += value * (min(loose[base], two, loose[base + 2]) + min(two, loose[base + 6], loose[base + 9]))
    if bound < min_huxi:
        return False
    for k in range(20):
        if loose[k] != 1 or k == card:
            continue
        if not any(
            a != k and b != k and loose[a] and loose[b] and (a != b or loose[a] >= 2) for a, b in PARTNERS[k]
        ):
            return False
    return True


def test_the_prefilter_answers_as_its_straightforward_reference() -> None:
    """The per-seat partner mask (``_partner_mask``) gives, for every card and for none, exactly the
    answer of the loop it replaced, at every position of random games in two rule sets."""
    rng = random.Random(11)
    compared = passed = 0
    for name in ("qq", "hunan"):
        rules = find_preset(name)
        for seed in range(60):
            hand = Hand(rules, seed=seed)
            while not hand.over:
                for s in hand.seats:
                    for card in [None, *range(20)]:
                        want = _reference_maybe_complete(hand, s, card, rules.min_huxi)
                        assert hand._st.players[s].maybe_complete(card, rules.min_huxi) == want, (name, seed, s, card)
                        compared += 1
                        passed += want
                seat = rng.choice(hand.deciding)
                hand.apply(seat, rng.choice(hand.legal_actions(seat)))
    assert compared > 50_000 and passed > 500
