"""What one seat may know (R5), typed: :class:`Observation`, and what it may not (:class:`Hidden`).

:meth:`paohuzi.engine.Hand.observation` returns an :class:`Observation`; :meth:`Observation.to_dict` is its
JSON form (the server's ``view``, the environment's raw observation, documented in ``docs/engine.md``) and
:meth:`Observation.from_dict` reads that form back. :meth:`Observation.unseen` counts, per card kind, the
copies the seat has not seen — the one place that inference is made.

A :class:`Hidden` is the rest of a position: the other hands, the kinds of the 偎 the seat cannot see, the
stock in order and the other seats' 臭 kinds. An observation plus a hidden part is a whole position, which
:meth:`paohuzi.engine.Hand.from_position` turns back into a playable hand (the search bot's sampled worlds).

>>> from paohuzi.engine import Hand
>>> from paohuzi.rules import find_preset
>>> hand = Hand(find_preset("qq"), seed=7)
>>> obs = hand.observation(1)
>>> obs.phase, obs.deciding, len(obs.hand), Observation.from_dict(obs.to_dict()) == obs
(<Phase.DISCARD: 'discard'>, True, 21, True)
>>> sum(obs.unseen()) + len(obs.hand) + 1  # the 亮张 is in the dealer's hand; nothing else is visible yet
81
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from paohuzi._compiled import reduce_frozen
from paohuzi.cards import COPIES, NUM_KINDS, Card, PaohuziError
from paohuzi.engine.actions import Action
from paohuzi.engine.events import CARD_TEXT
from paohuzi.groups import Group, GroupKind

__all__ = [
    "Phase", "OutcomeKind", "WinHow", "RowCard", "Pending", "ChouKinds", "Observation", "Hidden", "ObservationError",
]

_CARD = {t: Card(i) for i, t in enumerate(CARD_TEXT)}
# Copies seen (a kind is seen at most 80 times) -> copies unseen, never below 0.
_UNSEEN = bytes(max(0, COPIES - seen) for seen in range(256))
_GROUP_KINDS = {k.value: k for k in GroupKind}


class ObservationError(PaohuziError):
    """An observation's JSON form that cannot be read (a missing key, a bad card or group)."""


class Phase(StrEnum):
    """What is being decided (the observation's ``phase``; the JSON form is the value)."""

    OVER = "over"
    DISCARD = "discard"  # the seat whose turn it is owes a discard (R4.6)
    CLAIM = "claim"  # a card is on offer (R4.2–R4.4)
    SELF_HU = "self_hu"  # 胡 after a forced 提/偎 (R4.2.3)
    LIANGZHANG = "liangzhang"  # 天胡 on the 亮张 (R6.4 option)


class OutcomeKind(StrEnum):
    """How a hand ended (``Outcome.kind``; the JSON form is the value)."""

    HU = "hu"  # a win (R6)
    DRAW = "draw"  # 荒庄: the stock ran out (R4.2)
    ESCAPE = "escape"  # 逃跑: a seat left (R7.3)


class WinHow(StrEnum):
    """How the winning card came (``Outcome.source``, the ``hu`` event's ``source``)."""

    SELF = "self"  # 自摸 of a shown draw
    FORCED = "forced"  # 自摸 after a forced 提/偎 (R4.2.3)
    OTHER = "other"  # another seat's draw
    DISCARD = "discard"  # a discard (win_on_discard)
    DEALT = "dealt"  # dealt 天胡 (R6.4)
    LIANGZHANG = "liangzhang"  # 天胡 on the 亮张 (R6.4 option)


