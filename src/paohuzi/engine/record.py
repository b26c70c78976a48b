"""Records and replays (R2 decision): a record carries everything that reproduces a hand and checks it.

A record is the JSON-ready dict of :meth:`paohuzi.engine.Hand.record` (format 3 for the R9 families, 2 for
the classic ones; ``docs/engine.md`` §8, ``docs/record.schema.json``)::

    {"format_version": 2, "rules": {...},
     "seed": 42, "rng_version": 1,      # only when the deal came from the seed
     "dealer": 0,
     "dealt": {"hands": [[21 cards], [20], [20]], "stock": [19 cards]},
     "double_cards": [...],             # only if any
     "drawn_before": 2,                 # format 3: 荒庄 in a row before the hand (R9.1 黄番), only if any
     "actions": [[0, "discard x7"], [1, "pass"], [2, "chi x8 x9"], ...],
     "result": {...}}                   # once over: Outcome.to_dict()

:func:`replay` rebuilds the hand and plays every action again through :meth:`Hand.apply`, so a record
that does not follow the rules is refused, never replayed wrongly. With a seed it checks that the seed
deals the recorded cards (``dealt``); without one it deals the recorded cards (a program that shuffles itself). A
recorded result must be the one the replay reaches. Format 1 records (seed and actions, ``deck`` for a
stacked deck) are still read.
"""

from __future__ import annotations

from typing import Any

from paohuzi.cards import PaohuziError
from paohuzi.engine.deck import RNG_VERSION, seats_in_play
from paohuzi.engine.fair import FAIR_RNG_VERSION, FairError, FairSeed
from paohuzi.engine.hand import Hand
from paohuzi.engine.records import CLASSIC_FORMAT_VERSION, FORMAT_VERSION, HandRecord, ReplayError
from paohuzi.rules import RuleSet

__all__ = ["ReplayError", "replay", "READABLE_VERSIONS"]

#: The record format versions :func:`replay` reads.
READABLE_VERSIONS = (1, CLASSIC_FORMAT_VERSION, FORMAT_VERSION)


def replay(record: dict[str, Any] | HandRecord, *, upto: int | None = None) -> Hand:
    """The hand of a record (its JSON form or a :class:`HandRecord`), replayed action by action (event for
    event the same as when played).

    :param upto: replay only the first ``upto`` actions (the recorded result is then not checked).
    :raises ReplayError: naming the problem (and the action number for a refused action).

    >>> from paohuzi.rules import find_preset
    >>> hand = Hand(find_preset("qq"), seed=3)
    >>> _ = hand.apply(hand.deciding[0], hand.legal_actions(hand.deciding[0])[0])
    >>> again = replay(hand.record())
    >>> again.events == hand.events
    True
    """
    if isinstance(record, HandRecord):
        record = record.to_dict()
    version, seeded = _check_header(record)
    hand = _dealt_hand(record, version, seeded)
    _play(hand, record["actions"], upto)
    result = record.get("result")
    if upto is None and result is not None:
        got = hand.outcome.to_dict() if hand.outcome is not None else None
        if got != result:
            raise ReplayError(f"the recorded result is not the one the actions reach: recorded {result}, got {got}")
    return hand


def _check_header(record: Any) -> tuple[int, bool]:
    """The record's format version and whether it is dealt from a seed; its required keys are checked."""
    if not isinstance(record, dict):
        raise ReplayError(f"a record is an object, got {type(record).__name__}")
    version = record.get("format_version")
    if version not in READABLE_VERSIONS:
        raise ReplayError(
            f"unknown record format_version {version!r} (this engine reads {', '.join(map(str, READABLE_VERSIONS))})"
        )
    required = ("rules", "seed", "dealer", "actions") if version == 1 else ("rules", "dealer", "dealt", "actions")
    for key in required:
        if key not in record:
            raise ReplayError(f"record has no {key!r}")
    seeded = "seed" in record or "fair" in record
    if seeded or "rng_version" in record:
        rng = record.get("rng_version")
        want = FAIR_RNG_VERSION if "fair" in record else RNG_VERSION
        if rng != want:
            raise ReplayError(
                f"record made with rng_version {rng!r}; this engine shuffles a "
                f"{'fair' if want == FAIR_RNG_VERSION else 'seed'} with {want}"
            )
        if "fair" in record and "seed" in record:
            raise ReplayError("a record is dealt from a seed (rng_version 1) or from fair seeds (2), not both")
    return version, seeded


