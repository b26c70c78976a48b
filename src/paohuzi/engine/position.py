"""A hand's position in and out: the observation (R5), the referee's view, the record, a position set up
again (:meth:`~paohuzi.engine.Hand.from_position`, R1 conservation)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Self

from paohuzi._compiled import mypyc_attr
from paohuzi.cards import COPIES, NUM_KINDS, Card
from paohuzi.engine.claims import _WAITING
from paohuzi.engine.deck import DEALER_CARDS, HAND_CARDS, RNG_VERSION, seats_in_play
from paohuzi.engine.events import CARD_TEXT as _TEXT
from paohuzi.engine.events import jsonable
from paohuzi.engine.observation import NO_CHOU, ChouKinds, Hidden, Observation, Pending, row_card
from paohuzi.engine.state import _CARDS, _CLAIM, _LIANG, _OVER, _SAME, _SELF, _WEI, EngineError, _next_seats
from paohuzi.engine.turns import TurnsMixin
from paohuzi.groups import Group
from paohuzi.rules import RuleSet

#: Version of :meth:`Hand.record`'s format (``docs/engine.md`` §8, ``docs/record.schema.json``). Version 2
#: added the dealt cards (``deal``) and the result; :func:`paohuzi.engine.replay` still reads version 1.
FORMAT_VERSION = 2


@mypyc_attr(allow_interpreted_subclasses=True)  # see paohuzi/_compiled.py
class PositionMixin(TurnsMixin):
    """What a hand shows (observation, hidden part, referee view, record) and how one is set up from that."""

    __slots__ = ()

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
        rec["actions"] = [[s, a] for s, a in self._action_texts()]
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
        return tuple(self._action_texts())

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
        cls,
        rules: RuleSet | object,
        observation: Observation | object,
        hidden: Hidden | object,
        *,
        double_cards: Iterable[int] = (),
    ) -> Self:
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
        new: Self = cls.__new__(cls)  # no __init__: every field is set below
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
        new._tview = [None] * n
        new._rview = [()] * n
        new._cview = [(0, NO_CHOU)] * n
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
            self._run(self._offer_self_hu(obs.turn, int(hidden.drawn), self._spos == len(self._stock)))
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

    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may know now (R5): see :class:`~paohuzi.engine.Observation` and, for its
        JSON form (:meth:`~paohuzi.engine.Observation.to_dict`), ``docs/engine.md``.

        :raises EngineError: for a seat not at the table.
        """
        n = self.table_size
        if type(seat) is not int or not 0 <= seat < n:
            self._check_seat(seat)
        outcome = self.outcome
        if outcome is None:
            tables = tuple([self._table_groups(s) if s == seat else self._table_view(s) for s in range(n)])
            hands = None
        else:  # R5: everything is shown once the hand is over
            tables = tuple([self._table_groups(s) for s in range(n)])
            hands = tuple([self._hand_cards(s) for s in range(n)])
        pending = None
        if self._phase is _CLAIM and self._card is not None:
            key = (self._card, self._actor, self._drawn, self._last)
            pending = _PENDING.get(key)
            if pending is None:
                pending = _PENDING[key] = Pending(_CARDS[self._card], self._actor, self._drawn, self._last)
        rview = self._rview
        for s, row in enumerate(self._rows):
            if len(row) != len(rview[s]):
                rview[s] = tuple([row_card(c, d) for c, d in row])
        dead = self._dead
        deciding = seat in self._deciding
        return Observation(
            self.rules.name,
            _options(self.rules),
            self.dealer,
            self.sitting_out,
            self.seats,
            _CARDS[self._liang],
            len(self._stock) - self._spos,
            tuple(self._hsize),
            tuple(rview),
            tuple([s for s in self.seats if dead[s]]) if True in dead else (),
            self._phase,
            self._actor,
            pending,
            outcome.to_dict() if outcome is not None else None,
            seat,
            self._hand_cards(seat),
            tables,
            self._chou_view(seat),
            deciding,
            tuple(self._legal[seat]) if deciding else (),
            hands,
        )

    def _table_view(self, s: int) -> tuple[Group | None, ...]:
        """``s``'s table as the other seats see it while the hand is on: a 偎's kind hidden (R5)."""
        view = self._tview[s]
        if view is None:
            view = self._tview[s] = tuple([None if g.kind is _WEI else g for g in self._tables[s]])
        return view

    def _chou_view(self, s: int) -> ChouKinds:
        """``s``'s 臭 kinds (R4.7), sorted."""
        no_chi, no_peng, ren = self._no_chi[s], self._no_peng[s], self._renpeng[s]
        key = len(no_chi) << 12 | len(no_peng) << 6 | len(ren)  # the sets only grow
        known, chou = self._cview[s]
        if known != key:
            # Rebuild only the sets that grew (a discard adds its kind to two of them).
            chi = chou.chi if len(chou.chi) == len(no_chi) else _sorted_cards(no_chi)
            peng = chou.peng if len(chou.peng) == len(no_peng) else _sorted_cards(no_peng)
            renpeng = chou.renpeng if len(chou.renpeng) == len(ren) else _sorted_cards(ren)
            chou = ChouKinds(chi, peng, renpeng) if key else NO_CHOU
            self._cview[s] = (key, chou)
        return chou

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
        view["actions"] = [[s, a] for s, a in self._action_texts()]
        return view


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


def _sorted_cards(kinds: Iterable[int]) -> tuple[Card, ...]:
    return tuple(_CARDS[k] for k in sorted(kinds))


# By id(rules) -> (rules, options): a RuleSet's hash is a Python-level call over every field, and the entry
# holds the rule set, so its id is not reused while it is cached.
_OPTIONS: dict[int, tuple[RuleSet, dict[str, Any]]] = {}
# The card on offer as observed, by (card, from, drawn, last): immutable, shared.
_PENDING: dict[tuple[int, int, bool, bool], Pending] = {}


def _options(rules: RuleSet) -> dict[str, Any]:
    """Every option of the rule set but its name (R8.1: every seat sees the house options), a fresh dict."""
    hit = _OPTIONS.get(id(rules))
    if hit is None or hit[0] is not rules:
        if len(_OPTIONS) >= 10_000:
            _OPTIONS.clear()
        hit = _OPTIONS[id(rules)] = (rules, {k: v for k, v in rules.to_dict().items() if k not in ("name", "title")})
    return dict(hit[1])
