"""提示 (issue #16 item 4): the hint uses the seat's own observation only (R5), suggests a legal move, and lists
the exact 听牌 (R6) of each discard."""

from __future__ import annotations

import random

from paohuzi import scoring
from paohuzi.bots import make_bot
from paohuzi.bots.hints import hint
from paohuzi.cards import Card
from paohuzi.engine import Hand
from paohuzi.engine.deck import full_deck, stack_deck
from paohuzi.rules import find_preset

from .redeal import redealt_positions

QQ = find_preset("qq")


def _pair(seed: int) -> tuple[Hand, Hand]:
    """Two hands dealt with the same cards to seat 0 (the dealer, with the same 亮张) and the other seats' hands
    and the stock shuffled differently: they differ only in what seat 0 cannot see."""
    deck = full_deck()
    random.Random(seed).shuffle(deck)
    mine = [Card(c) for c in deck[:21]]
    a = Hand(QQ, 0, 0, deck=stack_deck(QQ, 0, {0: mine}, fill_seed=2 * seed))
    b = Hand(QQ, 0, 0, deck=stack_deck(QQ, 0, {0: mine}, fill_seed=2 * seed + 1))
    return a, b


def test_r5_hint_identical_when_hidden_cards_are_permuted() -> None:
    compared = 0
    for seed in range(40):
        a, b = _pair(seed)
        assert a.hand_of(1) != b.hand_of(1) or a.hand_of(2) != b.hand_of(2)
        if 0 not in a.deciding or a.observation(0) != b.observation(0):
            continue  # another seat's 提 at the deal is visible (R5 lets seat 0 see it): not the same position
        ha, hb = hint(a.observation(0)), hint(b.observation(0))
        assert ha == hb
        assert ha["suggest"] in a.observation(0).to_dict()["legal"]
        compared += 1
    assert compared >= 30


def test_r6_discard_waits_match_the_scoring_of_the_seats_cards() -> None:
    """Through whole hands played by greedy bots: every listed discard's waits are exactly
    :func:`paohuzi.scoring.scored_waits` of the seat's cards less that card, and the list is every legal
    discard."""
    bot = make_bot("greedy", seed=0)
    tenpai = 0
    for seed in range(3):
        hand = Hand(QQ, seed=seed)
        while not hand.over:
            seat = hand.deciding[0]
            obs = hand.observation(seat)
            h = hint(obs)
            assert h["suggest"] in obs.to_dict()["legal"]
            assert hint(obs.to_dict()) == h  # the JSON form reads the same
            legal = sorted({Card.parse(t.split()[1]) for t in obs.to_dict()["legal"] if t.startswith("discard ")})
            assert [d["card"] for d in h["discards"]] == [str(c) for c in legal]
            for d in h["discards"]:
                cards = list(hand.hand_of(seat))
                cards.remove(Card.parse(d["card"]))
                want = scoring.waits_to_dicts(scoring.scored_waits(cards, hand.table_of(seat), QQ))
                assert d["waits"] == want
                tenpai += bool(want)
            hand.apply(seat, bot.act(obs, hand.legal_actions(seat)))
    assert tenpai >= 1


def test_no_decision_no_suggestion() -> None:
    a, _ = _pair(5)
    waiting = next(s for s in a.seats if s not in a.deciding)
    assert hint(a.observation(waiting)) == {"suggest": None, "discards": []}


def test_r5_hint_identical_mid_hand_when_hidden_cards_are_permuted() -> None:
    """Through hands played by greedy bots, at each decision: the same position rebuilt
    (:meth:`Hand.from_position`) with the other seats' hands and the stock dealt out again from the same
    cards gives the deciding seat the same hint (R5)."""
    compared = 0
    for _hand, seat, obs, other in redealt_positions(QQ, range(4)):
        if other.observation(seat) == obs:  # the same position for this seat (the claim window may differ)
            assert hint(other.observation(seat)) == hint(obs)
            compared += 1
    assert compared >= 60, compared
