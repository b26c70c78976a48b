"""One hand (一局) from the deal to the settlement: R2, R4.1–R4.7, R5, R6.3, R6.4, R7.3.

:class:`Hand` owns a mutable state (counts per card kind, int card indices) and changes only through
:meth:`Hand.apply` (a seat's choice among :meth:`Hand.legal_actions`) and :meth:`Hand.leave` (逃跑).
Everything it hands out is immutable (actions, events, the outcome) or a fresh JSON-ready dict
(observations). Forced moves (提, 偎, 跑, 比) are made by the engine and reported as events; a seat with no
real choice is never asked.

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
from dataclasses import dataclass
from enum import Enum
from typing import Any

from paohuzi import analysis
from paohuzi.analysis import Arrangement, Source
from paohuzi.cards import COPIES, NUM_KINDS, Card, NotationError, PaohuziError
from paohuzi.engine import scoring_bridge
from paohuzi.engine.actions import HU, PASS, PENG, Action, ActionKind, IllegalActionError
from paohuzi.engine.deck import (
    DEALER_CARDS,
    HAND_CARDS,
    RNG_VERSION,
    check_deck,
    seats_in_play,
    shuffled,
)
from paohuzi.engine.events import CARD_TEXT as _TEXT
from paohuzi.engine.events import (
    Chi,
    Chou,
    Dead,
    Deal,
    Discard,
    Draw,
    DrawGame,
    Escape,
    Event,
    Hu,
    Pao,
    Pass,
    Peng,
    Settlement,
    Show,
    Ti,
    Unclaimed,
    Wei,
    jsonable,
)
from paohuzi.engine.observation import (
    NO_CHOU,
    ChouKinds,
    Hidden,
    Observation,
    OutcomeKind,
    Pending,
    Phase,
    WinHow,
    row_card,
)
from paohuzi.groups import PARTNERS, Group, GroupKind, same_kind_huxi
from paohuzi.rules import RuleSet
from paohuzi.scoring import Score

__all__ = ["Hand", "Outcome", "EngineError", "FORMAT_VERSION"]

#: Version of :meth:`Hand.record`'s format (``docs/engine.md`` §8, ``docs/record.schema.json``). Version 2
#: added the dealt cards (``deal``) and the result; :func:`paohuzi.engine.replay` still reads version 1.
FORMAT_VERSION = 2

_CARDS = tuple(Card)
_TI, _PAO, _WEI, _CHOUWEI, _PENG_G = GroupKind.TI, GroupKind.PAO, GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PENG
_SAME = {kind: [Group(kind, (Card(k),) * kind.size) for k in range(NUM_KINDS)] for kind in GroupKind if kind.same_kind}
_CHI_GROUPS: dict[tuple[int, ...], Group] = {}
_CHI_ACTIONS: dict[tuple[int, int, tuple[tuple[int, ...], ...]], Action] = {}

# Phases: who must decide what.
_OVER, _DISCARD, _CLAIM, _SELF, _LIANG = Phase.OVER, Phase.DISCARD, Phase.CLAIM, Phase.SELF_HU, Phase.LIANGZHANG
class _Waiting(Enum):
    """:meth:`Hand._resolve` while a seat with priority has not answered (R4.4)."""

    WAITING = "waiting"


_WAITING = _Waiting.WAITING
# Claim types, in priority order (R4.4).
_C_HU, _C_PAO, _C_PENG, _C_CHI = range(4)


def _chi_group(cards: tuple[int, ...]) -> Group:
    key = tuple(sorted(cards))
    g = _CHI_GROUPS.get(key)
    if g is None:
        g = _CHI_GROUPS[key] = Group.chi(tuple(Card(c) for c in key))
    return g


# For each card kind c, the pairs of other cards (a, b), a <= b, that make a 句 or 绞 with c (R3 shape table).
_PARTNERS = PARTNERS
# 胡息 of a 坎 (R3) and of a 偎, the most a hand pair can grow into (R4.2), by card kind.
_KAN_HUXI = [same_kind_huxi(GroupKind.KAN, k) for k in range(NUM_KINDS)]
_WEI_HUXI = [same_kind_huxi(GroupKind.WEI, k) for k in range(NUM_KINDS)]


class EngineError(PaohuziError):
    """Bad arguments to the engine (a rule set, seed, dealer or deck it cannot use)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a hand ended (R6, R7.3).

    :ivar kind: an :class:`OutcomeKind`: ``hu`` (a win), ``draw`` (荒庄) or ``escape`` (逃跑).
    :ivar winner: the winning seat, or None.
    :ivar card: the card won: the card on offer, the drawn card of a forced 提/偎 (R4.2.3) or the 亮张;
        None for a dealt 天胡 and when nobody won.
    :ivar source: a :class:`WinHow`, how the card was won: ``self`` (自摸 of a shown draw), ``forced``
        (自摸 after a forced 提/偎, R4.2.3), ``other`` (another seat's draw), ``discard``, ``dealt`` (dealt
        天胡), ``liangzhang``.
    :ivar arrangement: the winner's arrangement (R6.2), or None.
    :ivar score: the :mod:`paohuzi.scoring` score (名堂, 番, base, points), or None.
    :ivar payments: one per seat at the table (the sitting-out seat gets 0); they sum to zero, except for a
        winning 双倍积分卡 holder's doubled gain (R7.3).
    :ivar leaver: the seat that left (逃跑), or None.
    """

    kind: OutcomeKind
    winner: int | None
    card: Card | None
    source: WinHow | None
    zimo: bool
    tianhu: bool
    haidi: bool
    arrangement: Arrangement | None
    score: Score | None
    huxi: int
    points: int
    payments: tuple[int, ...]
    leaver: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; the win's groups, 名堂, 番 and base are :meth:`paohuzi.scoring.Win.to_dict`'s."""
        arr = self.arrangement
        score = self.score
        win = scoring_bridge.Win(arr, score).to_dict() if arr is not None and score is not None else {}
        return {
            "kind": self.kind.value,
            "winner": self.winner,
            "card": jsonable(self.card),
            "source": self.source.value if self.source is not None else None,
            "zimo": self.zimo,
            "tianhu": self.tianhu,
            "haidi": self.haidi,
            "groups": win.get("groups"),
            "loose": jsonable(arr.loose) if arr is not None else None,
            "huxi": self.huxi,
            "names": win.get("names", []),
            "fan": win.get("fan", 0),
            "base": win.get("base", 0),
            "points": self.points,
            "payments": list(self.payments),
            "leaver": self.leaver,
        }


