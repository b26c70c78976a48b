"""R2: seats, the dealer, the deal (21/20/20, 19 in the stock, the 亮张), four_players, reproducibility."""

from __future__ import annotations

import pytest

from paohuzi.cards import Card, parse_cards
from paohuzi.engine import DeckError, EngineError, Hand, seats_in_play, stack_deck
from paohuzi.engine.deck import check_deck
from paohuzi.engine.events import Deal

from .helpers import BASE, BASE_STOCK, HUNAN, QQ, deal

FOUR = HUNAN.with_options(four_players=True)


def test_r2_deal_21_20_20_and_19_in_the_stock() -> None:
    hand = deal()
    (event,) = hand.events
    assert isinstance(event, Deal)
    assert [len(h) for h in event.hands] == [21, 20, 20]
    assert event.stock == 19 and hand.stock_left == 19
    assert event.dealer == 0 and event.seats == (0, 1, 2) and event.sitting_out is None
    assert sorted(event.hands[1]) == sorted(parse_cards(BASE[1]))
    assert hand.referee_view()["stock_cards"] == BASE_STOCK.split()


def test_r2_liangzhang_is_the_dealers_21st_card_shown_to_everyone() -> None:
    hand = deal(liang="x8")
    assert hand.liangzhang is Card.X8
    assert hand.hand_of(0).count(Card.X8) == 2  # it stays in the dealer's hand
    for seat in (0, 1, 2):
        obs = hand.observation(seat).to_dict()
        assert obs["liangzhang"] == "x8"
        assert obs["hand_counts"] == [21, 20, 20]
        deal_event = hand.events[0].for_seat(seat)
        assert deal_event is not None and deal_event["liangzhang"] == "x8"


def test_r2_the_dealer_plays_first_and_play_passes_to_the_xiajia() -> None:
    hand = deal()
    assert hand.deciding == (0,)
    hand.apply(0, "discard x4")
    draws = [e.seat for e in hand.events if e.type == "draw"]  # type: ignore[attr-defined]
    assert draws[:7] == [1, 2, 0, 1, 2, 0, 1]


def test_r2_the_same_seed_deals_the_same_hand() -> None:
    a, b = Hand(QQ, seed=1234), Hand(QQ, seed=1234)
    assert a.events == b.events and a.dealer == b.dealer
    assert a.referee_view() == b.referee_view()
    assert Hand(QQ, seed=1235).events != a.events


def test_r2_the_dealer_is_drawn_from_the_seed() -> None:
    dealers = {Hand(QQ, seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2}


def test_r2_a_chosen_dealer_does_not_change_the_shuffle() -> None:
    free = Hand(QQ, seed=99)
    other = (free.dealer + 1) % 3
    chosen = Hand(QQ, seed=99, dealer=other)
    assert chosen.dealer == other
    assert chosen.referee_view()["stock_cards"] == free.referee_view()["stock_cards"]


def test_r2_four_players_the_dealers_opposite_sits_out() -> None:
    hand = Hand(FOUR, seed=5, dealer=1)
    assert hand.table_size == 4 and hand.sitting_out == 3 and hand.seats == (1, 2, 0)
    assert seats_in_play(FOUR, 1) == (1, 2, 0)
    (event,) = [e for e in hand.events if e.type == "deal"]
    assert [len(h) for h in event.hands] == [20, 21, 20, 0]  # type: ignore[attr-defined]
    obs = hand.observation(3).to_dict()
    assert obs["hand"] == [] and obs["legal"] == [] and obs["sitting_out"] == 3
    # 下家 of seat 2 is seat 0: the sitting-out seat is skipped.
    while not hand.over:
        seat = hand.deciding[0]
        hand.apply(seat, hand.legal_actions(seat)[-1])
        assert 3 not in hand.deciding
    assert hand.outcome is not None and hand.outcome.payments[3] == 0 and sum(hand.outcome.payments) == 0
    for e in hand.events:
        assert getattr(e, "seat", None) != 3


def test_r2_four_players_stacked_deck() -> None:
    mine = "x1 x1 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 d1 d2 d3 d4 d5 d6 d7 d8"
    hand = deal(rules=FOUR, dealer=3, hands={3: mine}, liang="d9")
    assert hand.seats == (3, 0, 2) and hand.sitting_out == 1
    assert hand.hand_of(1) == ()
    assert hand.hand_of(3) == tuple(sorted(parse_cards(mine + " d9")))
    assert hand.stock_left == 19


def test_r2_bad_arguments_are_refused() -> None:
    with pytest.raises(EngineError, match="dealer must be a seat 0–2"):
        Hand(QQ, seed=1, dealer=3)
    with pytest.raises(EngineError, match="seed must be an int"):
        Hand(QQ, seed="x")  # type: ignore[arg-type]
    with pytest.raises(EngineError, match="RuleSet"):
        Hand("qq", seed=1)  # type: ignore[arg-type]
    with pytest.raises(EngineError, match="wrong counts: x1×5, x2×3"):
        Hand(QQ, seed=1, deck=["x1"] * 5 + ["x2"] * 3 + [str(c) for c in Card if c > Card.X2 for _ in range(4)])
    with pytest.raises(DeckError, match="80 cards"):
        check_deck("x1 x2")
    with pytest.raises(DeckError, match="more than 4 copies chosen: x1×5"):
        stack_deck(QQ, 0, {1: "x1 x1 x1 x1"}, stock="x1")
    with pytest.raises(DeckError, match="does not play"):
        stack_deck(FOUR, 0, {2: "x1"})


def test_r2_the_seeded_shuffle_is_random_shuffle() -> None:
    """RNG_VERSION 1 is ``random.Random(seed)``: the dealer draw, then ``Random.shuffle`` of the deck in kind
    order. The engine's inlined shuffle (issue 15) must give the very same decks."""
    import random

    from paohuzi.cards import full_deck
    from paohuzi.engine import deck as deck_module

    assert deck_module._shuffle is deck_module._fast_shuffle  # the stdlib agrees, so the fast copy is in use
    for seed in [*range(300), 2**31 - 1, 2**62 + 12345]:
        rng = random.Random(seed)
        drawn = rng.randrange(3)
        cards = full_deck()
        rng.shuffle(cards)
        assert deck_module.shuffled(seed, 3, None) == (drawn, tuple(cards))
        assert deck_module.shuffled(seed, 3, 2) == (2, tuple(cards))
