"""One hand (一局) from the deal to the settlement: R2, R4.1–R4.7, R5, R6.3, R6.4, R7.3.

:class:`Hand` owns a mutable state (counts per card kind, int card indices) and changes only through
:meth:`Hand.apply` (a seat's choice among :meth:`Hand.legal_actions`) and :meth:`Hand.leave` (逃跑).
Everything it hands out is immutable (actions, events, the outcome) or a fresh JSON-ready dict
(observations). Forced moves (提, 偎, 跑, 比) are made by the engine and reported as events; a seat with no
real choice is never asked.

The state and its helpers are in ``state.py``; the endings in ``wins.py``, the claim window (R4.4) in
``claims.py``, the turn flow in ``turns.py``, the observation, record and :meth:`Hand.from_position` in
``position.py``; :class:`Hand` composes them.

>>> from paohuzi.rules import find_preset
>>> hand = Hand(find_preset("qq"), seed=7)
>>> hand.dealer, hand.deciding, len(hand.legal_actions(hand.dealer)) > 1
(1, (1,), True)
>>> events = hand.apply(1, hand.legal_actions(1)[0])
>>> events[0].type, events[0].seat
('discard', 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from paohuzi._compiled import mypyc_attr
from paohuzi.analysis import Source
from paohuzi.cards import NUM_KINDS, Card, NotationError, PaohuziError
from paohuzi.engine import scoring_bridge
from paohuzi.engine.actions import PASS, Action, ActionKind, IllegalActionError
from paohuzi.engine.claims import _WAITING
from paohuzi.engine.deck import check_deck, seats_in_play, shuffled
from paohuzi.engine.events import Escape, Event, Pass
from paohuzi.engine.observation import NO_CHOU, ChouKinds, OutcomeKind, Phase, RowCard, WinHow
from paohuzi.engine.position import FORMAT_VERSION, PositionMixin
from paohuzi.engine.state import _CARDS, _CLAIM, _DISCARD, _LIANG, _OVER, _SELF, EngineError, Outcome, _next_seats
from paohuzi.groups import Group
from paohuzi.rules import RuleSet

__all__ = ["Hand", "Outcome", "EngineError", "FORMAT_VERSION"]


@mypyc_attr(allow_interpreted_subclasses=True)  # see paohuzi/_compiled.py
class Hand(PositionMixin):
    """A hand (一局) of paohuzi for the seats in play, from the deal to the settlement.

    :param rules: the rule set (R8).
    :param seed: seeds the dealer draw (when ``dealer`` is None) and the shuffle (R2); None for a hand
        dealt from ``deck`` alone (a program that shuffles itself), which then needs ``dealer`` too.
    :param dealer: the dealer's seat, or None to draw it from the seed.
    :param deck: a deck in deal order (see :mod:`paohuzi.engine.deck`) instead of the shuffle — for tests.
    :param double_cards: seats holding a 双倍积分卡 (R7.3): a winning holder's gain doubles (losses never do).
    :raises EngineError: for a bad seed, dealer or deck.
    """

    __slots__ = ()

    def __init__(  # noqa: PLR0915 (debt: one assignment per state field, as in from_position)
        self,
        rules: RuleSet | object,
        seed: int | None | object = 0,
        dealer: int | None | object = None,
        *,
        deck: Sequence[Card | int | str] | None = None,
        double_cards: Iterable[int] = (),
    ) -> None:
        if not isinstance(rules, RuleSet):
            raise EngineError(f"rules must be a RuleSet (see paohuzi.rules.find_preset), got {rules!r}")
        if not (seed is None or (isinstance(seed, int) and not isinstance(seed, bool))):
            raise EngineError(f"seed must be an int, got {seed!r}")
        n = rules.players_at_table
        if not (dealer is None or (isinstance(dealer, int) and not isinstance(dealer, bool) and 0 <= dealer < n)):
            raise EngineError(f"dealer must be a seat 0–{n - 1}, got {dealer!r}")
        if seed is None:
            if dealer is None or deck is None:
                raise EngineError("a hand without a seed needs the dealer and the deck (R2)")
            cards: Sequence[Card] = ()
        else:
            dealer, cards = shuffled(seed, n, dealer)
        if deck is not None:
            try:
                cards = check_deck(deck)
            except PaohuziError as exc:
                raise EngineError(str(exc)) from None
        doubles = frozenset(double_cards)
        if not all(isinstance(s, int) and 0 <= s < n for s in doubles):
            raise EngineError(f"double_cards must be seats 0–{n - 1}, got {sorted(doubles)!r}")
        self.rules = rules
        self.seed = seed
        self.dealer = dealer
        self.double_cards = doubles
        self.seats = seats_in_play(rules, dealer)
        self.sitting_out = (dealer + 2) % 4 if rules.four_players else None
        self.table_size = n
        self._stacked = deck is not None
        self._deck = tuple(cards)
        self._next = _next_seats(self.seats)
        self._hands = [[0] * NUM_KINDS for _ in range(n)]
        self._hsize = [0] * n
        self._tables: list[list[Group]] = [[] for _ in range(n)]
        self._tsize = [0] * n
        self._fours = [0] * n
        self._wei: list[dict[int, int]] = [{} for _ in range(n)]  # kind -> index of its 偎/臭偎
        self._peng: list[dict[int, int]] = [{} for _ in range(n)]  # kind -> index of its 碰
        self._rows: list[list[tuple[int, bool]]] = [[] for _ in range(n)]  # (card, discarded from hand)
        self._no_chi: list[set[int]] = [set() for _ in range(n)]
        self._no_peng: list[set[int]] = [set() for _ in range(n)]
        self._renpeng: list[set[int]] = [set() for _ in range(n)]
        self._discarded: list[set[int]] = [set() for _ in range(n)]
        self._dead = [False] * n
        self._hcache: list[tuple[Card, ...] | None] = [None] * n
        self._tcache: list[tuple[Group, ...] | None] = [None] * n
        self._tview: list[tuple[Group | None, ...] | None] = [None] * n
        self._rview: list[tuple[RowCard, ...]] = [()] * n
        self._cview: list[tuple[int, ChouKinds]] = [(0, NO_CHOU)] * n
        self._info: list[tuple[int, list[int], int] | None] = [None] * n
        self._phase = _OVER
        self._actor = dealer
        self._card: int | None = None  # the card on offer, the forced draw (self_hu) or the 亮张
        self._drawn = False
        self._last = False
        self._claims: list[tuple[int, int]] = []
        self._legal: dict[int, list[Action]] = {}
        self._decided: dict[int, Action] = {}
        self._deciding: tuple[int, ...] = ()
        self._actions: list[tuple[int, Action | str]] = []
        self._min_huxi = rules.min_huxi
        self._positioned = False
        self.events: list[Event] = []
        self.outcome: Outcome | None = None
        self._start()

    # ------------------------------------------------------------------------------------------------
    # Public API
    # ------------------------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True once the hand has ended (胡, 荒庄 or 逃跑)."""
        return self.outcome is not None

    @property
    def deciding(self) -> tuple[int, ...]:
        """The seats that must decide now, in turn order (empty when the hand is over)."""
        return self._deciding

    @property
    def phase(self) -> Phase:
        """What is being decided: ``discard``, ``claim`` (a card on offer), ``self_hu`` (胡 after a forced
        提/偎, R4.2.3), ``liangzhang`` (the 亮张 天胡, R6.4) or ``over``."""
        return self._phase

    @property
    def stock_left(self) -> int:
        """Cards left in the stock (墩)."""
        return len(self._stock) - self._spos

    @property
    def liangzhang(self) -> Card:
        """The 亮张 (R2)."""
        return _CARDS[self._liang]

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty if it has no decision to make). Exact: forced moves
        are never listed, and :meth:`apply` accepts exactly these."""
        if seat in self._deciding:
            return list(self._legal[seat])
        return []

    def hand_of(self, seat: int) -> tuple[Card, ...]:
        """The cards in ``seat``'s hand, sorted (referee information)."""
        return self._hand_cards(seat)

    def table_of(self, seat: int) -> tuple[Group, ...]:
        """``seat``'s table groups in the order they were laid down (referee information)."""
        return self._table_groups(seat)

    def apply(self, seat: int | object, action: Action | str | object) -> list[Event]:  # noqa: PLR0912 (debt: file under rework (issue 10 item 1))
        """Play ``action`` (an :class:`Action` or its text) for ``seat``; the engine then runs every forced
        move until a seat must decide again or the hand ends.

        :returns: the events this caused, in order.
        :raises IllegalActionError: if the hand is over, the seat is not deciding, the text does not parse
            or the action is not legal now. The state is then unchanged.
        """
        deciding = self._deciding
        if type(action) is not Action or type(seat) is not int or seat not in deciding or self.outcome is not None:
            seat, action = self._checked(seat, action)  # the refusals, in order; or the action parsed
        legal = self._legal[seat]
        # The legal actions are mostly shared instances: find the one played by identity first (``in``
        # would call the dataclass ``__eq__`` on every action before it).
        for known in legal:
            if known is action:
                break
        else:
            if action not in legal:
                raise IllegalActionError(seat, action, self._why_not(seat, action))
        events = self.events
        start = len(events)
        self._actions.append((seat, action))  # its text is made when the record asks (``_action_texts``)
        phase = self._phase
        if phase is _CLAIM or phase is _LIANG:
            self._decided[seat] = action
            self._deciding = tuple([s for s in deciding if s != seat]) if len(deciding) > 1 else ()
            if action is PASS or action.kind is ActionKind.PASS:
                events.append(Pass(seat, seat))
            idx = self._resolve()
            if idx is not _WAITING:
                if phase == _LIANG:
                    self._close_liang(idx)
                else:
                    self._run(self._close_window(idx))
        elif phase is _DISCARD:
            self._clear_decision()
            assert action.card is not None
            self._run(self._discard(seat, int(action.card), False))
        else:  # _SELF: 胡 after a forced 提/偎 (R4.2.3)
            self._clear_decision()
            if action.kind is ActionKind.HU:
                self._win(seat, None, WinHow.FORCED, Source.NONE, won=self._card)
            elif action.kind is ActionKind.DISCARD:
                assert action.card is not None
                self._run(self._discard(seat, int(action.card), False))
            else:
                self._run(self._after_take(seat))
        return events[start:]

    def _checked(self, seat: int | object, action: Action | str | object) -> tuple[int, Action]:
        """:meth:`apply`'s checks before legality, each with its refusal; the action, parsed from its text."""
        if self.outcome is not None:
            raise IllegalActionError(seat, action, "the hand is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.table_size:
            raise IllegalActionError(seat, action, f"no such seat (seats are 0–{self.table_size - 1})")
        if isinstance(action, str):
            try:
                action = Action.parse(action)
            except NotationError as exc:
                raise IllegalActionError(seat, action, str(exc)) from exc
        elif not isinstance(action, Action):
            raise IllegalActionError(seat, action, f"an action is an Action or its text, got {type(action).__name__}")
        if seat not in self._deciding:
            who = ", ".join(map(str, self._deciding))
            raise IllegalActionError(seat, action, f"seat {seat} has no decision to make now (deciding: {who})")
        return seat, action

    def leave(self, seat: int) -> list[Event]:
        """逃跑 (R7.3): ``seat`` leaves; the hand ends and the seat pays the penalty to the others.

        :raises IllegalActionError: if the hand is over or the seat does not play this hand.
        """
        if self.outcome is not None:
            raise IllegalActionError(seat, "leave", "the hand is over")
        if seat not in self.seats:
            raise IllegalActionError(seat, "leave", f"seat {seat} does not play this hand (seats: {self.seats})")
        start = len(self.events)
        self._actions.append((seat, "leave"))
        if self._phase is _CLAIM and self._card is not None:  # the card on offer stays where it would lie
            self._rows[self._actor].append((self._card, not self._drawn))
            self._card = None
        self._clear_decision()
        others = [s for s in self.seats if s != seat]
        huxis = {s: self._partial_huxi(s) for s in others}
        total = sum(huxis.values())
        payments = scoring_bridge.escape_payments(seat, huxis, self.rules.stake, self.table_size)
        self._emit(Escape(None, seat, total, *self._reveal()))
        self._finish(
            Outcome(OutcomeKind.ESCAPE, None, None, None, False, False, False, None, None, total, 0, payments, seat)
        )
        return self.events[start:]

    def copy(self) -> Hand:
        """An independent copy (for search): the same state, events and record so far."""
        new: Hand = Hand.__new__(Hand)  # no __init__: every field is set below
        new.rules = self.rules
        new.seed = self.seed
        new.dealer = self.dealer
        new.sitting_out = self.sitting_out
        new.seats = self.seats
        new.table_size = self.table_size
        new.double_cards = self.double_cards
        new.outcome = self.outcome
        new._stacked = self._stacked
        new._deck = self._deck
        new._next = self._next
        new._stock = self._stock
        new._spos = self._spos
        new._liang = self._liang
        new._phase = self._phase
        new._actor = self._actor
        new._card = self._card
        new._drawn = self._drawn
        new._last = self._last
        new._deciding = self._deciding
        new._min_huxi = self._min_huxi
        new._positioned = self._positioned
        new.events = list(self.events)
        new._hands = [h[:] for h in self._hands]
        new._hsize = self._hsize[:]
        new._tables = [t[:] for t in self._tables]
        new._tsize = self._tsize[:]
        new._fours = self._fours[:]
        new._wei = [dict(d) for d in self._wei]
        new._peng = [dict(d) for d in self._peng]
        new._rows = [r[:] for r in self._rows]
        new._no_chi = [set(x) for x in self._no_chi]
        new._no_peng = [set(x) for x in self._no_peng]
        new._renpeng = [set(x) for x in self._renpeng]
        new._discarded = [set(x) for x in self._discarded]
        new._dead = self._dead[:]
        new._hcache = self._hcache[:]
        new._tcache = self._tcache[:]
        new._tview = self._tview[:]
        new._rview = self._rview[:]
        new._cview = self._cview[:]
        new._info = self._info[:]  # the cached tuples are never changed in place
        new._claims = self._claims[:]
        new._legal = {s: a[:] for s, a in self._legal.items()}
        new._decided = dict(self._decided)
        new._actions = self._actions[:]
        return new

    # ------------------------------------------------------------------------------------------------
    # Error messages
    # ------------------------------------------------------------------------------------------------

    def _why_not(self, s: int, action: Action) -> str:  # noqa: PLR0911 (debt: one refusal per R4 case; file under rework (issue 10 item 1))
        legal = ", ".join(str(a) for a in self._legal[s])
        kind = action.kind
        c = self._card
        if kind is ActionKind.DISCARD:
            assert action.card is not None
            k = int(action.card)
            n = self._hands[s][k]
            if self._phase not in (_DISCARD, _SELF) or not any(a.kind is ActionKind.DISCARD for a in self._legal[s]):
                return f"no discard is owed now (R4.6); legal: {legal}"
            if n == 0:
                return f"seat {s} holds no {action.card} (legal: {legal})"
            if n >= 3:
                return f"{action.card} is part of a 坎, which may never be discarded (R3, R4.6)"
        elif kind in (ActionKind.CHI, ActionKind.PENG) and self._phase == _CLAIM and c is not None:
            verb = "吃" if kind is ActionKind.CHI else "碰"
            card = _CARDS[c]
            if c in self._discarded[s]:
                return f"seat {s} discarded {card} before and may never {verb} it (R4.7)"
            if kind is ActionKind.CHI and c in self._no_chi[s]:
                return f"{card} is 臭 for seat {s}: it declined to 吃 it before (R4.7)"
            if kind is ActionKind.PENG and c in self._no_peng[s]:
                return f"{card} is 臭 for seat {s}: it declined to 碰 or 吃 it before (R4.7, chou_blocks_peng)"
            if kind is ActionKind.CHI and not any(a.kind is ActionKind.CHI for a in self._legal[s]):
                return f"seat {s} cannot 吃 {card} here: only the drawer and its 下家 (or the discarder's 下家) " \
                       f"may, with two hand cards outside 坎, all copies 比'd and a discard left (R4.3, R4.5, R4.6); " \
                       f"legal: {legal}"
            if kind is ActionKind.CHI:
                ways = ", ".join(str(a) for a in self._legal[s] if a.kind is ActionKind.CHI)
                return f"not one of the ways to 吃 {card} (R4.3, R4.5 — every copy left must be 比'd): {ways}"
            return f"seat {s} cannot 碰 {card} here (R4.3: a hand pair, not the drawer or discarder); legal: {legal}"
        elif kind is ActionKind.HU:
            return (
                f"the cards are not complete (R6.1: all in groups, the 将 rule, ≥ {self._min_huxi} 胡息); "
                f"legal: {legal}"
            )
        return f"not among the legal actions now: {legal}"