def _dealt_hand(record: dict[str, Any], version: int, seeded: bool) -> Hand:
    """The hand as dealt: from the seed, the recorded deck (format 1) or the recorded deal, checked against
    each other when the record has both."""
    try:
        rules = RuleSet.from_dict(record["rules"])
        if version == 1:
            deck = record.get("deck")
        elif seeded:
            deck = None
        else:
            deck = _deck_of(record["dealt"], rules, record["dealer"])
        hand = Hand(
            rules,
            _seed_of(record) if seeded else None,
            record["dealer"],
            deck=deck,
            double_cards=record.get("double_cards", ()),
            drawn_before=record.get("drawn_before", 0),  # R9.1 黄番 (format 3)
        )
    except PaohuziError as exc:
        raise ReplayError(f"bad record: {exc}") from exc
    if version != 1 and hand.dealt() != record["dealt"]:
        what = "the fair seeds deal" if "fair" in record else f"seed {record.get('seed')!r} deals"
        raise ReplayError(
            f"the recorded deal is not what {what} (rng_version {record.get('rng_version')}, "
            f"dealer {record['dealer']}): {_first_difference(hand.dealt(), record['dealt'])}"
        )
    return hand


def _seed_of(record: dict[str, Any]) -> int | FairSeed:
    """The record's seed (RNG version 1) or fair seeds (RNG version 2, issue 32; the commitment checked)."""
    if "fair" not in record:
        return record["seed"]  # type: ignore[no-any-return]
    try:
        fair = FairSeed.from_dict(record["fair"])
    except FairError as exc:
        raise ReplayError(str(exc)) from None
    if record["fair"].get("commitment") != fair.commitment:
        raise ReplayError(
            f"the server seed does not match the commitment: SHA-256(server_seed) is {fair.commitment}, "
            f"the record's commitment is {record['fair'].get('commitment')!r}"
        )
    return fair


def _play(hand: Hand, actions: Any, upto: int | None) -> None:
    """Apply the recorded actions (the first ``upto`` of them) to the hand."""
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


def _deck_of(dealt: Any, rules: RuleSet, dealer: Any) -> list[str]:
    """The deck in deal order of a record's ``dealt`` (see :meth:`Hand.dealt`)."""
    if not (isinstance(dealt, dict) and isinstance(dealt.get("hands"), list) and isinstance(dealt.get("stock"), list)):
        raise ReplayError('record dealt must be {"hands": [[cards] per seat], "stock": [cards]}')
    hands = dealt["hands"]
    if len(hands) != rules.players_at_table:
        raise ReplayError(f"record dealt has {len(hands)} hands for a table of {rules.players_at_table}")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < rules.players_at_table:
        raise ReplayError(f"bad record: dealer must be a seat 0–{rules.players_at_table - 1}, got {dealer!r}")
    deck: list[str] = []
    dealer_size, hand_size = rules.deal_sizes  # 21/20 (R2), 15/14 (R9.3)
    for i, s in enumerate(seats_in_play(rules, dealer)):
        size = dealer_size if i == 0 else hand_size
        if not isinstance(hands[s], list) or len(hands[s]) != size:
            raise ReplayError(f"record dealt: seat {s} must be dealt {size} cards (R2; R9.3 for 15-card hands)")
        deck += hands[s]
    return deck + list(dealt["stock"])


def _first_difference(got: dict[str, Any], want: Any) -> str:
    if not isinstance(want, dict):
        return "dealt is not an object"
    for s, (a, b) in enumerate(zip(got["hands"], want.get("hands") or [], strict=False)):
        if a != b:
            return f"seat {s} is dealt {' '.join(a)}, the record says {' '.join(map(str, b))}"
    return f"the stock is {' '.join(got['stock'])}, the record says {' '.join(map(str, want.get('stock') or []))}"
