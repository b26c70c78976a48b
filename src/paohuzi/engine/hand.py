"""One hand (一局) from the deal to the settlement: R2, R4.1–R4.7, R5, R6.3, R6.4, R7.3.

:class:`Hand` is the front door: it checks every input and owns one
:class:`~paohuzi.engine.state.HandState` (the fields: shared ones and one
:class:`~paohuzi.engine.seat.Seat` per seat), which changes only through :meth:`Hand.apply` (a seat's
choice among :meth:`Hand.legal_actions`) and :meth:`Hand.leave` (逃跑). The steps are collaborators of that
state: the turn logic (``turns.py``: deal, draws, forced 提/偎, discards), the claim window
(``claims.py``: :class:`~paohuzi.engine.claims.ClaimWindow`, R4.4), the endings (``wins.py``) and the
position in and out (``position.py``: observation, record, :meth:`Hand.from_position`).
Everything a hand hands out is immutable (actions, events, the outcome) or a fresh JSON-ready dict.
Forced moves (提, 偎, 跑, 比) are made by the engine and reported as events; a seat with no real choice is
never asked. ``docs/engine.md`` §1a walks a discard through them.

>>> from paohuzi.rules import find_preset
>>> hand = Hand(find_preset("qq"), seed=7)
>>> hand.dealer, hand.deciding, len(hand.legal_actions(hand.dealer)) > 1
(1, (1,), True)
>>> events = hand.apply(1, hand.legal_actions(1)[0])
>>> events[0].type, events[0].seat
('discard', 1)
>>> seat, action = hand.last_action
>>> seat, str(action) == hand.actions[-1][1]
(1, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Self

from paohuzi._compiled import mypyc_attr
from paohuzi.cards import Card, NotationError, PaohuziError, full_deck
from paohuzi.engine import position, turns, wins
from paohuzi.engine.actions import Action, ActionKind, IllegalActionError
from paohuzi.engine.claims import ClaimWindow
from paohuzi.engine.deck import check_deck, shuffled
from paohuzi.engine.events import Event
from paohuzi.engine.fair import FairError, FairSeed, fair_shuffled
from paohuzi.engine.observation import Hidden, Observation, Phase
from paohuzi.engine.records import FORMAT_VERSION
from paohuzi.engine.state import CARDS, CLAIM, DISCARD, SELF, EngineError, HandState, Outcome
from paohuzi.groups import Group
from paohuzi.rules import RuleSet

__all__ = ["Hand", "Outcome", "EngineError", "FORMAT_VERSION"]

_FULL_DECK = tuple(full_deck())  # kind order: what a verifiable deal shuffles (RNG version 2)


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled: X.__new__(X) without __init__, for copy
class Hand:
    """A hand (一局) of paohuzi for the seats in play, from the deal to the settlement.

    :param rules: the rule set (R8).
    :param seed: seeds the dealer draw (when ``dealer`` is None) and the shuffle (R2); None for a hand
        dealt from ``deck`` alone (a program that shuffles itself), which then needs ``dealer`` too. A
        :class:`~paohuzi.engine.fair.FairSeed` (server seed and client seeds) deals verifiably (RNG version 2,
        issue 32); an int deals with RNG version 1.
    :param dealer: the dealer's seat, or None to draw it from the seed.
    :param deck: a deck in deal order (see :mod:`paohuzi.engine.deck`) instead of the shuffle — for tests.
    :param double_cards: seats holding a 双倍积分卡 (R7.3): a winning holder's gain doubles (losses never do).
    :param drawn_before: 荒庄 in a row just before this hand in its match (R9.1 黄番; :class:`Match` gives it).
    :raises EngineError: for a bad seed, dealer, deck or drawn_before.
    """

    __slots__ = ("_st",)

    def __init__(
        self,
        rules: RuleSet | object,
        seed: int | None | object = 0,
        dealer: int | None | object = None,
        *,
        deck: Sequence[Card | int | str] | None = None,
        double_cards: Iterable[int] = (),
        drawn_before: int | object = 0,
    ) -> None:
        if not isinstance(rules, RuleSet):
            raise EngineError(f"rules must be a RuleSet (see paohuzi.rules.find_preset), got {rules!r}")
        cards: Sequence[Card]
        fair = seed if isinstance(seed, FairSeed) else None
        int_seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else None
        if not (seed is None or fair is not None or int_seed is not None):
            raise EngineError(f"seed must be an int or a FairSeed, got {seed!r}")
        n = rules.players_at_table
        if not (dealer is None or (isinstance(dealer, int) and not isinstance(dealer, bool) and 0 <= dealer < n)):
            raise EngineError(f"dealer must be a seat 0–{n - 1}, got {dealer!r}")
        if fair is not None:  # RNG version 2 (issue 32): the deck from the server seed and the client seeds
            try:
                dealer, cards = fair_shuffled(fair, n, dealer, _FULL_DECK)
            except FairError as exc:
                raise EngineError(str(exc)) from None
        elif int_seed is None:
            if dealer is None or deck is None:
                raise EngineError("a hand without a seed needs the dealer and the deck (R2)")
            cards = ()
        else:
            dealer, cards = shuffled(int_seed, n, dealer)
        if deck is not None:
            try:
                cards = check_deck(deck)
            except PaohuziError as exc:
                raise EngineError(str(exc)) from None
        doubles = frozenset(double_cards)
        if not all(isinstance(s, int) and 0 <= s < n for s in doubles):
            raise EngineError(f"double_cards must be seats 0–{n - 1}, got {sorted(doubles)!r}")
        if isinstance(drawn_before, bool) or not isinstance(drawn_before, int) or drawn_before < 0:
            raise EngineError(f"drawn_before (荒庄 in a row, R9.1 黄番) must be a number ≥ 0, got {drawn_before!r}")
        st = self._st = HandState(rules, int_seed, dealer, cards, doubles, ClaimWindow(), stacked=deck is not None)
        st.fair = fair
        st.drawn_before = drawn_before  # before the deal: a dealt 天胡 is scored at once
        turns.start(st)

    @classmethod
    def from_position(
        cls,
        rules: RuleSet | object,
        observation: Observation | object,
        hidden: Hidden | object,
        *,
        double_cards: Iterable[int] = (),
        drawn_before: int | None | object = None,
    ) -> Self:
        """A playable hand in the position of ``observation`` (what one seat sees) completed by ``hidden``
        (what it does not): the search bot's sampled worlds, a position set up by hand. From there on it
        plays exactly as the hand the position came from (same legal actions, events and outcome).
        ``drawn_before``: the 荒庄 in a row before the hand (R9.1 黄番); None: the observation's.

        The cards must be conserved (R1: four of each kind among the hands, the tables, the rows, the card
        on offer and the stock) and fit the observation (hand sizes, hidden 偎, stock size). The decision
        pending is worked out again from the position, as the engine would have; when ``hidden`` gives no
        seat the choice the observation shows (a sampled world that contradicts the history), the engine
        plays on by the rules. The hand has no :meth:`record` (there is no deal) and no events before.

        :raises EngineError: naming what does not fit.
        """
        new: Self = cls.__new__(cls)  # no deal: the state comes from the position
        if drawn_before is None:
            drawn_before = observation.drawn_before if isinstance(observation, Observation) else 0
        new._st = position.from_position(rules, observation, hidden, frozenset(double_cards), drawn_before)
        return new

    def copy(self) -> Hand:
        """An independent copy (for search): the same state, events and record so far."""
        new: Hand = Hand.__new__(Hand)
        new._st = self._st.copy()
        return new

    # ------------------------------------------------------------------------------------------------
    # What the hand is
    # ------------------------------------------------------------------------------------------------

    @property
    def rules(self) -> RuleSet:
        """The rule set (R8)."""
        return self._st.rules

    @property
    def seed(self) -> int | None:
        """The seed of the deal (0 for a hand set up by :meth:`from_position`), or None (a verifiable deal:
        :attr:`fair`)."""
        return self._st.seed

    @property
    def fair(self) -> FairSeed | None:
        """The server and client seeds of a verifiable deal (RNG version 2, issue 32), or None."""
        return self._st.fair

    @property
    def dealer(self) -> int:
        """The dealer's seat (R2)."""
        return self._st.dealer

    @property
    def sitting_out(self) -> int | None:
        """The seat sitting this hand out (four players: the dealer's opposite, R2), or None."""
        return self._st.sitting_out

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats in play, in turn order from the dealer."""
        return self._st.seats

    @property
    def table_size(self) -> int:
        """Seats at the table (3, or 4 with ``four_players``; 4 or 3, all in play, in 衡阳六胡抢, R9.3)."""
        return self._st.table_size

    @property
    def drawn_before(self) -> int:
        """荒庄 in a row just before this hand in its match (R9.1 黄番)."""
        return self._st.drawn_before

    @property
    def double_cards(self) -> frozenset[int]:
        """Seats holding a 双倍积分卡 (R7.3)."""
        return self._st.double_cards

    @property
    def events(self) -> list[Event]:
        """Every event so far, in order (the referee's: :meth:`Event.for_seat` is what a seat sees)."""
        return self._st.events

    @property
    def outcome(self) -> Outcome | None:
        """How the hand ended, or None while it is on."""
        return self._st.outcome

    @property
    def over(self) -> bool:
        """True once the hand has ended (胡, 荒庄 or 逃跑)."""
        return self._st.outcome is not None

    @property
    def deciding(self) -> tuple[int, ...]:
        """The seats that must decide now, in turn order (empty when the hand is over)."""
        return self._st.deciding

    @property
    def phase(self) -> Phase:
        """What is being decided: ``discard``, ``claim`` (a card on offer), ``self_hu`` (胡 after a forced
        提/偎, R4.2.3), ``liangzhang`` (the 亮张 天胡, R6.4) or ``over``."""
        return self._st.phase

    @property
    def stock_left(self) -> int:
        """Cards left in the stock (墩)."""
        return len(self._st.stock) - self._st.spos

    @property
    def liangzhang(self) -> Card:
        """The 亮张 (R2)."""
        return CARDS[self._st.liang]

    @property
    def actions(self) -> tuple[tuple[int, str], ...]:
        """Every action played so far, as (seat, text); ``leave`` for 逃跑."""
        return tuple(self._st.action_texts())

    @property
    def last_action(self) -> tuple[int, Action] | None:
        """The last action :meth:`apply` played, as (seat, :class:`Action`) — given as text, the action parsed
        —, or None (none yet, or the last step was :meth:`leave`). O(1): what a server stores after ``apply``."""
        return self._st.applied

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty if it has no decision to make). Exact: forced moves
        are never listed, and :meth:`apply` accepts exactly these."""
        st = self._st
        if seat in st.deciding:
            return list(st.legal[seat])
        return []

    def hand_of(self, seat: int) -> tuple[Card, ...]:
        """The cards in ``seat``'s hand, sorted (referee information)."""
        return self._st.players[seat].hand_cards()

    def table_of(self, seat: int) -> tuple[Group, ...]:
        """``seat``'s table groups in the order they were laid down (referee information)."""
        return self._st.players[seat].table_groups()

    # ------------------------------------------------------------------------------------------------
    # Playing
    # ------------------------------------------------------------------------------------------------

    def apply(self, seat: int | object, action: Action | str | object) -> list[Event]:
        """Play ``action`` (an :class:`Action` or its text) for ``seat``; the engine then runs every forced
        move until a seat must decide again or the hand ends.

        :returns: the events this caused, in order.
        :raises IllegalActionError: if the hand is over, the seat is not deciding, the text does not parse
            or the action is not legal now. The state is then unchanged.
        """
        st = self._st
        if type(action) is not Action or type(seat) is not int or seat not in st.deciding or st.outcome is not None:
            seat, action = self._checked(seat, action)  # the refusals, in order; or the action parsed
        legal = st.legal[seat]
        # The legal actions are mostly shared instances: find the one played by identity first (``in``
        # would call the dataclass ``__eq__`` on every action before it).
        for known in legal:
            if known is action:
                break
        else:
            if action not in legal:
                raise IllegalActionError(seat, action, self._why_not(seat, action))
        events = st.events
        start = len(events)
        st.actions.append((seat, action))  # its text is made when the record asks (``action_texts``)
        st.applied = (seat, action)
        turns.play(st, seat, action)
        return events[start:]

    def _checked(self, seat: int | object, action: Action | str | object) -> tuple[int, Action]:
        """:meth:`apply`'s checks before legality, each with its refusal; the action, parsed from its text."""
        st = self._st
        if st.outcome is not None:
            raise IllegalActionError(seat, action, "the hand is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < st.table_size:
            raise IllegalActionError(seat, action, f"no such seat (seats are 0–{st.table_size - 1})")
        if isinstance(action, str):
            try:
                action = Action.parse(action)
            except NotationError as exc:
                raise IllegalActionError(seat, action, str(exc)) from exc
        elif not isinstance(action, Action):
            raise IllegalActionError(seat, action, f"an action is an Action or its text, got {type(action).__name__}")
        if seat not in st.deciding:
            who = ", ".join(map(str, st.deciding))
            raise IllegalActionError(seat, action, f"seat {seat} has no decision to make now (deciding: {who})")
        return seat, action

    def leave(self, seat: int) -> list[Event]:
        """逃跑 (R7.3): ``seat`` leaves; the hand ends and the seat pays the penalty to the others.

        :raises IllegalActionError: if the hand is over or the seat does not play this hand.
        """
        st = self._st
        if st.outcome is not None:
            raise IllegalActionError(seat, "leave", "the hand is over")
        if seat not in st.seats:
            raise IllegalActionError(seat, "leave", f"seat {seat} does not play this hand (seats: {st.seats})")
        start = len(st.events)
        st.actions.append((seat, "leave"))
        st.applied = None
        wins.escape(st, seat)
        return st.events[start:]

    # ------------------------------------------------------------------------------------------------
    # The position out
    # ------------------------------------------------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may know now (R5): see :class:`~paohuzi.engine.Observation` and, for its
        JSON form (:meth:`~paohuzi.engine.Observation.to_dict`), ``docs/engine.md``.

        :raises EngineError: for a seat not at the table.
        """
        return position.observation(self._st, seat)

    def hidden(self, seat: int) -> Hidden:
        """What ``seat``'s observation leaves out, as it truly is (referee information): with
        :meth:`observation` it is the whole position (:meth:`from_position`).

        :raises EngineError: for a seat not at the table.
        """
        return position.hidden(self._st, seat)

    def referee_view(self) -> dict[str, Any]:
        """The whole state (R5 does not apply): every hand and table, the stock in order, 臭 kinds,
        the decisions pending and made. JSON-ready."""
        return position.referee_view(self._st)

    def record(self) -> dict[str, Any]:
        """The hand, self-contained (``docs/engine.md`` §8): the rules, the seed and RNG version (when the
        deal came from the seed), the dealer, the dealt cards (``dealt``), every action as ``[seat, text]``
        (``leave`` for 逃跑) and, once over, the result. JSON-ready (:meth:`HandRecord.to_dict
        <paohuzi.engine.HandRecord.to_dict>`); :func:`replay` plays it again.

        :raises EngineError: for a hand built by :meth:`from_position` (it has no deal to record).
        """
        return position.record(self._st).to_dict()

    def dealt(self) -> dict[str, Any]:
        """The dealt cards (R2), JSON-ready: ``{"hands": [...], "stock": [...]}`` — per seat at the table its
        hand in deal order (the dealer's 21st card is the 亮张; the sitting-out seat's is empty), and the
        stock in draw order. The deck in deal order is the hands of the seats in turn order from the
        dealer, then the stock.

        :raises EngineError: for a hand built by :meth:`from_position`.
        """
        return position.dealt(self._st)

    # ------------------------------------------------------------------------------------------------
    # Error messages
    # ------------------------------------------------------------------------------------------------

    def _why_not(self, s: int, action: Action) -> str:  # noqa: PLR0911 (debt: one refusal per R4 case; file under rework (issue 10 item 1))
        st = self._st
        legal = ", ".join(str(a) for a in st.legal[s])
        kind = action.kind
        c = st.card
        if kind is ActionKind.DISCARD:
            assert action.card is not None
            k = int(action.card)
            n = st.players[s].hand[k]
            if st.phase not in (DISCARD, SELF) or not any(a.kind is ActionKind.DISCARD for a in st.legal[s]):
                return f"no discard is owed now (R4.6); legal: {legal}"
            if n == 0:
                return f"seat {s} holds no {action.card} (legal: {legal})"
            if n >= 3:
                return f"{action.card} is part of a 坎, which may never be discarded (R3, R4.6)"
        elif kind in (ActionKind.CHI, ActionKind.PENG) and st.phase == CLAIM and c is not None:
            verb = "吃" if kind is ActionKind.CHI else "碰"
            card = CARDS[c]
            if c in st.players[s].discarded:
                return f"seat {s} discarded {card} before and may never {verb} it (R4.7)"
            if kind is ActionKind.CHI and c in st.players[s].no_chi:
                return f"{card} is 臭 for seat {s}: it declined to 吃 it before (R4.7)"
            if kind is ActionKind.PENG and c in st.players[s].no_peng:
                return f"{card} is 臭 for seat {s}: it declined to 碰 or 吃 it before (R4.7, chou_blocks_peng)"
            if kind is ActionKind.CHI and not any(a.kind is ActionKind.CHI for a in st.legal[s]):
                return f"seat {s} cannot 吃 {card} here: only the drawer and its 下家 (or the discarder's 下家) " \
                       f"may, with two hand cards outside 坎, all copies 比'd and a discard left (R4.3, R4.5, R4.6); " \
                       f"legal: {legal}"
            if kind is ActionKind.CHI:
                ways = ", ".join(str(a) for a in st.legal[s] if a.kind is ActionKind.CHI)
                return f"not one of the ways to 吃 {card} (R4.3, R4.5 — every copy left must be 比'd): {ways}"
            return f"seat {s} cannot 碰 {card} here (R4.3: a hand pair, not the drawer or discarder); legal: {legal}"
        elif kind is ActionKind.HU:
            return (
                f"the cards are not complete (R6.1: all in groups, the 将 rule, ≥ {st.min_huxi} 胡息); "
                f"legal: {legal}"
            )
        return f"not among the legal actions now: {legal}"
