"""Typed records (R2 decision, ``docs/engine.md`` §8): :class:`HandRecord` and :class:`MatchRecord`.

A record is stored and sent as JSON (``docs/record.schema.json``); these types are that JSON read once:
``from_dict`` reads it (:class:`ReplayError` naming what is wrong), ``to_dict`` writes it back key for key
(the stored records and the golden files do not change). :meth:`paohuzi.engine.Hand.record` and
:meth:`paohuzi.engine.Match.record` give the JSON form; :func:`paohuzi.engine.replay` and
:func:`paohuzi.engine.replay_match` take either form. Code that stores or restores a match builds a
:class:`MatchRecord` instead of a dict, and never edits one: :meth:`MatchRecord.without_last_action`.

>>> rec = HandRecord(dealer=0, actions=((0, "discard x7"),), seed=42, rng_version=1)
>>> rec.to_dict()["actions"]
[[0, 'discard x7']]
>>> HandRecord.from_dict(rec.to_dict()) == rec
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from paohuzi.cards import PaohuziError

__all__ = ["CLASSIC_FORMAT_VERSION", "FORMAT_VERSION", "HandRecord", "MatchRecord", "ReplayError", "format_version"]

#: Version of the record format (``docs/engine.md`` §8, ``docs/record.schema.json``). Version 2 added the
#: dealt cards (``deal``) and the result; version 3 the R9 families (``drawn_before`` for 黄番, the result's
#: 囤/醒). A hand of a classic family (qq, hunan, hengyang, huayang) has none of that and is still written as
#: version 2, byte for byte as before (:func:`format_version`); :func:`paohuzi.engine.replay` reads 1, 2, 3.
FORMAT_VERSION = 3
#: The version the classic families' records keep (:func:`format_version`).
CLASSIC_FORMAT_VERSION = 2


def format_version(family: str) -> int:
    """The record format a hand of rule-set ``family`` is written in: :data:`FORMAT_VERSION` for a R9
    family, :data:`CLASSIC_FORMAT_VERSION` for a classic one (its records do not change)."""
    return CLASSIC_FORMAT_VERSION if family == "classic" else FORMAT_VERSION


class ReplayError(PaohuziError):
    """A record that cannot be read or replayed: bad format or version, or an action the rules refuse."""


Actions = tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand's record: what reproduces it (rules, seed or dealt cards, dealer, actions) and its result.

    A hand of a match needs only ``dealer``, ``actions``, ``seed`` and ``double_cards`` to be replayed
    (:func:`paohuzi.engine.replay_match`: the match gives the rules); a hand replayed alone
    (:func:`paohuzi.engine.replay`) needs ``rules`` and ``dealt`` (format 2) too.

    :ivar dealer: the dealer's seat.
    :ivar actions: every action as (seat, text); ``leave`` for 逃跑.
    :ivar seed: the hand's seed, when the deal came from it (then ``rng_version`` 1 too).
    :ivar fair: a verifiable deal's seeds (``rng_version`` 2, issue 32): ``{"commitment", "server_seed",
        "client_seeds"}`` (:meth:`paohuzi.engine.fair.FairSeed.to_dict`); written only for such a hand.
    :ivar rules: :meth:`paohuzi.rules.RuleSet.to_dict`.
    :ivar dealt: :meth:`paohuzi.engine.Hand.dealt` (format 2).
    :ivar deck: the stacked deck of a format 1 record.
    :ivar double_cards: the seats holding a 双倍积分卡 (R7.3) in this hand.
    :ivar result: :meth:`paohuzi.engine.Outcome.to_dict`, once the hand is over.
    :ivar dissolved: the hand was voided by 解散房间 (R8.2).
    :ivar format_version: None for a hand inside a match record that does not carry one.
    :ivar drawn_before: 荒庄 in a row just before this hand in its match (R9.1 黄番, format 3); written only
        when it is not 0 and the rule set is a R9 family; None when the record does not say (the match
        replaying it then counts it again).
    """

    dealer: int
    actions: Actions = ()
    seed: int | None = None
    rng_version: int | None = None
    fair: Mapping[str, Any] | None = None
    rules: Mapping[str, Any] | None = None
    dealt: Mapping[str, Any] | None = None
    deck: tuple[Any, ...] | None = None
    double_cards: tuple[int, ...] = ()
    result: Mapping[str, Any] | None = None
    dissolved: bool = False
    format_version: int | None = FORMAT_VERSION
    drawn_before: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, keys in the order :meth:`paohuzi.engine.Hand.record` writes them."""
        rec: dict[str, Any] = {}
        if self.dissolved:
            rec["dissolved"] = True
        if self.format_version is not None:
            rec["format_version"] = self.format_version
        if self.rules is not None:
            rec["rules"] = dict(self.rules)
        if self.seed is not None:
            rec["seed"] = self.seed
        if self.rng_version is not None:
            rec["rng_version"] = self.rng_version
        if self.fair is not None:
            rec["fair"] = dict(self.fair)
        rec["dealer"] = self.dealer
        if self.dealt is not None:
            rec["dealt"] = dict(self.dealt)
        if self.deck is not None:
            rec["deck"] = list(self.deck)
        if self.double_cards:
            rec["double_cards"] = list(self.double_cards)
        if self.drawn_before:
            rec["drawn_before"] = self.drawn_before
        rec["actions"] = [[s, a] for s, a in self.actions]
        if self.result is not None:
            rec["result"] = dict(self.result)
        return rec

    @classmethod
    def from_dict(cls, data: object) -> HandRecord:
        """Read the JSON form (of :meth:`to_dict`, or one stored by an earlier version of the server).

        :raises ReplayError: naming the field that is missing or of the wrong type.
        """
        if not isinstance(data, dict):
            raise ReplayError(f"a record is an object, got {type(data).__name__}")
        dealer = data.get("dealer")
        if isinstance(dealer, bool) or not isinstance(dealer, int):
            raise ReplayError(f"record dealer must be a seat, got {dealer!r}")
        seed = data.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ReplayError(f"record seed must be an int, got {seed!r}")
        deck = data.get("deck")
        return cls(
            dealer=dealer,
            actions=_actions(data.get("actions")),
            seed=seed,
            rng_version=_optional(data, "rng_version", int),
            fair=_optional(data, "fair", dict),
            rules=_optional(data, "rules", dict),
            dealt=_optional(data, "dealt", dict),
            deck=tuple(deck) if isinstance(deck, list) else None,
            double_cards=_seats(data.get("double_cards") or ()),
            result=_optional(data, "result", dict),
            dissolved=data.get("dissolved") is True,
            format_version=_optional(data, "format_version", int),
            drawn_before=_drawn_before(data),
        )

    def without_last_action(self) -> HandRecord:
        """The same hand one action earlier (no result: the hand is then not over).

        :raises ReplayError: if no action was played.
        """
        if not self.actions:
            raise ReplayError("the hand has no action to take back")
        return replace(self, actions=self.actions[:-1], result=None)


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match's record (一场, :meth:`paohuzi.engine.Match.record`): what :func:`paohuzi.engine.replay_match`
    needs to play it again — the rules, the match seed (the first dealer and every hand's seed come from it),
    the table, and each hand's record in order (the last one may be in play).

    :ivar rules: :meth:`paohuzi.rules.RuleSet.to_dict`.
    :ivar seed: the match seed.
    :ivar players: 3, or 4 with ``four_players``.
    :ivar hands: how many hands the match has.
    :ivar double_cards: the seats holding a 双倍积分卡 (R7.3) when the match began.
    :ivar owner: the room owner's seat (R8.1 房主坐庄).
    :ivar leaver: the seat that left (逃跑), or None.
    :ivar dissolved: the match was dissolved (R8.2).
    :ivar records: the hands, in order.
    """

    rules: Mapping[str, Any]
    seed: int
    players: int
    hands: int
    records: tuple[HandRecord, ...] = ()
    double_cards: tuple[int, ...] = ()
    owner: int | None = None
    leaver: int | None = None
    dissolved: bool = False
    format_version: int = FORMAT_VERSION

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, keys in the order :meth:`paohuzi.engine.Match.record` writes them."""
        return {
            "format_version": self.format_version,
            "kind": "match",
            "rules": dict(self.rules),
            "seed": self.seed,
            "players": self.players,
            "hands": self.hands,
            "double_cards": sorted(self.double_cards),
            "leaver": self.leaver,
            "owner": self.owner,
            "dissolved": self.dissolved,
            "records": [r.to_dict() for r in self.records],
        }

    @classmethod
    def from_dict(cls, data: object) -> MatchRecord:
        """Read the JSON form.

        :raises ReplayError: for something that is not a match record, naming the field.
        """
        if not isinstance(data, dict) or data.get("kind") != "match":
            raise ReplayError("not a match record")
        for key in ("rules", "seed", "players", "hands", "records"):
            if key not in data:
                raise ReplayError(f"match record has no {key!r}")
        records = data["records"]
        if not isinstance(records, list):
            raise ReplayError("match record records must be a list of hand records")
        return cls(
            rules=_required(data, "rules", dict),
            seed=_required(data, "seed", int),
            players=_required(data, "players", int),
            hands=_required(data, "hands", int),
            records=tuple(HandRecord.from_dict(r) for r in records),
            double_cards=_seats(data.get("double_cards") or ()),
            owner=_optional(data, "owner", int),
            leaver=_optional(data, "leaver", int),
            dissolved=data.get("dissolved") is True,
            format_version=_optional(data, "format_version", int) or FORMAT_VERSION,
        )

    def without_last_action(self) -> MatchRecord:
        """The same match one action earlier: the last action of the last hand taken back (a server that
        could not store an action replays this).

        :raises ReplayError: if the last hand has no action.
        """
        if not self.records:
            raise ReplayError("the match has no hand to take an action back from")
        return replace(self, records=(*self.records[:-1], self.records[-1].without_last_action()))


def _required(data: Mapping[str, Any], key: str, kind: type) -> Any:
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ReplayError(f"record {key} must be of type {kind.__name__}, got {value!r}")
    return value


def _optional(data: Mapping[str, Any], key: str, kind: type) -> Any:
    value = data.get(key)
    return None if value is None else _required(data, key, kind)


def _drawn_before(data: Mapping[str, Any]) -> int | None:
    value = _optional(data, "drawn_before", int)
    if value is not None and value < 0:
        raise ReplayError(f"record drawn_before (荒庄 in a row, R9.1 黄番) must be ≥ 0, got {value!r}")
    return value  # type: ignore[no-any-return]


def _seats(value: Any) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(s, int) and not isinstance(s, bool) for s in value):
        raise ReplayError(f"record double_cards must be a list of seats, got {value!r}")
    return tuple(value)


def _actions(value: Any) -> Actions:
    if not isinstance(value, list):
        raise ReplayError("record actions must be a list of [seat, action]")
    out: list[tuple[int, str]] = []
    for i, entry in enumerate(value):
        if not (
            isinstance(entry, (list, tuple))
            and len(entry) == 2
            and isinstance(entry[0], int)
            and not isinstance(entry[0], bool)
            and isinstance(entry[1], str)
        ):
            raise ReplayError(f"action {i}: expected [seat, action], got {entry!r}")
        out.append((entry[0], entry[1]))
    return tuple(out)
