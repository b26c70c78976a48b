"""R5: who sees what — the own hand, every table group but a 偎's cards, rows, shown cards, the 亮张, counts;
never another hand or the stock; all hands at the end. Observations and events are JSON-ready."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from paohuzi.engine import Hand, for_seats
from paohuzi.rules import find_preset

from .helpers import BASE, W_HANDS, deal, play, swap

WEI_SEAT1 = {1: swap(BASE[1], "x4 x8", "d4 d4")}


def test_r5_a_seat_sees_its_own_hand_and_counts_of_the_others() -> None:
    hand = deal()
    obs = hand.observation(1).to_dict()
    assert obs["seat"] == 1 and obs["hand"] == [str(c) for c in hand.hand_of(1)]
    assert obs["hand_counts"] == [21, 20, 20] and obs["stock"] == 19
    assert "hands" not in obs and "stock_cards" not in obs
    assert obs["deciding"] is False and obs["legal"] == []
    assert hand.observation(0).to_dict()["legal"] == [str(a) for a in hand.legal_actions(0)]
    json.dumps(obs)


def test_r5_a_wei_is_hidden_from_the_others() -> None:
    hand = deal(WEI_SEAT1, stock="d4")
    play(hand, "0: discard x2")
    assert hand.observation(1).to_dict()["tables"][1] == [{"kind": "wei", "cards": ["d4", "d4", "d4"], "huxi": 6}]
    for seat in (0, 2):
        assert hand.observation(seat).to_dict()["tables"][1] == [{"kind": "wei", "cards": None}]
    draw, wei = hand.events[-2], hand.events[-1]
    assert (draw.type, wei.type) == ("draw", "wei")
    assert draw.for_seat(1)["card"] == "d4" and wei.for_seat(1)["card"] == "d4"  # type: ignore[index]
    assert draw.for_seat(0)["card"] is None and wei.for_seat(2)["card"] is None  # type: ignore[index]
    assert wei.to_dict()["card"] == "d4"  # the referee's version


def test_r5_the_deal_shows_each_seat_only_its_own_hand() -> None:
    hand = deal()
    for seat in (0, 1, 2):
        seen = hand.events[0].for_seat(seat)
        assert seen is not None
        assert [h is not None for h in seen["hands"]] == [s == seat for s in (0, 1, 2)]
        assert seen["hand_counts"] == [21, 20, 20]
    assert all(h is not None for h in hand.events[0].to_dict()["hands"])


def test_r5_passes_and_chou_are_told_only_to_their_seat() -> None:
    hand = deal(W_HANDS, stock="x10")
    play(hand, "0: discard x2")
    events = hand.apply(1, "pass") + hand.apply(0, "pass") + hand.apply(2, "pass")
    private = [e for e in events if e.type in ("pass", "chou")]
    assert private
    for e in private:
        assert e.to == e.seat  # type: ignore[attr-defined]
        others = [s for s in (0, 1, 2) if s != e.seat]  # type: ignore[attr-defined]
        assert all(e.for_seat(s) is None for s in others)


def test_r5_shown_cards_rows_and_the_pending_card_are_public() -> None:
    hand = deal(W_HANDS, stock="x10")
    play(hand, "0: discard x2")
    for seat in (0, 1, 2):
        obs = hand.observation(seat).to_dict()
        assert obs["pending"] == {"card": "x10", "from": 1, "drawn": True, "last": False}
        assert obs["rows"][0] == [{"card": "x2", "discarded": True}]
        assert obs["phase"] == "claim" and obs["turn"] == 1
        assert obs["deciding"] is True  # here all three may claim


def test_r5_at_the_end_every_hand_is_shown() -> None:
    hand = deal(W_HANDS, stock="x10")
    play(hand, "0: discard x2", "1: hu")
    obs = hand.observation(2).to_dict()
    assert obs["hands"][0] == [str(c) for c in hand.hand_of(0)]
    assert obs["outcome"]["winner"] == 1 and obs["outcome"]["payments"] == [-12, 24, -12]
    hu = hand.events[-2]
    assert hu.for_seat(0)["hands"][1] == [str(c) for c in hand.hand_of(1)]  # type: ignore[index]
    json.dumps([e.to_dict() for e in hand.events])
    json.dumps(hand.referee_view())


@given(
    seed=st.integers(0, 10**6),
    moves=st.integers(0, 120),
    preset=st.sampled_from(["qq", "changde_qmt", "shihuka", "liuhuqiang", "hunan"]),
)
@settings(max_examples=60, deadline=None)
def test_r5_for_seats_tells_each_seat_what_for_seat_tells_it(seed: int, moves: int, preset: str) -> None:
    """Issue 33: ``for_seats`` (each event's dict made once for all the seats) gives every seat exactly its own
    ``for_seat`` of each event — the hidden draws, 偎 and deals redacted for the others — and one seat's dicts are
    not another's (a redaction edits its copy only)."""
    rng = random.Random(seed)
    hand = Hand(find_preset(preset), seed=seed)
    while not hand.over and hand.deciding and moves:
        seat = hand.deciding[0]
        hand.apply(seat, rng.choice(hand.legal_actions(seat)))
        moves -= 1
    events = list(hand.events)
    seats = list(hand.seats)
    told = for_seats(events, seats)
    for k, seat in enumerate(seats):
        assert told[k] == [d for e in events if (d := e.for_seat(seat)) is not None]
    assert all(a is not b for k, x in enumerate(told) for a in x for y in told[k + 1 :] for b in y)
