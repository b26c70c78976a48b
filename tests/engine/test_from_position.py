"""``Hand.from_position``: an observation (R5) plus the hidden cards is the whole position.

Round trip over thousands of random positions of every preset (and the options that change the flow):
``Hand`` → ``observation(seat)`` + ``hidden(seat)`` → ``Hand`` offers the same decisions, shows every seat
the same, and plays on identically (same events, same outcome) for the same actions, 逃跑 included.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from paohuzi.cards import Card
from paohuzi.engine import EngineError, Hand, Hidden, Observation, Phase
from paohuzi.rules import RuleSet, find_preset

CONFIGS = {
    "qq": find_preset("qq"),
    "hengyang": find_preset("hengyang"),
    "hunan": find_preset("hunan"),
    "huayang": find_preset("huayang"),
    "hunan-four": find_preset("hunan").with_options(four_players=True),
    "qq-win-on-discard": find_preset("qq").with_options(win_on_discard=True),
    "qq-tianhu-on-liangzhang": find_preset("qq").with_options(tianhu_on_liangzhang=True),
}
HANDS = 40


def _rebuilt(hand: Hand, seat: int) -> Hand:
    return Hand.from_position(hand.rules, hand.observation(seat), hand.hidden(seat), double_cards=hand.double_cards)


def _same_position(a: Hand, b: Hand) -> None:
    assert a.deciding == b.deciding and a.phase == b.phase and a.stock_left == b.stock_left
    for s in range(a.table_size):
        assert a.legal_actions(s) == b.legal_actions(s)
        assert a.observation(s) == b.observation(s)
        assert a.hidden(s) == b.hidden(s)


def _step(hand: Hand, rng: random.Random) -> None:
    if rng.random() < 0.002:
        hand.leave(rng.choice(hand.seats))
        return
    seat = rng.choice(hand.deciding)
    legal = hand.legal_actions(seat)
    hand.apply(seat, legal[-1] if rng.random() < 0.3 else rng.choice(legal))


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_r5_observation_plus_hidden_rebuilds_a_hand_that_plays_identically(name: str) -> None:
    rules = CONFIGS[name]
    positions = played_out = 0
    for seed in range(HANDS):
        rng = random.Random(seed)
        hand = Hand(rules, seed=seed, double_cards=(seed % 3,) if seed % 4 == 0 else ())
        while not hand.over:
            seat = rng.randrange(hand.table_size)
            again = _rebuilt(hand, seat)
            positions += 1
            _same_position(hand, again)
            if rng.random() < 0.12:  # play both on with the same actions to the end
                played_out += 1
                original, start = hand.copy(), len(hand.events)
                twin = random.Random(rng.random())
                twin_state = twin.getstate()
                while not original.over:
                    _step(original, twin)
                twin.setstate(twin_state)
                while not again.over:
                    _step(again, twin)
                assert again.events == original.events[start:]
                assert again.outcome == original.outcome
            _step(hand, rng)
    assert positions > 400 and played_out > 30


def test_from_position_checks_card_conservation() -> None:
    hand = Hand(find_preset("qq"), seed=5)
    seat = hand.deciding[0]
    obs, hidden = hand.observation(seat), hand.hidden(seat)
    other = next(s for s in hand.seats if s != seat)
    swapped = list(hidden.hands)
    cards = list(swapped[other])
    gone = cards[0]
    extra = next(c for c in Card if c != gone and sum(h.count(c) for h in hidden.hands) + hidden.stock.count(c) >= 1)
    cards[0] = extra
    swapped[other] = tuple(cards)
    pattern = rf"card conservation \(R1\): .*{gone} appears 3 times, not 4 .*{extra} appears 5 times, not 4"
    if extra < gone:
        pattern = rf"card conservation \(R1\): .*{extra} appears 5 times, not 4 .*{gone} appears 3 times, not 4"
    with pytest.raises(EngineError, match=pattern):
        Hand.from_position(hand.rules, obs, replace(hidden, hands=tuple(swapped)))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda o, h: (o, replace(h, stock=h.stock[1:])), r"the stock has 19 cards, hidden.stock has 18"),
        (lambda o, h: (o, replace(h, hands=h.hands[:2])), r"hidden.hands has 2 entries for a table of 3"),
        (
            lambda o, h: (o, replace(h, hands=(h.hands[0], h.hands[1][1:], h.hands[2]))),
            r"hidden.hands\[1\] is not seat 1's observed hand",
        ),
        (
            lambda o, h: (o, replace(h, hands=(h.hands[0][1:], h.hands[1], h.hands[2]))),
            r"seat 0 holds 20 cards \(hand_counts\), hidden.hands\[0\] has 19",
        ),
        (lambda o, h: (replace(o, rules="hunan"), h), r"the observation is of rule set 'hunan', not 'qq'"),
        (lambda o, h: (replace(o, phase=Phase.SELF_HU), h), r"phase self_hu needs hidden.drawn"),
        (lambda o, h: (o, replace(h, wei=((Card.X1,), (), ()))), r"seat 0 has 0 hidden 偎, hidden.wei\[0\] names 1"),
    ],
)
def test_from_position_names_what_does_not_fit(change, message: str) -> None:  # type: ignore[no-untyped-def]
    hand = Hand(find_preset("qq"), seed=7)  # seat 1 deals and must discard
    obs, hidden = change(hand.observation(1), hand.hidden(1))
    with pytest.raises(EngineError, match=message):
        Hand.from_position(find_preset("qq"), obs, hidden)


def test_from_position_refuses_an_ended_hand_and_has_no_record() -> None:
    rules = find_preset("qq")
    hand = Hand(rules, seed=3)
    again = _rebuilt(hand, 0)
    with pytest.raises(EngineError, match="has no deal to record"):
        again.record()
    hand.leave(0)
    with pytest.raises(EngineError, match="hand that is over"):
        _rebuilt(hand, 1)


def test_r4_4_decisions_already_made_in_a_claim_window_are_kept() -> None:
    """A window where one seat has answered and a seat with priority has not (R4.4)."""
    rules: RuleSet = find_preset("qq")
    for seed in range(400):
        rng = random.Random(seed)
        hand = Hand(rules, seed=seed)
        while not hand.over:
            if hand.phase is Phase.CLAIM and len(hand.deciding) >= 2:
                last = hand.deciding[-1]
                hand.apply(last, hand.legal_actions(last)[-1])
                if hand.phase is Phase.CLAIM and last not in hand.deciding:
                    hidden = hand.hidden(0)
                    assert hidden.decided and hidden.decided[0][0] == last
                    again = _rebuilt(hand, 0)
                    _same_position(hand, again)
                    first = hand.deciding[0]
                    assert hand.apply(first, "pass") == again.apply(first, "pass")
                    _same_position(hand, again)
                    return
            _step(hand, rng)
    pytest.fail("no claim window with two deciding seats in 400 hands")


def test_hidden_is_observation_free_of_cards_the_seat_sees() -> None:
    hand = Hand(find_preset("qq"), seed=11)
    obs: Observation = hand.observation(2)
    hidden: Hidden = hand.hidden(2)
    assert hidden.hands[2] == obs.hand and len(hidden.stock) == obs.stock
    assert sum(obs.unseen()) == sum(len(h) for s, h in enumerate(hidden.hands) if s != 2) + len(hidden.stock)
