"""The Hand API around the rules: copies for search, records, the referee view, JSON everywhere."""

from __future__ import annotations

import json
import random

import pytest

from paohuzi.engine import Hand, ReplayError, replay
from paohuzi.rules import find_preset

from .helpers import W_HANDS, deal, play

QQ = find_preset("qq")


def test_copy_is_independent() -> None:
    hand = Hand(QQ, seed=31)
    rng = random.Random(1)
    for _ in range(10):
        seat = hand.deciding[0]
        hand.apply(seat, rng.choice(hand.legal_actions(seat)))
    before, events = json.dumps(hand.referee_view()), list(hand.events)
    twin = hand.copy()
    while not twin.over:
        seat = twin.deciding[0]
        twin.apply(seat, twin.legal_actions(seat)[0])
    assert json.dumps(hand.referee_view()) == before and hand.events == events
    assert replay(twin.record()).events == twin.events


def test_record_and_partial_replay() -> None:
    hand = deal(W_HANDS, stock="x10")
    play(hand, "0: discard x2", "1: hu")
    record = hand.record()
    assert record["actions"] == [[0, "discard x2"], [1, "hu"]]
    # A stacked deck: the record carries the deal, no seed (docs/engine.md §8).
    assert record["format_version"] == 2 and "seed" not in record and "rng_version" not in record
    assert len(record["dealt"]["hands"][0]) == 21 and len(record["dealt"]["stock"]) == 19
    assert record["result"]["winner"] == 1
    json.dumps(record)
    part = replay(record, upto=1)
    assert not part.over and part.deciding == (0, 1, 2)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format_version": 9}, "unknown record format_version 9"),
        ({"rng_version": 0}, "rng_version 0"),
        ({"actions": [[0, "discard x1"]]}, r"action 0 \(0, 'discard x1'\) refused"),
        ({"actions": [["x"]]}, "expected \\[seat, action\\]"),
        ({"rules": {"name": "nowhere"}}, "unknown rules preset"),
    ],
)
def test_bad_records_are_refused(change: dict[str, object], message: str) -> None:
    record = deal().record() | change
    with pytest.raises(ReplayError, match=message):
        replay(record)


def test_referee_view_shows_everything() -> None:
    hand = deal(W_HANDS, stock="x10")
    play(hand, "0: discard x2", "0: pass")
    view = hand.referee_view()
    assert view["hands"][1] == [str(c) for c in hand.hand_of(1)]
    assert view["stock_cards"][:2] == ["d3", "d3"] and view["stock"] == 18
    assert view["deciding"] == [1, 2] and view["decided"] == {"0": "pass"}
    assert view["legal"] == {"1": ["hu", "chi x8 x9", "pass"], "2": ["chi x10 d10", "pass"]}
    json.dumps(view)