@dataclass(frozen=True, slots=True, init=False)
class RowCard:
    """A card in a seat's row (R5, all see it): discarded from hand, or a drawn card nobody took."""

    card: Card
    discarded: bool

    def __init__(self, card: Card, discarded: bool) -> None:
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "discarded", discarded)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied by its fields (see :func:`paohuzi._compiled.reduce_frozen`)."""
        return reduce_frozen(self)

    def to_dict(self) -> dict[str, Any]:
        return {"card": CARD_TEXT[self.card], "discarded": self.discarded}


# Index 2 × kind + discarded (a tuple index, not a dict lookup on a tuple key: this runs at every observation).
_ROW_CARDS: Final = tuple(RowCard(Card(c), d) for c in range(NUM_KINDS) for d in (False, True))


def row_card(card: int, discarded: bool) -> RowCard:
    """The (shared, immutable) :class:`RowCard` of a card kind."""
    return _ROW_CARDS[2 * card + 1 if discarded else 2 * card]


@dataclass(frozen=True, slots=True, init=False)
class Pending:
    """The card on offer in a claim window: who drew or discarded it, whether it was drawn, and whether it
    was the stock's last card (海底, R6.3)."""

    card: Card
    from_seat: int
    drawn: bool
    last: bool

    def __init__(self, card: Card, from_seat: int, drawn: bool, last: bool) -> None:
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "from_seat", from_seat)
        object.__setattr__(self, "drawn", drawn)
        object.__setattr__(self, "last", last)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied by its fields (see :func:`paohuzi._compiled.reduce_frozen`)."""
        return reduce_frozen(self)

    def to_dict(self) -> dict[str, Any]:
        return {"card": CARD_TEXT[self.card], "from": self.from_seat, "drawn": self.drawn, "last": self.last}


@dataclass(frozen=True, slots=True, init=False)
class ChouKinds:
    """A seat's 臭 kinds (R4.7), each sorted: those it may not 吃, may not 碰, and those it declined to 碰
    (忍碰: a later 偎 of the kind is a 臭偎)."""

    chi: tuple[Card, ...] = ()
    peng: tuple[Card, ...] = ()
    renpeng: tuple[Card, ...] = ()

    def __init__(self, chi: tuple[Card, ...] = (), peng: tuple[Card, ...] = (), renpeng: tuple[Card, ...] = ()) -> None:
        object.__setattr__(self, "chi", chi)
        object.__setattr__(self, "peng", peng)
        object.__setattr__(self, "renpeng", renpeng)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied by its fields (see :func:`paohuzi._compiled.reduce_frozen`)."""
        return reduce_frozen(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "chi": [CARD_TEXT[k] for k in self.chi],
            "peng": [CARD_TEXT[k] for k in self.peng],
            "renpeng": [CARD_TEXT[k] for k in self.renpeng],
        }


NO_CHOU = ChouKinds()