class Hand:
    """A hand (一局) of paohuzi for the seats in play, from the deal to the settlement.

    :param rules: the rule set (R8).
    :param seed: seeds the dealer draw (when ``dealer`` is None) and the shuffle (R2); None for a hand
        dealt from ``deck`` alone (a program that shuffles itself), which then needs ``dealer`` too.
    :param dealer: the dealer's seat, or None to draw it from the seed.
    :param deck: a deck in deal order (see :mod:`paohuzi.engine.deck`) instead of the shuffle — for tests.
    :param double_cards: seats holding a 双倍积分卡 (R7.3): a winning holder's gain doubles (losses never do).
    :raises EngineError: for a bad seed, dealer or deck.
    """

    __slots__ = (
        "rules",
        "seed",
        "dealer",
        "sitting_out",
        "seats",
        "table_size",
        "double_cards",
        "events",
        "outcome",
        "_stacked",
        "_deck",
        "_next",
        "_hands",
        "_hsize",
        "_tables",
        "_tsize",
        "_fours",
        "_wei",
        "_peng",
        "_rows",
        "_stock",
        "_spos",
        "_liang",
        "_no_chi",
        "_no_peng",
        "_renpeng",
        "_discarded",
        "_dead",
        "_hcache",
        "_tcache",
        "_info",
        "_phase",
        "_actor",
        "_card",
        "_drawn",
        "_last",
        "_claims",
        "_legal",
        "_decided",
        "_deciding",
        "_actions",
        "_min_huxi",
        "_positioned",
    )

    def __init__(  # noqa: PLR0915 (debt: one assignment per state field, as in from_position)
        self,
        rules: RuleSet,
        seed: int | None = 0,
        dealer: int | None = None,
        *,
        deck: Sequence[Card | int | str] | None = None,
        double_cards: Iterable[int] = (),
    ) -> None:
        if not isinstance(rules, RuleSet):
            raise EngineError(f"rules must be a RuleSet (see paohuzi.rules.find_preset), got {rules!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise EngineError(f"seed must be an int, got {seed!r}")
        n = rules.players_at_table
        if dealer is not None and (isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n):
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
        self._info: list[tuple[int, list[int]] | None] = [None] * n
        self._phase = _OVER
        self._actor = dealer
        self._card: int | None = None  # the card on offer, the forced draw (self_hu) or the 亮张
        self._drawn = False
        self._last = False
        self._claims: list[tuple[int, int]] = []
        self._legal: dict[int, list[Action]] = {}
        self._decided: dict[int, Action] = {}
        self._deciding: tuple[int, ...] = ()
        self._actions: list[tuple[int, str]] = []
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

    def apply(self, seat: int, action: Action | str) -> list[Event]:  # noqa: PLR0912 (debt: file under rework (issue 10 item 1))
        """Play ``action`` (an :class:`Action` or its text) for ``seat``; the engine then runs every forced
        move until a seat must decide again or the hand ends.

        :returns: the events this caused, in order.
        :raises IllegalActionError: if the hand is over, the seat is not deciding, the text does not parse
            or the action is not legal now. The state is then unchanged.
        """
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
        legal = self._legal[seat]
        if action not in legal:
            raise IllegalActionError(seat, action, self._why_not(seat, action))
        start = len(self.events)
        self._actions.append((seat, str(action)))
        phase = self._phase
        if phase == _CLAIM or phase == _LIANG:
            self._decided[seat] = action
            self._deciding = tuple(s for s in self._deciding if s != seat)
            if action is PASS or action.kind is ActionKind.PASS:
                self._emit(Pass(seat, seat))
            idx = self._resolve()
            if idx is not _WAITING:
                if phase == _LIANG:
                    self._close_liang(idx)
                else:
                    self._run(self._close_window(idx))
        elif phase == _DISCARD:
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
        return self.events[start:]

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
        new = object.__new__(Hand)
        for name in (
            "rules", "seed", "dealer", "sitting_out", "seats", "table_size", "double_cards", "outcome",
            "_stacked", "_deck", "_next", "_stock", "_spos", "_liang", "_phase", "_actor", "_card", "_drawn",
            "_last", "_deciding", "_min_huxi", "_positioned",
        ):
            object.__setattr__(new, name, getattr(self, name))
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
        new._info = self._info[:]  # the cached tuples are never changed in place
        new._claims = self._claims[:]
        new._legal = {s: a[:] for s, a in self._legal.items()}
        new._decided = dict(self._decided)
        new._actions = self._actions[:]
        return new

    def record(self) -> dict[str, Any]:
        """The hand, self-contained (``docs/engine.md`` §8): the rules, the seed and RNG version (when the
        deal came from the seed), the dealer, the dealt cards (``dealt``), every action as ``[seat, text]`` (``leave``
        for 逃跑) and, once over, the result. JSON-ready; :func:`replay` plays it again.

        :raises EngineError: for a hand built by :meth:`from_position` (it has no deal to record).
        """
        if self._positioned:
            raise EngineError("a hand built from a position (Hand.from_position) has no deal to record")
        rec: dict[str, Any] = {"format_version": FORMAT_VERSION, "rules": self.rules.to_dict()}
        if not self._stacked and self.seed is not None:
            rec["seed"] = self.seed
            rec["rng_version"] = RNG_VERSION
        rec["dealer"] = self.dealer
        rec["dealt"] = self.dealt()
        if self.double_cards:
            rec["double_cards"] = sorted(self.double_cards)
        rec["actions"] = [[s, a] for s, a in self._actions]
        if self.outcome is not None:
            rec["result"] = self.outcome.to_dict()
        return rec

    def dealt(self) -> dict[str, Any]:
        """The dealt cards (R2), JSON-ready: ``{"hands": [...], "stock": [...]}`` — per seat at the table its
        hand in deal order (the dealer's 21st card is the 亮张; the sitting-out seat's is empty), and the
        stock in draw order. The deck in deal order is the hands of the seats in turn order from the
        dealer, then the stock.

        :raises EngineError: for a hand built by :meth:`from_position`.
        """
        if self._positioned:
            raise EngineError("a hand built from a position (Hand.from_position) has no deal")
        hands: list[list[str]] = [[] for _ in range(self.table_size)]
        pos = 0
        for i, s in enumerate(self.seats):
            size = DEALER_CARDS if i == 0 else HAND_CARDS
            hands[s] = [_TEXT[c] for c in self._deck[pos : pos + size]]
            pos += size
        return {"hands": hands, "stock": [_TEXT[c] for c in self._deck[pos:]]}

    @property
    def actions(self) -> tuple[tuple[int, str], ...]:
        """Every action played so far, as (seat, text)."""
        return tuple(self._actions)

    def hidden(self, seat: int) -> Hidden:
        """What ``seat``'s observation leaves out, as it truly is (referee information): with
        :meth:`observation` it is the whole position (:meth:`from_position`).

        :raises EngineError: for a seat not at the table.
        """
        self._check_seat(seat)
        over = self.outcome is not None
        n = self.table_size
        return Hidden(
            hands=tuple(self._hand_cards(s) for s in range(n)),
            wei=tuple(
                tuple(g.cards[0] for g in self._tables[s] if g.kind is _WEI and s != seat and not over)
                for s in range(n)
            ),
            stock=tuple(_CARDS[c] for c in self._stock[self._spos :]),
            chou=tuple(
                ChouKinds(
                    _sorted_cards(self._no_chi[s]), _sorted_cards(self._no_peng[s]), _sorted_cards(self._renpeng[s])
                )
                for s in range(n)
            ),
            discarded=tuple(_sorted_cards(self._discarded[s]) for s in range(n)),
            decided=tuple(sorted(self._decided.items())),
            drawn=_CARDS[self._card] if self._phase is _SELF and self._card is not None else None,
        )

    @classmethod
    def from_position(  # noqa: C901, PLR0912, PLR0915 (debt: one check and one assignment per state field)
        cls, rules: RuleSet, observation: Observation, hidden: Hidden, *, double_cards: Iterable[int] = ()
    ) -> Hand:
        """A playable hand in the position of ``observation`` (what one seat sees) completed by ``hidden``
        (what it does not): the search bot's sampled worlds, a position set up by hand. From there on it
        plays exactly as the hand the position came from (same legal actions, events and outcome).

        The cards must be conserved (R1: four of each kind among the hands, the tables, the rows, the card
        on offer and the stock) and fit the observation (hand sizes, hidden 偎, stock size). The decision
        pending is worked out again from the position, as the engine would have; when ``hidden`` gives no
        seat the choice the observation shows (a sampled world that contradicts the history), the engine
        plays on by the rules. The hand has no :meth:`record` (there is no deal) and no events before.

        :raises EngineError: naming what does not fit.
        """
        if not isinstance(rules, RuleSet):
            raise EngineError(f"rules must be a RuleSet (see paohuzi.rules.find_preset), got {rules!r}")
        if not isinstance(observation, Observation):
            raise EngineError(f"observation must be an Observation, got {type(observation).__name__}")
        if not isinstance(hidden, Hidden):
            raise EngineError(f"hidden must be a Hidden, got {type(hidden).__name__}")
        obs = observation
        if obs.rules != rules.name:
            raise EngineError(f"the observation is of rule set {obs.rules!r}, not {rules.name!r}")
        if obs.phase is _OVER:
            raise EngineError("the observation is of a hand that is over: there is no position to play from")
        n = rules.players_at_table
        if not (isinstance(obs.dealer, int) and 0 <= obs.dealer < n):
            raise EngineError(f"dealer must be a seat 0–{n - 1}, got {obs.dealer!r}")
        seats = seats_in_play(rules, obs.dealer)
        if tuple(obs.seats) != seats:
            raise EngineError(f"seats {list(obs.seats)} do not follow from dealer {obs.dealer} ({list(seats)})")
        sizes = {
            "observation hand_counts": len(obs.hand_counts),
            "observation tables": len(obs.tables),
            "observation rows": len(obs.rows),
            "hidden.hands": len(hidden.hands),
            "hidden.wei": len(hidden.wei),
        }
        if hidden.chou:
            sizes["hidden.chou"] = len(hidden.chou)
        if hidden.discarded:
            sizes["hidden.discarded"] = len(hidden.discarded)
        for name, size in sizes.items():
            if size != n:
                raise EngineError(f"{name} has {size} entries for a table of {n}")
        doubles = frozenset(double_cards)
        if not all(isinstance(s, int) and 0 <= s < n for s in doubles):
            raise EngineError(f"double_cards must be seats 0–{n - 1}, got {sorted(doubles)!r}")
        seat = obs.seat
        if sorted(hidden.hands[seat]) != list(obs.hand):
            raise EngineError(f"hidden.hands[{seat}] is not seat {seat}'s observed hand")
        new = object.__new__(cls)
        new.rules = rules
        new.seed = 0
        new.dealer = obs.dealer
        new.double_cards = doubles
        new.seats = seats
        new.sitting_out = (obs.dealer + 2) % 4 if rules.four_players else None
        new.table_size = n
        new._stacked = False
        new._deck = ()
        new._positioned = True
        new._next = _next_seats(seats)
        new._hands = [[0] * NUM_KINDS for _ in range(n)]
        new._hsize = [0] * n
        for s in range(n):
            cards = hidden.hands[s]
            if len(cards) != obs.hand_counts[s]:
                raise EngineError(
                    f"seat {s} holds {obs.hand_counts[s]} cards (hand_counts), hidden.hands[{s}] has {len(cards)}"
                )
            for c in cards:
                new._hands[s][c] += 1
            new._hsize[s] = len(cards)
        new._tables = [[] for _ in range(n)]
        new._tsize = [0] * n
        new._fours = [0] * n
        new._wei = [{} for _ in range(n)]
        new._peng = [{} for _ in range(n)]
        new._hcache = [None] * n
        new._tcache = [None] * n
        new._info = [None] * n
        for s in range(n):
            weis = hidden.wei[s]
            if len(weis) != sum(1 for g in obs.tables[s] if g is None):
                raise EngineError(
                    f"seat {s} has {sum(1 for g in obs.tables[s] if g is None)} hidden 偎, "
                    f"hidden.wei[{s}] names {len(weis)}"
                )
            kinds = iter(weis)
            for g in obs.tables[s]:
                new._lay(s, _SAME[_WEI][int(next(kinds))] if g is None else g)
        new._rows = [[(int(e.card), e.discarded) for e in row] for row in obs.rows]
        if len(hidden.stock) != obs.stock:
            raise EngineError(f"the stock has {obs.stock} cards, hidden.stock has {len(hidden.stock)}")
        new._stock = [int(c) for c in hidden.stock]
        new._spos = 0
        new._liang = int(obs.liangzhang)
        row_discards = [{int(e.card) for e in row if e.discarded} for row in obs.rows]
        if hidden.chou:
            new._no_chi = [{int(c) for c in ch.chi} for ch in hidden.chou]
            new._no_peng = [{int(c) for c in ch.peng} for ch in hidden.chou]
            new._renpeng = [{int(c) for c in ch.renpeng} for ch in hidden.chou]
        else:  # R4.7: a kind discarded may never be 吃 or 碰 by its discarder
            new._no_chi = [set(d) for d in row_discards]
            new._no_peng = [set(d) for d in row_discards]
            new._renpeng = [set() for _ in range(n)]
        new._no_chi[seat] = {int(c) for c in obs.chou.chi}
        new._no_peng[seat] = {int(c) for c in obs.chou.peng}
        new._renpeng[seat] = {int(c) for c in obs.chou.renpeng}
        new._discarded = [{int(c) for c in d} for d in hidden.discarded] if hidden.discarded else row_discards
        new._dead = [s in obs.dead for s in range(n)]
        new._phase = _OVER
        new._actor = obs.turn
        new._card = None
        new._drawn = False
        new._last = False
        new._claims = []
        new._legal = {}
        new._decided = {}
        new._deciding = ()
        new._actions = []
        new._min_huxi = rules.min_huxi
        new.events = []
        new.outcome = None
        new._check_conservation(obs.pending.card if obs.pending is not None else None)
        new._resume(obs, hidden)
        return new

    def _check_conservation(self, pending: Card | None) -> None:
        """R1: four copies of each kind among the hands, the tables, the rows, the card on offer, the stock."""
        where = {name: [0] * NUM_KINDS for name in ("hands", "tables", "rows", "on offer", "stock")}
        tables, rows, stock = where["tables"], where["rows"], where["stock"]
        total = [0] * NUM_KINDS
        for h in self._hands:
            total = [a + b for a, b in zip(total, h, strict=True)]
        where["hands"] = total[:]
        for s in range(self.table_size):
            for g in self._tables[s]:
                for card in g.cards:
                    tables[card] += 1
                    total[card] += 1
            for k, _ in self._rows[s]:
                rows[k] += 1
                total[k] += 1
        if pending is not None:
            where["on offer"][pending] += 1
            total[pending] += 1
        for k in self._stock:
            stock[k] += 1
            total[k] += 1
        if total.count(COPIES) == NUM_KINDS:
            return
        wrong = []
        for k in range(NUM_KINDS):
            if total[k] != COPIES:
                parts = ", ".join(f"{name} {counts[k]}" for name, counts in where.items() if counts[k])
                wrong.append(f"{_CARDS[k]} appears {total[k]} times, not {COPIES} ({parts or 'nowhere'})")
        raise EngineError("card conservation (R1): " + "; ".join(wrong))

    def _resume(self, obs: Observation, hidden: Hidden) -> None:
        """Work out the decision pending in a position just set up (see :meth:`from_position`)."""
        phase = obs.phase
        if phase is _CLAIM:
            p = obs.pending
            if p is None:
                raise EngineError("phase claim but no card on offer (pending)")
            if p.from_seat not in self.seats:
                raise EngineError(f"the card on offer comes from seat {p.from_seat}, which does not play")
            self._run(self._open_window(int(p.card), p.from_seat, p.drawn, p.last))
        elif phase is _LIANG:
            if not self._offer_liangzhang():
                self._run(self._after_take(self.dealer))
        elif phase is _SELF:
            if hidden.drawn is None:
                raise EngineError("phase self_hu needs hidden.drawn: the card 提'd or 偎'd (R4.2.3)")
            self._run(self._offer_self_hu(obs.turn, int(hidden.drawn), self.stock_left == 0))
        else:
            if obs.turn not in self.seats:
                raise EngineError(f"turn {obs.turn} is not a seat in play")
            self._run(self._after_take(obs.turn))
        if not hidden.decided:
            return
        if self._phase is not phase or phase not in (_CLAIM, _LIANG):
            raise EngineError(f"hidden.decided given, but no claim window is open ({self._phase.value})")
        for s, action in hidden.decided:
            if s not in self._deciding or action not in self._legal[s]:
                raise EngineError(f"hidden.decided: {action} is not a choice open to seat {s}")
            self._decided[s] = action
            self._deciding = tuple(x for x in self._deciding if x != s)
        if self._resolve() is not _WAITING:
            raise EngineError("hidden.decided would already have closed the claim window (R4.4)")

    def _check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.table_size:
            raise EngineError(f"no such seat {seat!r} (seats are 0–{self.table_size - 1})")

    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may know now (R5): see :class:`~paohuzi.engine.Observation` and, for its
        JSON form (:meth:`~paohuzi.engine.Observation.to_dict`), ``docs/engine.md``.

        :raises EngineError: for a seat not at the table.
        """
        self._check_seat(seat)
        outcome = self.outcome
        over = outcome is not None
        n = self.table_size
        tables = tuple(
            tuple(None if g.kind is _WEI and s != seat and not over else g for g in self._tables[s])
            for s in range(n)
        )
        pending = None
        if self._phase is _CLAIM and self._card is not None:
            pending = Pending(_CARDS[self._card], self._actor, self._drawn, self._last)
        no_chi, no_peng, ren = self._no_chi[seat], self._no_peng[seat], self._renpeng[seat]
        chou = (
            ChouKinds(_sorted_cards(no_chi), _sorted_cards(no_peng), _sorted_cards(ren))
            if no_chi or no_peng or ren
            else NO_CHOU
        )
        return Observation(
            rules=self.rules.name,
            options=_options(self.rules),
            dealer=self.dealer,
            sitting_out=self.sitting_out,
            seats=self.seats,
            liangzhang=_CARDS[self._liang],
            stock=len(self._stock) - self._spos,
            hand_counts=tuple(self._hsize),
            rows=tuple(tuple(row_card(c, d) for c, d in row) for row in self._rows),
            dead=tuple(s for s in self.seats if self._dead[s]),
            phase=self._phase,
            turn=self._actor,
            pending=pending,
            outcome=outcome.to_dict() if outcome is not None else None,
            seat=seat,
            hand=self._hand_cards(seat),
            tables=tables,
            chou=chou,
            deciding=seat in self._deciding,
            legal=tuple(self._legal[seat]) if seat in self._deciding else (),
            hands=tuple(self._hand_cards(s) for s in range(n)) if over else None,
        )

    def referee_view(self) -> dict[str, Any]:
        """The whole state (R5 does not apply): every hand and table, the stock in order, 臭 kinds,
        the decisions pending and made. JSON-ready."""
        view = self._public()
        view["hands"] = [[_TEXT[c] for c in self._hand_cards(s)] for s in range(self.table_size)]
        view["tables"] = [[jsonable(g) for g in self._tables[s]] for s in range(self.table_size)]
        view["stock_cards"] = [_TEXT[c] for c in self._stock[self._spos :]]
        view["chou"] = [
            {
                "chi": [_TEXT[k] for k in sorted(self._no_chi[s])],
                "peng": [_TEXT[k] for k in sorted(self._no_peng[s])],
                "renpeng": [_TEXT[k] for k in sorted(self._renpeng[s])],
                "discarded": [_TEXT[k] for k in sorted(self._discarded[s])],
            }
            for s in range(self.table_size)
        ]
        view["deciding"] = list(self._deciding)
        view["legal"] = {str(s): [str(a) for a in self._legal[s]] for s in self._deciding}
        view["decided"] = {str(s): str(a) for s, a in self._decided.items()}
        view["seed"] = self.seed
        view["actions"] = [[s, a] for s, a in self._actions]
        return view

    # ------------------------------------------------------------------------------------------------
    # State helpers
    # ------------------------------------------------------------------------------------------------

    def _public(self) -> dict[str, Any]:
        pending = None
        if self._phase is _CLAIM and self._card is not None:
            pending = {"card": _TEXT[self._card], "from": self._actor, "drawn": self._drawn, "last": self._last}
        return {
            "rules": self.rules.name,
            "options": _options(self.rules),
            "dealer": self.dealer,
            "sitting_out": self.sitting_out,
            "seats": list(self.seats),
            "liangzhang": _TEXT[self._liang],
            "stock": len(self._stock) - self._spos,
            "hand_counts": self._hsize[:],
            "rows": [[{"card": _TEXT[c], "discarded": d} for c, d in row] for row in self._rows],
            "dead": [s for s in self.seats if self._dead[s]],
            "phase": self._phase.value,
            "turn": self._actor,
            "pending": pending,
            "outcome": self.outcome.to_dict() if self.outcome is not None else None,
        }

    def _emit(self, event: Event) -> None:
        self.events.append(event)

    def _hand_cards(self, s: int) -> tuple[Card, ...]:
        cards = self._hcache[s]
        if cards is None:
            h = self._hands[s]
            out: list[Card] = []
            for k in range(NUM_KINDS):
                n = h[k]
                if n:
                    out += (_CARDS[k],) * n
            cards = self._hcache[s] = tuple(out)
        return cards

    def _table_groups(self, s: int) -> tuple[Group, ...]:
        groups = self._tcache[s]
        if groups is None:
            groups = self._tcache[s] = tuple(self._tables[s])
        return groups

    def _take(self, s: int, card: int, n: int = 1) -> None:
        self._hands[s][card] -= n
        self._hsize[s] -= n
        self._hcache[s] = None
        self._info[s] = None

    def _lay(self, s: int, group: Group) -> None:
        table = self._tables[s]
        kind = group.kind
        if kind is _WEI or kind is _CHOUWEI:
            self._wei[s][group.cards[0]] = len(table)
        elif kind is _PENG_G:
            self._peng[s][group.cards[0]] = len(table)
        elif kind is _TI or kind is _PAO:
            self._fours[s] += 1
        table.append(group)
        self._tsize[s] += kind.size
        self._tcache[s] = None
        self._info[s] = None

    def _upgrade(self, s: int, index: int, kind: GroupKind) -> None:
        """A 偎/臭偎/碰 on the table takes the fourth card: 提 or 跑."""
        old = self._tables[s][index]
        card = old.cards[0]
        self._tables[s][index] = _SAME[kind][card]
        self._wei[s].pop(card, None)
        self._peng[s].pop(card, None)
        self._tsize[s] += 1
        self._fours[s] += 1
        self._tcache[s] = None
        self._info[s] = None

    def _owes(self, s: int, taking: int = 0) -> bool:
        """R4.6: discard exactly when hand + table cards > 20 + max(0, n − 1), n = 提 + 跑 on the table;
        ``taking`` counts a card about to be taken (碰/吃, which add no four-card group)."""
        return self._hsize[s] + self._tsize[s] + taking > HAND_CARDS + max(0, self._fours[s] - 1)

    def _discardable(self, s: int) -> list[int]:
        """Kinds ``s`` may discard: any in hand except a 坎 (R3, R4.6)."""
        h = self._hands[s]
        return [k for k in range(NUM_KINDS) if 0 < h[k] < 3]

    def _loose(self, s: int) -> int:
        """Hand cards outside 坎."""
        return sum(n for n in self._hands[s] if n < 3)

    def _can_hu(self, s: int, card: int | None, source: Source) -> bool:
        """R6.1 for seat ``s`` with ``card`` (None: the cards as they stand). Dead seats never 胡 (R4.6)."""
        if self._dead[s]:
            return False
        if not self._maybe_complete(s, card):
            return False
        return analysis.is_complete(
            self._hand_cards(s), self._table_groups(s), None if card is None else _CARDS[card], source,
            min_huxi=self._min_huxi,
        )

    def _seat_info(self, s: int) -> tuple[int, list[int]]:
        """(胡息 of the table groups and the 坎, the loose card counts) of seat ``s``, cached."""
        info = self._info[s]
        if info is None:
            h = self._hands[s]
            fixed = 0
            for g in self._tables[s]:
                fixed += g.huxi
            loose = [0] * NUM_KINDS
            for k in range(NUM_KINDS):
                m = h[k]
                if m >= 3:
                    fixed += _KAN_HUXI[k]
                else:
                    loose[k] = m
            info = self._info[s] = (fixed, loose)
        return info

    def _maybe_complete(self, s: int, card: int | None) -> bool:
        """A cheap necessary condition for R6.1, so that most offered cards skip the full analysis:

        - the 胡息 can reach the minimum: table groups, 坎, as many 一二三/二七十 as the loose cards (and the
          card) could make, and the most the card can add to a group it matches (R3);
        - every loose hand card held once (of another kind than the card) has two cards to form a 句 or
          绞 with, among the loose cards and the card."""
        fixed, loose = self._seat_info(s)
        bound = fixed
        if card is not None:
            m = self._hands[s][card]
            if m == 3 or card in self._wei[s] or card in self._peng[s]:
                bound += 6  # 坎/偎 → 提 or 跑, 碰 → 跑: at most +6
            elif m == 2:
                bound += _WEI_HUXI[card]  # a pair → 偎 or 碰
            loose = loose[:]
            loose[card] += 1
        for base, value in ((0, 3), (10, 6)):
            two = loose[base + 1]
            bound += value * (min(loose[base], two, loose[base + 2]) + min(two, loose[base + 6], loose[base + 9]))
        if bound < self._min_huxi:
            return False
        for k in range(NUM_KINDS):
            if loose[k] != 1 or k == card:
                continue
            for a, b in _PARTNERS[k]:
                # k is held once, so a partner pair never includes k itself (c c C needs two k).
                if a != k and b != k and loose[a] and loose[b] and (a != b or loose[a] >= 2):
                    break
            else:
                return False
        return True

    def _clear_decision(self) -> None:
        self._phase = _OVER
        self._legal = {}
        self._deciding = ()
        self._decided = {}
        self._claims = []

    def _ask(self, phase: Phase, legal: dict[int, list[Action]]) -> None:
        self._phase = phase
        self._legal = legal
        self._decided = {}
        self._deciding = tuple(s for s in self.seats if s in legal)

    # ------------------------------------------------------------------------------------------------
    # The flow. Each step returns the seat that draws next, or None when a seat must decide or the hand
    # is over; _run keeps drawing until then.
    # ------------------------------------------------------------------------------------------------

    def _start(self) -> None:
        """R2 deal, R4.1 opening 提, R6.4 天胡, then the dealer's first discard or the 下家's draw."""
        deck = self._deck
        pos = 0
        hands: list[tuple[Card, ...]] = [() for _ in range(self.table_size)]
        for i, s in enumerate(self.seats):
            n = DEALER_CARDS if i == 0 else HAND_CARDS
            for c in deck[pos : pos + n]:
                self._hands[s][c] += 1
            self._hsize[s] = n
            hands[s] = tuple(sorted(_CARDS[c] for c in deck[pos : pos + n]))
            pos += n
        self._liang = int(deck[DEALER_CARDS - 1])
        self._stock = [int(c) for c in deck[pos:]]
        self._spos = 0
        self._emit(
            Deal(None, self.dealer, self.sitting_out, self.seats, tuple(hands), _CARDS[self._liang], len(self._stock))
        )
        # R4.1.1: every four of a kind in a dealt hand goes to the table as 提.
        for s in self.seats:
            h = self._hands[s]
            for k in range(NUM_KINDS):
                if h[k] == 4:
                    self._take(s, k, 4)
                    self._lay(s, _SAME[_TI][k])
                    self._emit(Ti(None, s, _CARDS[k], "dealt"))
        # R6.4: dealt 天胡 — the dealer first, then the 下家, then the 上家.
        for s in self.seats:
            if analysis.dealt_tianhu(self._hand_cards(s), self._table_groups(s)):
                self._win(s, None, WinHow.DEALT, Source.NONE)
                return
        if self._offer_liangzhang():
            return
        self._run(self._after_take(self.dealer))

    def _offer_liangzhang(self) -> bool:
        """R6.4 option: 天胡 on the 亮张, offered like any 胡, the dealer first. True if a seat is asked
        (or, with 有胡必胡, has won)."""
        if not self.rules.tianhu_on_liangzhang:
            return False
        claims = []
        for s in self.seats:
            if s == self.dealer:
                ok = self._can_hu(s, None, Source.NONE)
            else:
                ok = self._can_hu(s, self._liang, Source.OTHER)
            if ok:
                claims.append((_C_HU, s))
        if not claims:
            return False
        self._claims = claims
        self._card = self._liang
        if self.rules.must_hu:  # R8.1 有胡必胡: the dealer, else the 下家, else the 上家 wins at once
            self._close_liang(0)
            return True
        self._ask(_LIANG, {s: [HU, PASS] for _, s in claims})
        return True

    def _run(self, nxt: int | None) -> None:
        while nxt is not None:
            nxt = self._draw(nxt)

    def _draw(self, s: int) -> int | None:
        """R4.2: ``s`` draws; forced 提/偎, else the card is shown and offered."""
        if self._spos >= len(self._stock):
            self._draw_game()
            return None
        c = self._stock[self._spos]
        self._spos += 1
        last = self._spos == len(self._stock)
        self._actor = s
        self._emit(Draw(None, s, _CARDS[c], len(self._stock) - self._spos))
        h = self._hands[s]
        if h[c] == 3:  # R4.2.1: a 坎 and the drawn card → 提
            self._take(s, c, 3)
            self._lay(s, _SAME[_TI][c])
            self._emit(Ti(None, s, _CARDS[c], "kan"))
        elif c in self._wei[s]:  # R4.2.1: a 偎/臭偎 on the table → 提
            self._upgrade(s, self._wei[s][c], _TI)
            self._emit(Ti(None, s, _CARDS[c], "wei"))
        elif h[c] == 2:  # R4.2.2: a pair → 偎, or 臭偎 after 忍碰
            chou = c in self._renpeng[s]
            self._take(s, c, 2)
            self._lay(s, _SAME[_CHOUWEI if chou else _WEI][c])
            self._emit(Wei(None, s, _CARDS[c], chou))
        else:  # R4.2.4: shown and offered
            self._emit(Show(None, s, _CARDS[c], last))
            return self._open_window(c, s, True, last)
        return self._offer_self_hu(s, c, last)

    def _offer_self_hu(self, s: int, c: int, last: bool) -> int | None:
        """R4.2.3: after a forced 提/偎 of the drawn card ``c`` the drawer may 胡 with the cards as they
        now stand; else it goes on as after any take."""
        self._card = c
        self._last = last
        if not self._dead[s] and self._can_hu(s, None, Source.NONE):
            if self.rules.must_hu:  # R8.1 有胡必胡: made at once (before any discard, so never 死手)
                self._win(s, None, WinHow.FORCED, Source.NONE, won=c, forced=True)
                return None
            legal = [HU]
            discards = self._discardable(s) if self._owes(s) else []
            if discards:
                legal += [Action.discard(k) for k in discards]
            else:
                legal.append(PASS)
            self._ask(_SELF, {s: legal})
            return None
        return self._after_take(s)

    def _after_take(self, s: int) -> int | None:
        """R4.6 after ``s`` took a card (or at the opening): discard if owed, else the 下家 draws."""
        self._actor = s
        if self._dead[s] or not self._owes(s):
            return self._next[s]
        kinds = self._discardable(s)
        if not kinds:  # R4.6 decision: owes a discard, holds only 坎 cards → 死手
            self._dead[s] = True
            self._emit(Dead(None, s))
            return self._next[s]
        if len(kinds) == 1:  # no real choice: the engine plays it
            return self._discard(s, kinds[0], True)
        self._ask(_DISCARD, {s: [Action.discard(k) for k in kinds]})
        return None

    def _discard(self, s: int, c: int, auto: bool) -> int | None:
        self._take(s, c)
        self._discarded[s].add(c)  # R4.7: never 吃 or 碰 a kind one has discarded
        self._no_chi[s].add(c)
        self._no_peng[s].add(c)
        self._actor = s
        self._emit(Discard(None, s, _CARDS[c], auto))
        return self._open_window(c, s, False, False)

    def _open_window(self, c: int, src: int, drawn: bool, last: bool) -> int | None:  # noqa: C901, PLR0912 (debt: one branch per R4 claim; file under rework (issue 10 item 1))
        """A shown or discarded card is offered (R4.2–R4.4): list every claim in priority order and ask
        the seats with a real choice; resolve at once when nobody has one."""
        self._card, self._actor, self._drawn, self._last = c, src, drawn, last
        nxt = self._next
        hands = self._hands
        claims: list[tuple[int, int]] = []
        legal: dict[int, list[Action]] = {}
        if drawn or self.rules.win_on_discard:
            # 胡: in turn order from the drawer (R4.4); a discard is never won by its discarder.
            s1 = nxt[src]
            order = (src, s1, nxt[s1]) if drawn else (s1, nxt[s1])
            for s in order:
                if self._dead[s]:
                    continue
                source = Source.SELF if s == src else (Source.OTHER if drawn else Source.DISCARD)
                if self._can_hu(s, c, source):
                    claims.append((_C_HU, s))
                    legal[s] = [HU]
            if claims and self.rules.must_hu:
                # R8.1 有胡必胡: the first seat in R4.4 order wins at once; nobody is asked, nothing else happens.
                self._claims = claims
                return self._close_window(0)
        pao: int | None = None
        for s in self.seats:
            if s != src and (hands[s][c] == 3 or c in self._wei[s]):
                pao = s
                break
            if drawn and c in self._peng[s]:
                pao = s
                break
        if pao is not None:
            claims.append((_C_PAO, pao))  # 跑 is forced and beats 碰/吃: those seats are not asked
        else:
            for s in self.seats:
                if s != src and hands[s][c] == 2 and self._peng_ok(s, c):
                    claims.append((_C_PENG, s))
                    legal.setdefault(s, []).append(PENG)
                    break
            for s in (src, nxt[src]) if drawn else (nxt[src],):
                if not self._dead[s] and c not in self._no_chi[s]:
                    ways = self._chi_actions(s, c)
                    if ways:
                        claims.append((_C_CHI, s))
                        legal.setdefault(s, []).extend(ways)
        self._claims = claims
        if not legal:
            return self._close_window(len(claims) - 1 if pao is not None else None)
        for acts in legal.values():
            acts.append(PASS)
        self._ask(_CLAIM, legal)
        return None

    def _peng_ok(self, s: int, c: int) -> bool:
        """碰 (R4.3) for a seat holding a pair: not 臭 (R4.7), not dead, and a discard left if one is owed (R4.6)."""
        if self._dead[s] or c in self._no_peng[s]:
            return False
        owes = self._owes(s, 1)
        return not owes or self._loose(s) > 2

    def _chi_actions(self, s: int, c: int) -> list[Action]:
        """Every distinct 吃 of ``c`` by ``s`` with its required 比 (R4.3, R4.5, R4.6)."""
        avail = [n if n < 3 else 0 for n in self._hands[s]]  # 坎 cards may not be used
        total = sum(avail)
        if total < 2:
            return []
        owes = self._owes(s, 1)
        out: list[Action] = []
        seen: set[tuple[int, int, tuple[tuple[int, ...], ...]]] = set()
        for a, b in _PARTNERS[c]:
            if a == b:
                if avail[a] < 2:
                    continue
            elif not (avail[a] and avail[b]):
                continue
            avail[a] -= 1
            avail[b] -= 1
            for bi in _bi_options(avail, c):
                if owes and total - 2 - 3 * len(bi) <= 0:
                    continue  # R4.6: 吃 that leaves no legal discard is not legal
                key = (a, b, bi)
                if key not in seen:
                    seen.add(key)
                    act = _CHI_ACTIONS.get(key)
                    if act is None:
                        act = _CHI_ACTIONS[key] = Action(
                            ActionKind.CHI, None, (_CARDS[a], _CARDS[b]), tuple(tuple(_CARDS[x] for x in g) for g in bi)
                        )
                    out.append(act)
            avail[a] += 1
            avail[b] += 1
        return out

    def _resolve(self) -> int | None | _Waiting:
        """The index of the winning claim (R4.4), None if nobody takes the card, ``_WAITING`` while a seat
        with priority has not answered."""
        decided = self._decided
        for i, (t, s) in enumerate(self._claims):
            if t == _C_PAO:
                return i
            d = decided.get(s)
            if d is None:
                return _WAITING
            k = d.kind
            if (
                (t == _C_HU and k is ActionKind.HU)
                or (t == _C_PENG and k is ActionKind.PENG)
                or (t == _C_CHI and k is ActionKind.CHI)
            ):
                return i
        return None

    def _close_window(self, idx: int | None) -> int | None:  # noqa: PLR0912, PLR0915 (debt: one R4.4–R4.7 resolution)
        claims, decided = self._claims, self._decided
        c, src, drawn = self._card, self._actor, self._drawn
        assert c is not None  # a window is open on a card
        winner = claims[idx][1] if idx is not None else None
        # R4.7: a declined 吃/碰 makes the kind 臭 — unless a claim with priority took the card. A 碰 answered
        # with 吃 (or 过) is declined (忍碰) whatever becomes of that 吃 — also when the seat's 吃 wins or
        # loses to the drawer's 吃: both rank below the 碰 (R4.7 decision, docs/decisions.md).
        marks: dict[int, list[bool]] = {}
        for t, s in claims[: idx if idx is not None else len(claims)]:
            if t == _C_HU or (s == winner and t != _C_PENG):
                continue
            m = marks.setdefault(s, [False, False, False])
            if t == _C_CHI:
                self._no_chi[s].add(c)
                m[0] = True
            else:
                self._renpeng[s].add(c)
                m[2] = True
            if self.rules.chou_blocks_peng:
                self._no_peng[s].add(c)
                m[1] = True
        for s, (chi, peng, ren) in marks.items():
            self._emit(Chou(s, s, _CARDS[c], chi, peng, ren))
        self._clear_decision()
        self._decided = decided  # kept for the 吃 below
        if idx is None:
            self._rows[src].append((c, not drawn))
            self._emit(Unclaimed(None, src, _CARDS[c]))
            self._card = None
            self._decided = {}
            return self._next[src]
        t, s = claims[idx]
        if t == _C_HU:
            if drawn:
                source, how = (Source.SELF, WinHow.SELF) if s == src else (Source.OTHER, WinHow.OTHER)
            else:
                source, how = Source.DISCARD, WinHow.DISCARD
            self._win(s, c, how, source, forced=self.rules.must_hu)
            return None
        card = _CARDS[c]
        if t == _C_PAO:
            h = self._hands[s]
            if h[c] == 3:
                self._take(s, c, 3)
                self._lay(s, _SAME[_PAO][c])
                origin = "kan"
            elif c in self._wei[s]:
                self._upgrade(s, self._wei[s][c], _PAO)
                origin = "wei"
            else:
                self._upgrade(s, self._peng[s][c], _PAO)
                origin = "peng"
            self._emit(Pao(None, s, card, origin, src))
        elif t == _C_PENG:
            self._take(s, c, 2)
            self._lay(s, _SAME[_PENG_G][c])
            self._emit(Peng(None, s, card, src))
        else:
            action = decided[s]
            a, b = int(action.cards[0]), int(action.cards[1])
            self._take(s, a)
            self._take(s, b)
            group = _chi_group((c, a, b))
            self._lay(s, group)
            bis = []
            for g in action.bi:
                for x in g:
                    self._take(s, int(x))
                bg = _chi_group(tuple(int(x) for x in g))
                self._lay(s, bg)
                bis.append(bg)
            # The eaten card itself came from outside the hand: one of the bi cards is c taken from
            # the hand, the card eaten sits in ``group``.
            self._emit(Chi(None, s, card, group, tuple(bis), src))
        self._decided = {}
        self._card = None
        return self._after_take(s)

    def _close_liang(self, idx: int | None) -> None:
        s = self._claims[idx][1] if idx is not None else None
        self._clear_decision()
        if s is not None:
            forced = self.rules.must_hu
            if s == self.dealer:
                self._win(s, None, WinHow.LIANGZHANG, Source.NONE, won=self._liang, forced=forced)
            else:
                self._win(s, self._liang, WinHow.LIANGZHANG, Source.OTHER, forced=forced)
            return
        self._card = None
        self._run(self._after_take(self.dealer))

    # ------------------------------------------------------------------------------------------------
    # Endings
    # ------------------------------------------------------------------------------------------------

    def _reveal(self) -> tuple[tuple[tuple[Card, ...], ...], tuple[tuple[Group, ...], ...]]:
        n = self.table_size
        return tuple(self._hand_cards(s) for s in range(n)), tuple(self._table_groups(s) for s in range(n))

    def _finish(self, outcome: Outcome) -> None:
        self._clear_decision()
        self.outcome = outcome
        self._emit(Settlement(None, outcome.payments))

    def _draw_game(self) -> None:
        """荒庄 (R4.2, R7.3): nobody pays."""
        self._emit(DrawGame(None, *self._reveal()))
        n = self.table_size
        self._finish(Outcome(OutcomeKind.DRAW, None, None, None, False, False, False, None, None, 0, 0, (0,) * n))

    def _partial_huxi(self, s: int) -> int:
        """R7.3: the 胡息 of ``s``'s table groups plus the best partial arrangement of its hand (R6.4)."""
        return sum(g.huxi for g in self._tables[s]) + analysis.partial_arrangement(self._hand_cards(s)).huxi

    def _win(
        self, s: int, card: int | None, how: WinHow, source: Source, *, won: int | None = None, forced: bool = False
    ) -> None:
        """胡 by ``s`` (R6): the best arrangement and score (R6.2, R7), the payments (R7.3).

        ``card`` is the card won as the analysis sees it (None: the cards as they stand); ``won`` the card
        reported as won when that differs (the drawn card of a forced 提/偎, the dealer's 亮张); ``forced``:
        the engine made the 胡 without asking (a dealt 天胡, or R8.1 有胡必胡).
        """
        hand, table = self._hand_cards(s), self._table_groups(s)
        card_obj = None if card is None else _CARDS[card]
        last = self._last and how in (WinHow.SELF, WinHow.OTHER, WinHow.FORCED)  # 海底 (R6.3): the stock's last card
        tianhu = how in (WinHow.DEALT, WinHow.LIANGZHANG)
        if how is WinHow.DEALT:
            win = scoring_bridge.dealt_tianhu(hand, table, self.rules)
        elif how is WinHow.LIANGZHANG:
            win = scoring_bridge.liangzhang_tianhu(hand, table, card_obj, source, self.rules)
        else:
            zimo = how in (WinHow.SELF, WinHow.FORCED)  # R6.3: a forced 提/偎 completion counts as 自摸
            win = scoring_bridge.evaluate(hand, table, card_obj, source, self.rules, last_card=last, zimo=zimo)
        # R8.1 放炮包赔: with win_on_discard, the discarder of the card won pays the whole hand.
        payer = self._actor if how is WinHow.DISCARD and self.rules.discarder_pays else None
        payments = scoring_bridge.settle(
            s, win.points, self.seats, self.rules.stake, self.double_cards, self.table_size, payer
        )
        shown = _CARDS[won] if won is not None else card_obj
        score = win.score
        arrangement = win.arrangement
        self._emit(
            Hu(
                None, s, shown, how.value, score.zimo, tianhu, last, arrangement.groups, arrangement.loose, win.huxi,
                scoring_bridge.names(score), score.fan, score.base, win.points, *self._reveal(),
                forced,
            )
        )
        self._finish(
            Outcome(
                OutcomeKind.HU, s, shown, how, score.zimo, tianhu, last, arrangement, score, win.huxi, win.points,
                payments,
            )
        )

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


def _next_seats(seats: tuple[int, ...]) -> dict[int, int]:
    """下家 of each seat in play (the seat sitting out has none)."""
    return {s: seats[(i + 1) % len(seats)] for i, s in enumerate(seats)}


def _sorted_cards(kinds: Iterable[int]) -> tuple[Card, ...]:
    return tuple(_CARDS[k] for k in sorted(kinds))


_OPTIONS: dict[RuleSet, dict[str, Any]] = {}


def _options(rules: RuleSet) -> dict[str, Any]:
    """Every option of the rule set but its name (R8.1: every seat sees the house options), a fresh dict."""
    found = _OPTIONS.get(rules)
    if found is None:
        found = _OPTIONS[rules] = {k: v for k, v in rules.to_dict().items() if k not in ("name", "title")}
    return dict(found)


def _bi_options(avail: list[int], c: int) -> list[tuple[tuple[int, ...], ...]]:
    """Every way to lay down the copies of ``c`` left in hand (``avail``) in 句/绞 with hand cards (比,
    R4.5), each as a sorted tuple of groups (sorted card tuples); [()] when none is left."""
    r = avail[c]
    if r == 0:
        return [()]
    out: set[tuple[tuple[int, ...], ...]] = set()
    avail[c] -= 1
    for a, b in _PARTNERS[c]:
        if a == b:
            if avail[a] < 2:
                continue
        elif not (avail[a] and avail[b]):
            continue
        avail[a] -= 1
        avail[b] -= 1
        g = tuple(sorted((c, a, b)))
        if avail[c] == 0:
            out.add((g,))
        else:  # one more copy of c: a second 比 group
            avail[c] -= 1
            for a2, b2 in _PARTNERS[c]:
                if a2 == b2:
                    if avail[a2] < 2:
                        continue
                elif not (avail[a2] and avail[b2]):
                    continue
                out.add(tuple(sorted((g, tuple(sorted((c, a2, b2)))))))
            avail[c] += 1
        avail[a] += 1
        avail[b] += 1
    avail[c] += 1
    return sorted(out)
