"""Records and replays (R2 decision): a hand is fully determined by (rules, seed, actions).

A record is the JSON-ready dict of :meth:`paohuzi.engine.Hand.record`::

    {"format_version": 1, "rules": {...}, "seed": 42, "rng_version": 1, "dealer": 0,
     "deck": [...]            # only for a stacked deck
     "double_cards": [...]    # only if any
     "actions": [[0, "discard x7"], [1, "pass"], [2, "chi x8 x9"], ...]}

:func:`replay` rebuilds the hand and plays every action again through :meth:`Hand.apply`, so a record
that does not follow the rules is refused, never replayed wrongly.
"""

from __future__ import annotations

from typing import Any

from paohuzi.cards import PaohuziError
from paohuzi.engine.deck import RNG_VERSION
from paohuzi.engine.hand import FORMAT_VERSION, Hand
from paohuzi.rules import RuleSet

__all__ = ["ReplayError", "replay"]


class ReplayError(PaohuziError):
    """A record that cannot be replayed: bad format or version, or an action the rules refuse."""


def replay(record: dict[str, Any], *, upto: int | None = None) -> Hand:
    """The hand of a record, replayed action by action (event for event the same as when played).

    :param upto: replay only the first ``upto`` actions.
    :raises ReplayError: naming the problem (and the action number for a refused action).

    >>> from paohuzi.rules import find_preset
    >>> hand = Hand(find_preset("qq"), seed=3)
    >>> _ = hand.apply(hand.deciding[0], hand.legal_actions(hand.deciding[0])[0])
    >>> again = replay(hand.record())
    >>> again.events == hand.events
    True
    """
    if not isinstance(record, dict):
        raise ReplayError(f"a record is an object, got {type(record).__name__}")
    version = record.get("format_version")
    if version != FORMAT_VERSION:
        raise ReplayError(f"unknown record format_version {version!r} (this engine reads {FORMAT_VERSION})")
    rng = record.get("rng_version")
    if rng != RNG_VERSION:
        raise ReplayError(f"record made with rng_version {rng!r}; this engine shuffles with {RNG_VERSION}")
    for key in ("rules", "seed", "dealer", "actions"):
        if key not in record:
            raise ReplayError(f"record has no {key!r}")
    try:
        rules = RuleSet.from_dict(record["rules"])
        hand = Hand(
            rules,
            record["seed"],
            record["dealer"],
            deck=record.get("deck"),
            double_cards=record.get("double_cards", ()),
        )
    except PaohuziError as exc:
        raise ReplayError(f"bad record: {exc}") from exc
    actions = record["actions"]
    if not isinstance(actions, list):
        raise ReplayError("record actions must be a list of [seat, action]")
    for i, entry in enumerate(actions[:upto] if upto is not None else actions):
        if not (isinstance(entry, (list, tuple)) and len(entry) == 2):
            raise ReplayError(f"action {i}: expected [seat, action], got {entry!r}")
        seat, text = entry
        try:
            if text == "leave":
                hand.leave(seat)
            else:
                hand.apply(seat, text)
        except PaohuziError as exc:
            raise ReplayError(f"action {i} ({seat}, {text!r}) refused: {exc}") from exc
    return hand