@dataclass(frozen=True, slots=True, init=False)
class Observation:
    """Everything ``seat`` may know now (R5). Field for field the JSON form of ``docs/engine.md``.

    :ivar rules: the rule set's name; ``options`` every option of the rule set but its name and title
        (``RuleSet.to_dict()``: R8.1 house options are public).
    :ivar dealer: the dealer; ``sitting_out`` the seat sitting out (four at the table), else None.
    :ivar seats: the seats in play, in turn order from the dealer.
    :ivar liangzhang: the 亮张 (R2).
    :ivar stock: cards left in the stock.
    :ivar hand_counts: per seat at the table, cards in hand.
    :ivar rows: per seat, its row (discards and unclaimed draws) in order.
    :ivar dead: the 死手 seats (R4.6).
    :ivar phase: what is being decided; ``turn`` the seat whose turn it is.
    :ivar pending: the card on offer (phase ``claim``), else None.
    :ivar outcome: when the hand is over, the outcome's JSON form (:meth:`Outcome.to_dict`), else None.
    :ivar seat: the observing seat; ``hand`` its cards, sorted.
    :ivar tables: per seat, its table groups in the order laid down; None for another seat's 偎 (its
        kind is hidden until the hand ends, R5).
    :ivar chou: the observing seat's 臭 kinds (R4.7).
    :ivar deciding: whether the observing seat must decide now; ``legal`` its legal actions.
    :ivar hands: every hand, once the hand is over (R5), else None.
    :ivar drawn_before: 荒庄 in a row just before this hand in its match (R9.1 黄番; public); always 0 for a
        classic family, and the JSON form has the key only when it is not 0.
    """

    rules: str
    options: Mapping[str, Any]
    dealer: int
    sitting_out: int | None
    seats: tuple[int, ...]
    liangzhang: Card
    stock: int
    hand_counts: tuple[int, ...]
    rows: tuple[tuple[RowCard, ...], ...]
    dead: tuple[int, ...]
    phase: Phase
    turn: int
    pending: Pending | None
    outcome: Mapping[str, Any] | None
    seat: int
    hand: tuple[Card, ...]
    tables: tuple[tuple[Group | None, ...], ...]
    chou: ChouKinds
    deciding: bool
    legal: tuple[Action, ...]
    hands: tuple[tuple[Card, ...], ...] | None = None
    drawn_before: int = 0

    def __init__(  # noqa: PLR0913, PLR0917 (the dataclass's fields, written out for mypyc)
        self,
        rules: str,
        options: Mapping[str, Any],
        dealer: int,
        sitting_out: int | None,
        seats: tuple[int, ...],
        liangzhang: Card,
        stock: int,
        hand_counts: tuple[int, ...],
        rows: tuple[tuple[RowCard, ...], ...],
        dead: tuple[int, ...],
        phase: Phase,
        turn: int,
        pending: Pending | None,
        outcome: Mapping[str, Any] | None,
        seat: int,
        hand: tuple[Card, ...],
        tables: tuple[tuple[Group | None, ...], ...],
        chou: ChouKinds,
        deciding: bool,
        legal: tuple[Action, ...],
        hands: tuple[tuple[Card, ...], ...] | None = None,
        drawn_before: int = 0,
    ) -> None:
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "sitting_out", sitting_out)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "liangzhang", liangzhang)
        object.__setattr__(self, "stock", stock)
        object.__setattr__(self, "hand_counts", hand_counts)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "dead", dead)
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "turn", turn)
        object.__setattr__(self, "pending", pending)
        object.__setattr__(self, "outcome", outcome)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "tables", tables)
        object.__setattr__(self, "chou", chou)
        object.__setattr__(self, "deciding", deciding)
        object.__setattr__(self, "legal", legal)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "drawn_before", drawn_before)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied by its fields (see :func:`paohuzi._compiled.reduce_frozen`)."""
        return reduce_frozen(self)

    def unseen(self) -> tuple[int, ...]:
        """Per card kind, the copies this seat has not seen: 4 minus those in its hand, in every visible
        table group, in the rows and on offer (R5). The others are in other hands, hidden 偎 or the stock.

        >>> from paohuzi.engine import Hand
        >>> from paohuzi.rules import find_preset
        >>> obs = Hand(find_preset("qq"), seed=3).observation(0)
        >>> sum(obs.unseen()) == 80 - len(obs.hand)
        True
        """
        seen = [0] * NUM_KINDS
        for c in self.hand:
            seen[c] += 1
        for groups in self.tables:
            for g in groups:
                if g is not None:
                    for c in g.cards:
                        seen[c] += 1
        for row in self.rows:
            for e in row:
                seen[e.card] += 1
        if self.pending is not None:
            seen[self.pending.card] += 1
        return tuple(bytes(seen).translate(_UNSEEN))

    def hidden_wei(self) -> tuple[int, ...]:
        """Per seat at the table, how many of its 偎 this seat cannot see."""
        return tuple(sum(1 for g in groups if g is None) for groups in self.tables)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``docs/engine.md``)."""
        text = CARD_TEXT
        obs: dict[str, Any] = {
            "rules": self.rules,
            "options": dict(self.options),
            "dealer": self.dealer,
            "sitting_out": self.sitting_out,
            "seats": list(self.seats),
            "liangzhang": text[self.liangzhang],
            "stock": self.stock,
            "hand_counts": list(self.hand_counts),
            "rows": [[{"card": text[e.card], "discarded": e.discarded} for e in row] for row in self.rows],
            "dead": list(self.dead),
            "phase": self.phase.value,
            "turn": self.turn,
            "pending": self.pending.to_dict() if self.pending is not None else None,
            "outcome": dict(self.outcome) if self.outcome is not None else None,
            "seat": self.seat,
            "hand": [text[c] for c in self.hand],
            "tables": [
                [{"kind": GroupKind.WEI.value, "cards": None} if g is None else g.to_dict() for g in groups]
                for groups in self.tables
            ],
            "chou": self.chou.to_dict(),
            "deciding": self.deciding,
            "legal": [str(a) for a in self.legal],
        }
        if self.hands is not None:
            obs["hands"] = [[text[c] for c in h] for h in self.hands]
        if self.drawn_before:  # R9.1 黄番 (classic observations never carry it: their frames stay as they were)
            obs["drawn_before"] = self.drawn_before
        return obs

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | object) -> Observation:
        """Read the JSON form back (``Observation.from_dict(obs.to_dict()) == obs``).

        :raises ObservationError: naming the key or value that cannot be read.
        """
        if not isinstance(data, Mapping):
            raise ObservationError(f"an observation is an object, got {type(data).__name__}")
        key = "?"
        try:
            key = "pending"
            p = data["pending"]
            pending = (
                None if p is None else Pending(_card(p["card"]), int(p["from"]), bool(p["drawn"]), bool(p["last"]))
            )
            key = "chou"
            ch = data["chou"]
            chou = ChouKinds(
                tuple(_card(t) for t in ch["chi"]),
                tuple(_card(t) for t in ch["peng"]),
                tuple(_card(t) for t in ch["renpeng"]),
            )
            key = "tables"
            tables = tuple(tuple(_group(g) for g in groups) for groups in data["tables"])
            key = "rows"
            rows = tuple(tuple(row_card(_card(e["card"]), bool(e["discarded"])) for e in row) for row in data["rows"])
            key = "legal"
            legal = tuple(Action.parse(t) for t in data["legal"])
            key = "hands"
            hands = data.get("hands")
            key = "phase"
            phase = Phase(data["phase"])
            key = "options"
            options = data["options"]
            if not isinstance(options, Mapping):
                raise ObservationError("must be an object")
            key = "outcome"
            outcome = data["outcome"]
            if outcome is not None and not isinstance(outcome, Mapping):
                raise ObservationError("must be an object or null")
            key = "hand"
            hand = tuple(_card(t) for t in data["hand"])
            key = "liangzhang"
            liangzhang = _card(data["liangzhang"])
            key = "drawn_before"
            drawn_before = data.get("drawn_before", 0)
            if isinstance(drawn_before, bool) or not isinstance(drawn_before, int) or drawn_before < 0:
                raise ObservationError(f"must be a number ≥ 0, got {drawn_before!r}")
            key = "the observation"
            return cls(
                rules=str(data["rules"]),
                options=dict(options),
                dealer=int(data["dealer"]),
                sitting_out=None if data["sitting_out"] is None else int(data["sitting_out"]),
                seats=tuple(int(s) for s in data["seats"]),
                liangzhang=liangzhang,
                stock=int(data["stock"]),
                hand_counts=tuple(int(n) for n in data["hand_counts"]),
                rows=rows,
                dead=tuple(int(s) for s in data["dead"]),
                phase=phase,
                turn=int(data["turn"]),
                pending=pending,
                outcome=None if outcome is None else dict(outcome),
                seat=int(data["seat"]),
                hand=hand,
                tables=tables,
                chou=chou,
                deciding=bool(data["deciding"]),
                legal=legal,
                hands=None if hands is None else tuple(tuple(_card(t) for t in h) for h in hands),
                drawn_before=drawn_before,
            )
        except KeyError as exc:
            raise ObservationError(f"observation {key}: missing key {exc.args[0]!r}") from None
        except (PaohuziError, TypeError, ValueError) as exc:
            raise ObservationError(f"observation {key}: {exc}") from None


