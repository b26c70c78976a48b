"""Checking a verifiable deal (可验证发牌, issue 32): does a hand record's deal come from its seeds?

:func:`verify_record` recomputes the deck of a record with ``rng_version`` 2 from its revealed server seed
and client seeds (:mod:`paohuzi.engine.fair`), checks ``SHA-256(server seed)`` against the commitment (the
record's, and the one a player was sent before the deal when given), and says exactly what differs: the
server seed, the client seeds, or cards moved in the recorded deal. ``paohuzi verify`` prints it; the web
client does the same in the browser (``web/js/fair.js``).

>>> from paohuzi.engine import FairSeed, Hand
>>> from paohuzi.rules import find_preset
>>> hand = Hand(find_preset("qq"), FairSeed(bytes(range(32)), (b"\\x01", b"", b"")))
>>> verify_record(hand.record()).ok
True
>>> verify_record(Hand(find_preset("qq"), 7).record()).problems
('not verifiable (rng_version 1): dealt from a seed the server kept, with no commitment',)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paohuzi.cards import PaohuziError, full_deck
from paohuzi.engine.deck import seats_in_play
from paohuzi.engine.fair import FAIR_RNG_VERSION, FairError, FairSeed, fair_shuffled
from paohuzi.engine.record import _deck_of, replay
from paohuzi.engine.records import ReplayError
from paohuzi.rules import RuleSet

__all__ = ["Verdict", "verify_record"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer of :func:`verify_record`.

    :ivar verifiable: the record has a verifiable deal (``rng_version`` 2).
    :ivar problems: what differs, one sentence each; empty when the deal is verified.
    """

    verifiable: bool
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Verified: a verifiable deal and nothing differs."""
        return self.verifiable and not self.problems


def verify_record(record: Any, commitment: str | None = None) -> Verdict:
    """Whether ``record`` (a hand record's JSON form) was dealt from its revealed seeds.

    :param commitment: the commitment the verifier was sent before the deal (a player's own copy); the
        record's must be the same.
    """
    if not isinstance(record, dict):
        return Verdict(False, (f"a hand record is an object, got {type(record).__name__}",))
    if "fair" not in record:
        version = record.get("rng_version", 1)
        return Verdict(
            False, (f"not verifiable (rng_version {version}): dealt from a seed the server kept, with no commitment",)
        )
    if record.get("rng_version") != FAIR_RNG_VERSION:
        return Verdict(
            False, (f"a fair record has rng_version {FAIR_RNG_VERSION}, this one {record.get('rng_version')!r}",)
        )
    try:
        fair = FairSeed.from_dict(record["fair"])
        rules = RuleSet.from_dict(record["rules"])
        recorded = [str(c) for c in _deck_of(record.get("dealt"), rules, record.get("dealer"))]
    except (PaohuziError, KeyError, TypeError) as exc:
        return Verdict(True, (f"the record cannot be read: {exc}",))
    problems: list[str] = []
    said = record["fair"].get("commitment")
    if said != fair.commitment:
        problems.append(f"server seed changed: SHA-256(server_seed) is {fair.commitment}, the commitment is {said!r}")
    if commitment is not None and commitment != said:
        problems.append(f"commitment changed: the record says {said!r}, the one sent before the deal was {commitment}")
    try:
        _, deck = fair_shuffled(fair, rules.players_at_table, record["dealer"], tuple(full_deck()))
    except FairError as exc:
        return Verdict(True, (*problems, f"client seeds: {exc}"))
    dealt = [str(c) for c in deck]
    if dealt != recorded:
        problems.append(_deal_difference(dealt, recorded, rules, record["dealer"], seeds_ok=not problems))
    elif not problems:
        try:
            replay(record)
        except ReplayError as exc:
            problems.append(f"the deal is verified but the play is not: {exc}")
    return Verdict(True, tuple(problems))


def _deal_difference(derived: list[str], recorded: list[str], rules: RuleSet, dealer: int, *, seeds_ok: bool) -> str:
    """What differs between the deck the seeds give and the recorded one, in words."""
    places = [i for i, (a, b) in enumerate(zip(derived, recorded, strict=True)) if a != b]
    if len(places) == 2:
        i, j = places
        if derived[i] == recorded[j] and derived[j] == recorded[i]:
            return (
                f"cards swapped: {_place(i, rules, dealer)} is {recorded[i]} and {_place(j, rules, dealer)} is "
                f"{recorded[j]}; the seeds deal them the other way round"
            )
    first = places[0]
    who = "a client seed changed" if seeds_ok else "the seeds changed"
    return (
        f"{who}: the server seed and client seeds deal another deck ({len(places)} of {len(derived)} places "
        f"differ; {_place(first, rules, dealer)} is {recorded[first]} in the record, {derived[first]} from the seeds)"
    )


def _place(index: int, rules: RuleSet, dealer: int) -> str:
    """A place in the deck in deal order, in words: a seat's n-th card or the stock's."""
    start = 0
    dealer_cards, others = rules.deal_sizes  # R2 (R9.3: 15-card hands)
    for k, seat in enumerate(seats_in_play(rules, dealer)):
        size = dealer_cards if k == 0 else others
        if index < start + size:
            return f"seat {seat}'s card {index - start + 1}"
        start += size
    return f"the stock's card {index - start + 1}"
