"""The Hand API around the rules: copies for search, records, the referee view, JSON everywhere."""

from __future__ import annotations

import ast
import json
import random
from types import ModuleType

import pytest

from paohuzi import _compiled
from paohuzi.engine import Hand, ReplayError, claims, replay, seat, state
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


def _slots(module: ModuleType, name: str) -> list[str]:
    """The ``__slots__`` a class of the engine declares, read from its source (a compiled module's
    ``__file__`` is not beside it)."""
    tree = ast.parse(_compiled.source_path(module.__name__).read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    slots = next(n for n in cls.body if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "__slots__")
    return list(ast.literal_eval(slots.value))


# Fields a copy shares on purpose: never changed after the deal (the 下家 map, the turn order from each seat,
# the stock that ``spos`` walks).
SHARED = {"next", "ring", "stock"}


@pytest.mark.parametrize(("module", "name"), [(state, "HandState"), (seat, "Seat"), (claims, "ClaimWindow")])
def test_copy_covers_every_field(module: ModuleType, name: str) -> None:
    """One copy path (issue 28): each state class copies every field it declares — equal values, and no
    mutable container shared with the original (a field added to ``__slots__`` but not to ``copy`` fails)."""
    hand = Hand(QQ, seed=5)
    rng = random.Random(3)
    while hand.phase != "claim" or len(hand.events) < 40:  # a window open: claims, legal actions, rows, 臭
        deciding = hand.deciding[0]
        hand.apply(deciding, rng.choice(hand.legal_actions(deciding)))
    st = hand._st
    original = {"HandState": st, "Seat": st.players[hand.deciding[0]], "ClaimWindow": st.window}[name]
    twin = original.copy()  # type: ignore[attr-defined]
    fields = _slots(module, name)
    assert fields
    for field in fields:
        mine, theirs = getattr(original, field), getattr(twin, field)
        if isinstance(mine, (list, dict, set)) and field not in SHARED:
            assert mine is not theirs, f"{name}.copy shares {field}"
        if field not in ("players", "window"):  # Seat and ClaimWindow: their own parameters
            assert mine == theirs, f"{name}.copy changes {field}"


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