def _card(text: object) -> Card:
    card = _CARD.get(text) if isinstance(text, str) else None
    if card is None:
        raise ObservationError(f"not a card: {text!r} (cards are x1–x10, d1–d10)")
    return card


def _group(data: Mapping[str, Any]) -> Group | None:
    cards = data["cards"]
    if cards is None:
        if data["kind"] != GroupKind.WEI.value:
            raise ObservationError(f"only a 偎 may hide its cards, got {dict(data)!r}")
        return None
    kind = _GROUP_KINDS.get(data["kind"])
    if kind is None:
        raise ObservationError(f"not a group kind: {data['kind']!r}")
    return Group(kind, tuple(_card(t) for t in cards))


@dataclass(frozen=True, slots=True, init=False)
class Hidden:
    """What an observation leaves out: with it, :meth:`paohuzi.engine.Hand.from_position` rebuilds the
    position (:meth:`paohuzi.engine.Hand.hidden` gives the true one; the search bot samples one).

    :ivar hands: per seat at the table, its hand (any order); the observing seat's must be its observed
        hand, the sitting-out seat's is empty.
    :ivar wei: per seat at the table, the kinds of its 偎 the observing seat cannot see, in table order.
    :ivar stock: the stock, next card first.
    :ivar chou: per seat at the table, its 臭 kinds (R4.7); empty: each other seat gets only what its
        discards imply (a kind discarded may never be 吃 or 碰). The observing seat's always come from the
        observation.
    :ivar discarded: per seat, the kinds it discarded from hand (R4.7; only error messages name them);
        empty: those in its row.
    :ivar decided: the choices already made in the open claim window, by seat (not yet resolved because
        a seat with priority has still to decide, R4.4).
    :ivar drawn: in phase ``self_hu``, the drawn card that was 提'd or 偎'd (R4.2.3), reported as the card
        won; else None.
    """

    hands: tuple[tuple[Card, ...], ...]
    wei: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    chou: tuple[ChouKinds, ...] = ()
    discarded: tuple[tuple[Card, ...], ...] = ()
    decided: tuple[tuple[int, Action], ...] = ()
    drawn: Card | None = None

    def __init__(
        self,
        hands: tuple[tuple[Card, ...], ...],
        wei: tuple[tuple[Card, ...], ...],
        stock: tuple[Card, ...],
        chou: tuple[ChouKinds, ...] = (),
        discarded: tuple[tuple[Card, ...], ...] = (),
        decided: tuple[tuple[int, Action], ...] = (),
        drawn: Card | None = None,
    ) -> None:
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "wei", wei)
        object.__setattr__(self, "stock", stock)
        object.__setattr__(self, "chou", chou)
        object.__setattr__(self, "discarded", discarded)
        object.__setattr__(self, "decided", decided)
        object.__setattr__(self, "drawn", drawn)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied by its fields (see :func:`paohuzi._compiled.reduce_frozen`)."""
        return reduce_frozen(self)
