"""A match (一场, R2, R7.3): several hands at one table with the dealer rule, cumulative points, 逃跑 and a
final ranking.

- The first dealer is drawn at random from the match seed (R2), or is the room's owner under R8.1
  ``first_dealer`` ``owner``; each hand's seed comes from the match seed either way.
- The winner of a hand deals the next. After a 荒庄 the dealer keeps the deal; the third 荒庄 in a row
  passes it to the dealer's 下家 (R2).
- Points add up each hand's payments (which already include the room stake, R7.3).
- Each hand of a R9 family is given the 荒庄 in a row just before it (``drawn_before``, R9.1 黄番): a win
  sets the count back to 0; the deal passing after the third 荒庄 does not (decision, docs/decisions.md).
  A classic family's hands are given 0.
- A player leaving (:meth:`Match.leave`) during a hand pays the 逃跑 penalty (R7.3) and the match ends;
  a new sitting is a new match, with the dealer drawn afresh (R2).
- :meth:`Match.dissolve` (R8.2 解散房间): the hand in play is void (record kept, marked dissolved, no
  settlement, nobody charged for 逃跑), the settled hands stand and the match ends.

>>> from paohuzi.rules import find_preset
>>> m = Match(find_preset("qq"), seed=1, hands=2)
>>> while not m.over:
...     if m.hand.over:
...         _ = m.next_hand()
...     else:
...         s = m.deciding[0]
...         _ = m.apply(s, m.legal_actions(s)[-1])
>>> len(m.results), sum(m.totals)
(2, 0)
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from paohuzi.cards import PaohuziError
from paohuzi.engine.actions import Action
from paohuzi.engine.events import Event
from paohuzi.engine.fair import FairError, FairSeed
from paohuzi.engine.hand import Hand, Outcome
from paohuzi.engine.observation import OutcomeKind
from paohuzi.engine.records import HandRecord, MatchRecord, ReplayError, format_version
from paohuzi.rules import RuleSet, family_options

__all__ = ["Match", "MatchError", "HandResult", "replay_match"]


class MatchError(PaohuziError):
    """A match that cannot be made or a step it cannot take (bad players, hands, next hand too early …)."""


@dataclass(frozen=True, slots=True)
class HandResult:
    """One finished hand of a match: its number (from 1), dealer, outcome and record (a hand voided by
    :meth:`Match.dissolve` is not one: see :attr:`Match.void`)."""

    number: int
    dealer: int
    outcome: Outcome
    record: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "dealer": self.dealer, "outcome": self.outcome.to_dict(), "record": self.record}


class Match:
    """一场: ``hands`` hands at a table of ``players`` (3, or 4 with ``four_players``: the dealer's opposite
    sits each hand out, R2; in 衡阳六胡抢 the rule set's 4 or 3, who all play, R9.3).

    :param rules: the rule set; ``four_players`` is set to match ``players`` (where the rule set has no
        ``players`` option of its own).
    :param seed: seeds the first dealer and every hand.
    :param players: 3 or 4 (default: the rule set's table size); where the rule set has a ``players`` option
        (衡阳六胡抢, R9.3), exactly that.
    :param hands: how many hands to play (≥ 1; default the rule set's ``rounds``, R8.1).
    :param double_cards: seats holding a 双倍积分卡 (R7.3) for the first hand, and for every later hand
        that :meth:`next_hand` is not given its own.
    :param owner: the seat of the room's creator; required under ``first_dealer`` ``owner`` (R8.1), where
        that seat deals the first hand.
    :param fair: deal the first hand verifiably from these seeds (RNG version 2, issue 32); its dealer draw
        (R2 定庄) is then the fair one's too, unless the owner deals (R8.1). None: RNG version 1.
    :raises MatchError: for bad arguments.
    """

    def __init__(
        self,
        rules: RuleSet,
        seed: int = 0,
        players: int | None = None,
        hands: int | None = None,
        *,
        double_cards: frozenset[int] | tuple[int, ...] = (),
        owner: int | None = None,
        fair: FairSeed | None = None,
    ) -> None:
        if not isinstance(rules, RuleSet):
            raise MatchError(f"rules must be a RuleSet, got {rules!r}")
        if players is None:
            players = rules.players_at_table
        if "players" in family_options(rules):  # R9.3: all seated players play; the rule set says how many
            if isinstance(players, bool) or players != rules.players:
                raise MatchError(
                    f"the {rules.name} rules are played by {rules.players} players (their option players, R9.3), "
                    f"got players={players!r}: choose the number with rules.with_options(players=…)"
                )
        elif players not in (3, 4) or isinstance(players, bool):
            raise MatchError(f"a match has 3 or 4 players (4 with four_players, R2), got {players!r}")
        elif (players == 4) != rules.four_players:
            rules = rules.with_options(four_players=players == 4)
        if hands is None:
            hands = rules.rounds
        if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
            raise MatchError(f"hands must be a whole number ≥ 1, got {hands!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise MatchError(f"seed must be an int, got {seed!r}")
        if owner is not None and (isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner < players):
            raise MatchError(f"owner must be a seat 0–{players - 1}, got {owner!r}")
        if rules.first_dealer == "owner" and owner is None:
            raise MatchError("first_dealer 'owner' (R8.1) needs the owner's seat")
        self.rules = rules
        self.seed = seed
        self.players = players
        self.hands = hands
        self.double_cards = frozenset(double_cards)
        self.totals: list[int] = [0] * players
        self.results: list[HandResult] = []
        self.leaver: int | None = None
        self.owner = owner
        #: The record of the hand voided by :meth:`dissolve` (marked ``"dissolved": true``), or None.
        self.void: dict[str, Any] | None = None
        self._rng = random.Random(seed)
        self.dealer = self._rng.randrange(players)  # R2 定庄: the first dealer is drawn at random
        if rules.first_dealer == "owner":
            assert owner is not None
            self.dealer = owner  # R8.1 房主坐庄 (the draw above still runs: hand seeds do not depend on it)
        self._draws_in_row = 0
        self._drawn_before = 0  # R9.1 黄番: 荒庄 in a row just before the next hand
        self._booked = False
        # a fair first hand draws its own dealer (R2 定庄, verifiable) unless the owner deals (R8.1)
        self.hand: Hand = self._new_hand(fair=fair, draw=rules.first_dealer != "owner")

    # -- playing --------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True when every hand has been played, someone left, or the match was dissolved (R8.2)."""
        if self.void is not None:
            return True
        if self.leaver is not None:
            return self.hand.over
        return self.hand.over and len(self.results) >= self.hands

    @property
    def hand_number(self) -> int:
        """The current hand's number, from 1."""
        return len(self.results) + (0 if self.hand.over or self.void is not None else 1)

    @property
    def dissolved(self) -> bool:
        """The match was dissolved (R8.2)."""
        return self.void is not None

    @property
    def deciding(self) -> tuple[int, ...]:
        return () if self.void is not None else self.hand.deciding

    def legal_actions(self, seat: int) -> list[Action]:
        return [] if self.void is not None else self.hand.legal_actions(seat)

    def observation(self, seat: int) -> dict[str, Any]:
        """The JSON form of the current hand's observation for ``seat`` (:meth:`Observation.to_dict`) plus
        the match state (hand number, totals)."""
        obs = self.hand.observation(seat).to_dict()
        obs["match"] = {"hand": self.hand_number, "hands": self.hands, "totals": list(self.totals)}
        return obs

    def apply(self, seat: int, action: Action | str) -> list[Event]:
        """Play an action in the current hand (see :meth:`Hand.apply`).

        :raises MatchError: if the match was dissolved (R8.2).
        """
        if self.void is not None:
            raise MatchError("the match was dissolved (R8.2)")
        events = self.hand.apply(seat, action)
        self._book()
        return events

    def next_hand(self, double_cards: Iterable[int] | None = None, fair: FairSeed | None = None) -> Hand:
        """Start the next hand (R2 dealer rule). ``double_cards``: the seats holding a 双倍积分卡 (R7.3) in
        this hand (a card is active for some time, so it may differ from hand to hand); None: the match's
        ``double_cards``. ``fair``: deal it verifiably from these seeds (RNG version 2, issue 32).

        :raises MatchError: if the current hand is not over or the match is over.
        """
        if not self.hand.over:
            raise MatchError("the current hand is not over")
        if self.over:
            raise MatchError("the match is over")
        outcome = self.hand.outcome
        assert outcome is not None
        # R9.1 黄番: the 荒庄 in a row before the next hand (the dealer rule's count below restarts at 3)
        self._drawn_before = self._drawn_before + 1 if outcome.kind is OutcomeKind.DRAW else 0
        if outcome.winner is not None:
            self.dealer = outcome.winner  # the winner deals (R2)
            self._draws_in_row = 0
        else:
            self._draws_in_row += 1  # 荒庄: the dealer keeps the deal, the third in a row passes it
            if self._draws_in_row >= 3:
                self.dealer = (self.dealer + 1) % self.players
                self._draws_in_row = 0
        self.hand = self._new_hand(self.double_cards if double_cards is None else frozenset(double_cards), fair)
        return self.hand

    def leave(self, seat: int) -> list[Event]:
        """A player leaves the table. During a hand in which the seat plays, that is 逃跑 (R7.3): the hand
        ends with the penalty. The match is over either way (a sitting-out seat pays nothing, and its
        table finishes the hand first).

        :raises MatchError: for a bad seat or a match that is over.
        """
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise MatchError(f"no such seat {seat!r}")
        if self.over:
            raise MatchError("the match is over")
        self.leaver = seat
        events: list[Event] = []
        # (after a dissolution the match is over: nobody can leave any more, so nobody pays 逃跑, R8.2)
        if not self.hand.over and seat in self.hand.seats:
            events = self.hand.leave(seat)
            self._book()
        return events

    def dissolve(self) -> None:
        """解散房间 (R8.2), once every seat has agreed (the vote is the server's): the hand in play is void —
        no settlement, no 积分, nobody charged for 逃跑, its record kept in :attr:`void` and marked
        ``"dissolved": true`` — the hands already settled stand, and the match is over.

        :raises MatchError: if the match is already over.
        """
        if self.over:
            raise MatchError("the match is over")
        record = self.hand.record() if not self.hand.over else None
        self.void = {"dissolved": True, **(record or {})} if record is not None else {"dissolved": True}

    # -- results --------------------------------------------------------------------------------

    def ranking(self) -> list[int]:
        """Seats by total points, best first (ties: lower seat first)."""
        return sorted(range(self.players), key=lambda s: (-self.totals[s], s))

    def standings(self) -> list[dict[str, int]]:
        """``[{"seat", "points", "rank"}]`` best first; equal points share a rank."""
        out: list[dict[str, int]] = []
        for i, s in enumerate(self.ranking()):
            rank = out[-1]["rank"] if out and out[-1]["points"] == self.totals[s] else i + 1
            out.append({"seat": s, "points": self.totals[s], "rank": rank})
        return out

    def record(self) -> dict[str, Any]:
        """Everything that reproduces the match (see :func:`replay_match`), JSON-ready
        (:meth:`MatchRecord.to_dict <paohuzi.engine.MatchRecord.to_dict>`)."""
        return self.typed_record().to_dict()

    def typed_record(self) -> MatchRecord:
        """:meth:`record` as a :class:`~paohuzi.engine.MatchRecord`."""
        records = [HandRecord.from_dict(r.record) for r in self.results]
        if self.void is not None:
            if "actions" in self.void:
                records.append(HandRecord.from_dict(self.void))
        elif not self.hand.over:
            records.append(HandRecord.from_dict(self.hand.record()))
        return MatchRecord(
            rules=self.rules.to_dict(),
            seed=self.seed,
            players=self.players,
            hands=self.hands,
            records=tuple(records),
            double_cards=tuple(sorted(self.double_cards)),
            owner=self.owner,
            leaver=self.leaver,
            dissolved=self.void is not None,
            format_version=format_version(self.rules.family),
        )

    def without_last_action(self) -> Match:
        """The same match one action earlier, replayed from its record without the last action (a server
        that could not store an action it applied goes back with this).

        :raises MatchError: if the hand in play has no action to take back.
        """
        try:
            return replay_match(self.typed_record().without_last_action())
        except ReplayError as exc:
            raise MatchError(str(exc)) from None

    # -- internals ------------------------------------------------------------------------------

    def _new_hand(
        self, double_cards: frozenset[int] | None = None, fair: FairSeed | None = None, draw: bool = False
    ) -> Hand:
        seed = self._rng.getrandbits(63)  # drawn for a fair hand too: later hands' seeds stay the same
        #: the current hand's seed from the match seed: its deal's for RNG version 1; for a fair hand (RNG
        #: version 2) not used to deal, a secret a server may key the hand on (its replay code)
        self.hand_seed = seed
        cards = self.double_cards if double_cards is None else double_cards
        # R9.1 黄番 is a R9 family's: a classic family's hand is given 0 (its records and frames stay as they were)
        drawn = self._drawn_before if self.rules.family != "classic" else 0
        if fair is not None and not isinstance(fair, FairSeed):
            raise MatchError(f"fair must be a FairSeed, got {fair!r}")
        dealer = None if fair is not None and draw else self.dealer
        try:
            hand = Hand(self.rules, seed if fair is None else fair, dealer, double_cards=cards, drawn_before=drawn)
        except PaohuziError as exc:
            raise MatchError(str(exc)) from None
        self.dealer = hand.dealer
        self._booked = False
        self.hand = hand
        self._book()  # a dealt 天胡 ends the hand at once
        return hand

    def _book(self) -> None:
        hand = self.hand
        if hand.over and not self._booked:
            self._booked = True
            outcome = hand.outcome
            assert outcome is not None
            for s, p in enumerate(outcome.payments):
                self.totals[s] += p
            self.results.append(HandResult(len(self.results) + 1, hand.dealer, outcome, hand.record()))


def replay_match(record: dict[str, Any] | MatchRecord) -> Match:
    """Rebuild a match from :meth:`Match.record` (its JSON form or a :class:`~paohuzi.engine.MatchRecord`)
    by replaying every hand's actions.

    :raises MatchError: if the record is not a match record or does not match what the seeds and rules
        produce.
    """
    if not isinstance(record, MatchRecord):
        try:
            record = MatchRecord.from_dict(record)
        except ReplayError as exc:
            raise MatchError(str(exc)) from None
    fairs = [_fair_of(i, rec) for i, rec in enumerate(record.records)]
    match = Match(
        RuleSet.from_dict(dict(record.rules)),
        record.seed,
        record.players,
        record.hands,
        double_cards=record.double_cards,
        owner=record.owner,
        fair=fairs[0] if fairs else None,
    )
    for i, rec in enumerate(record.records):
        if i:  # each hand's own 双倍积分卡 (a hand's record lists them only if any)
            match.next_hand(rec.double_cards, fairs[i])
        if rec.seed != match.hand.seed or rec.dealer != match.hand.dealer:
            raise MatchError(f"hand {i + 1}: seed/dealer differ from the record")
        # R9.1 黄番: a R9 family's full hand record says how many (0 when it has no drawn_before); a hand
        # stored without its rules (the server's) is counted again, as a classic family's always is.
        said = rec.drawn_before if rec.drawn_before is not None or rec.rules is None else 0
        if said is not None and said != match.hand.drawn_before and match.rules.family != "classic":
            raise MatchError(
                f"hand {i + 1}: drawn_before (荒庄 in a row, R9.1 黄番) is {match.hand.drawn_before}, "
                f"the record says {said}"
            )
        for seat, text in rec.actions:
            if text == "leave":
                match.leave(seat)
            else:
                match.apply(seat, text)
    if record.leaver is not None and match.leaver is None:
        match.leave(record.leaver)
    if record.dissolved and not match.dissolved:
        match.dissolve()
    return match


def _fair_of(i: int, rec: HandRecord) -> FairSeed | None:
    """A hand record's fair seeds (RNG version 2), or None for a hand dealt from its seed."""
    if rec.fair is None:
        return None
    try:
        return FairSeed.from_dict(rec.fair)
    except FairError as exc:
        raise MatchError(f"hand {i + 1}: {exc}") from None
