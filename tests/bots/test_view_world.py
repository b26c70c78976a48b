"""What a bot knows (paohuzi.bots.view, R5) and the worlds the search bot samples from it (bots.world)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from paohuzi.bots import make_bot
from paohuzi.bots.view import read
from paohuzi.bots.world import World, build_hand, sample_world, view_of
from paohuzi.engine import Hand
from paohuzi.groups import GroupKind
from paohuzi.rules import find_preset

QQ = find_preset("qq")


def _states(hands: int, seed: int = 0) -> Iterator[tuple[Hand, int]]:
    """(hand, deciding seat) at every decision of some greedy-vs-random hands."""
    for i in range(hands):
        hand = Hand(QQ, seed=seed + i)
        bots = [make_bot("greedy[useful=false]" if s == i % 3 else "random", seed=s) for s in range(3)]
        while not hand.over:
            seat = hand.deciding[0]
            yield hand, seat
            hand.apply(seat, bots[seat].act(hand.observation(seat), hand.legal_actions(seat)))


def test_unseen_cards_are_the_hidden_ones() -> None:
    for hand, seat in _states(30):
        view = read(hand.observation(seat))
        hidden = sum(view.hand_counts[s] for s in view.others) + 3 * sum(view.hidden_wei) + view.stock
        assert sum(view.unseen) == hidden
        assert view.counts == tuple(hand._st.players[seat].hand)  # its own hand, exactly


def test_view_of_equals_the_observation_view() -> None:
    for hand, _ in _states(25, seed=100):
        for s in hand.seats:
            assert view_of(hand, s) == read(hand.observation(s))


def test_sampled_worlds_fit_the_view() -> None:
    rng = random.Random(3)
    for hand, seat in _states(25, seed=200):
        view = read(hand.observation(seat))
        world = sample_world(view, rng)
        assert world.hands[seat] == view.counts
        assert len(world.stock) == view.stock
        for s in view.others:
            assert sum(world.hands[s]) == view.hand_counts[s]
            assert max(world.hands[s]) <= 3  # four in hand would have been 提 (R4.1, R4.2)
            assert len(world.wei[s]) == view.hidden_wei[s]
        total = [4 - u for u in view.unseen]
        for s in view.others:
            for k, n in enumerate(world.hands[s]):
                total[k] += n
            for k in world.wei[s]:
                total[k] += 3
        for k in world.stock:
            total[k] += 1
        assert total == [4] * 20


def _true_world(hand: Hand, seat: int) -> World:
    """The real hidden cards (the test may look; a bot never does)."""
    wei = tuple(
        tuple(g.cards[0] for g in hand.table_of(s) if g.kind is GroupKind.WEI) if s != seat else ()
        for s in range(hand.table_size)
    )
    return World(tuple(tuple(p.hand) for p in hand._st.players), wei, tuple(hand._st.stock[hand._st.spos :]))


def test_built_hand_offers_the_same_choices() -> None:
    checked = 0
    for hand, seat in _states(25, seed=300):
        view = read(hand.observation(seat))
        if view.phase not in ("discard", "claim"):
            continue
        built = build_hand(view, _true_world(hand, seat))
        assert built.legal_actions(seat) == hand.legal_actions(seat)
        assert built.stock_left == hand.stock_left
        assert [built.table_of(s) for s in hand.seats] == [hand.table_of(s) for s in hand.seats]
        checked += 1
    assert checked > 200


@pytest.mark.parametrize("seed", [400, 401, 402, 403])
def test_built_hand_plays_out_like_the_real_one(seed: int) -> None:
    # At the dealer's first discard nothing is hidden but the cards: with the true hidden cards and the same
    # actions afterwards, the built hand ends exactly as the real one. (Later on, the 臭 a seat earned by
    # declining a claim is not in any view, so a built hand may offer that seat more.)
    hand = Hand(QQ, seed=seed)
    bots = [make_bot("greedy[useful=false]", seed=s) for s in range(3)]
    snapshot = None
    while not hand.over:
        seat = hand.deciding[0]
        if snapshot is None and hand.phase == "discard" and not hand.actions:
            view = read(hand.observation(seat))
            snapshot = (build_hand(view, _true_world(hand, seat)), len(hand.actions))
        hand.apply(seat, bots[seat].act(hand.observation(seat), hand.legal_actions(seat)))
    assert snapshot is not None
    built, start = snapshot
    for s, text in hand.actions[start:]:
        built.apply(s, text)
    assert built.over and built.outcome.payments == hand.outcome.payments
