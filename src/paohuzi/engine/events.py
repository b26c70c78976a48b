"""Events: every change to a hand, as an immutable value that names its audience (R5).

Each event has ``to``: :data:`EVERYONE` (``None``) or one seat. An event for everyone may still carry
something only some seats may see — the deal carries every hand, a 偎 its kind — so the way to show an
event to a seat is :meth:`Event.for_seat`, which returns the version that seat may see (or ``None`` if the
event is not for it). :meth:`Event.to_dict` is the full version, for the referee and replays.

Event types (the ``type`` field of the dicts):

=============  =========================================================================================
``deal``       dealer, who sits out, the turn order, every hand (each seat sees its own), 亮张, stock size
``ti``         提: a seat puts four of a kind on the table (``origin``: dealt, kan or wei). Public (R5).
``wei``        偎 / 臭偎 of a drawn card; the kind is hidden from the others unless it is a 臭偎 (R5) or the
               rule set shows 偎 face up (``shown``: 明偎, R9.3)
``draw``       a seat draws from the stock; the others see the card only when it is shown or 提'd
``show``       the drawn card is shown (明示) and offered (R4.2.4); ``last``: it was the stock's last card
``discard``    a seat discards (出牌); ``auto``: it was the seat's only legal discard
``pass``       the seat declined what it was offered (only that seat is told: others must not learn that
               it had a choice)
``chou``       a kind became 臭 for the seat (R4.7); only that seat is told
``pao``        跑 (forced): a seat takes the card with a 坎 (``kan``), a 偎 (``wei``) or a 碰 (``peng``)
``peng``       碰
``chi``        吃 with its 比 groups (R4.5)
``unclaimed``  nobody took the card on offer: it lies in that seat's row (R4.2)
``dead``       a seat is 死手 (R4.6)
``hu``         a win, with the arrangement, the score and every hand shown (R5, R6, R7)
``draw_game``  荒庄: the stock ran out (R4.2); every hand shown
``escape``     逃跑: a seat left the hand (R7.3)
``settlement`` the payments of every seat at the table; they sum to zero but for a 双倍积分卡 winner (R7.3)
=============  =========================================================================================
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from paohuzi._compiled import reduce_frozen
from paohuzi.cards import Card
from paohuzi.groups import Group

__all__ = [
    "CARD_TEXT",
    "EVERYONE",
    "Event",
    "for_seats",
    "Deal",
    "Ti",
    "Wei",
    "Draw",
    "Show",
    "Discard",
    "Pass",
    "Chou",
    "Pao",
    "Peng",
    "Chi",
    "Unclaimed",
    "Dead",
    "Hu",
    "DrawGame",
    "Escape",
    "Settlement",
    "jsonable",
]

#: ``Event.to`` for an event every seat receives.
EVERYONE = None


#: ``str(card)`` by card index, without the enum machinery (JSON is built often).
CARD_TEXT: tuple[str, ...] = tuple(str(c) for c in Card)


def jsonable(value: Any) -> Any:
    """A JSON-ready form of an engine value: cards as ``x7``, groups as ``{"kind", "cards", "huxi"}``
    (:meth:`paohuzi.groups.Group.to_dict`)."""
    if isinstance(value, Card):
        return CARD_TEXT[value]
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, Group):
        return value.to_dict()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    to_dict = getattr(value, "to_dict", None)
    if to_dict is not None:
        return to_dict()
    raise TypeError(f"cannot make {value!r} JSON-ready")


@dataclass(frozen=True, slots=True, init=False)
class Event:
    """Base of every event. ``to`` is :data:`EVERYONE` or the one seat that receives the event."""

    to: int | None

    def __init__(self, to: int | None) -> None:
        object.__setattr__(self, "to", to)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied by its fields (see :func:`paohuzi._compiled.reduce_frozen`)."""
        return reduce_frozen(self)

    def to_dict(self) -> dict[str, Any]:
        """The full event (the referee's view), JSON-ready."""
        type_name, names = _describe(type(self))
        out: dict[str, Any] = {"type": type_name, "to": "everyone" if self.to is None else self.to}
        for name in names:
            out[name] = jsonable(getattr(self, name))
        return out

    def for_seat(self, seat: int) -> dict[str, Any] | None:
        """The version of this event that ``seat`` may see (R5), or None if it is not for that seat."""
        if self.to is not None and self.to != seat:
            return None
        return self._redacted(seat, self.to_dict())

    def _redacted(self, seat: int, data: dict[str, Any]) -> dict[str, Any]:
        return data

    @property
    def type(self) -> str:
        """The ``type`` of the dicts: the class name in snake case (``DrawGame`` → ``draw_game``)."""
        return _describe(type(self))[0]

    def __str__(self) -> str:
        """A one-line summary, e.g. ``peng 2 x7 from 0`` (the full event; not redacted)."""
        return " ".join(str(p) for p in (self.type, *self._brief()))

    def _brief(self) -> tuple[object, ...]:
        seat = getattr(self, "seat", None)
        card = getattr(self, "card", None)
        return tuple(p for p in (seat, card) if p is not None)


def for_seats(events: Sequence[Event], seats: Sequence[int]) -> list[list[dict[str, Any]]]:
    """What each of ``seats`` may see of ``events`` (R5): for each seat, the :meth:`Event.for_seat` of every
    event not withheld from it, in order. Each event's dict is made once for all the seats (issue 33: the
    server tells three seats of every action) and copied for each before its redaction, so every seat's dict is
    its own at the top level; nested lists are shared between the seats' dicts (read them, do not edit them).

    >>> from paohuzi.cards import Card
    >>> seen = for_seats([Draw(None, 1, Card.parse("x7"), 20)], [0, 1])
    >>> [[e["card"] for e in s] for s in seen]
    [[None], ['x7']]
    """
    out: list[list[dict[str, Any]]] = [[] for _ in seats]
    for event in events:
        to = event.to
        full: dict[str, Any] | None = None
        for k, seat in enumerate(seats):
            if to is not None and to != seat:
                continue
            if full is None:
                full = event.to_dict()
            out[k].append(event._redacted(seat, dict(full)))  # noqa: SLF001 (its own module)
    return out


#: Each event class's ``type`` and its fields but ``to`` in declaration order (what :meth:`Event.to_dict`
#: writes), worked out once per class. The type comes from the class name rather than a class attribute, which
#: a dataclass compiled by mypyc would take for a field (docs/decisions.md "Speed").
_DESCRIBED: dict[type, tuple[str, tuple[str, ...]]] = {}


def _describe(cls: type) -> tuple[str, tuple[str, ...]]:
    known = _DESCRIBED.get(cls)
    if known is None:
        type_name = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
        known = _DESCRIBED[cls] = (type_name, tuple(f.name for f in fields(cls) if f.name != "to"))
    return known


@dataclass(frozen=True, slots=True, init=False)
class Deal(Event):
    """砌牌 (R2): every hand as dealt (before the opening 提), the 亮张, the stock size."""

    dealer: int
    sitting_out: int | None
    seats: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]
    liangzhang: Card
    stock: int

    def __init__(
        self,
        to: int | None,
        dealer: int,
        sitting_out: int | None,
        seats: tuple[int, ...],
        hands: tuple[tuple[Card, ...], ...],
        liangzhang: Card,
        stock: int,
    ) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "sitting_out", sitting_out)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "liangzhang", liangzhang)
        object.__setattr__(self, "stock", stock)

    def _redacted(self, seat: int, data: dict[str, Any]) -> dict[str, Any]:
        data["hand_counts"] = [len(h) for h in self.hands]
        data["hands"] = [jsonable(h) if s == seat else None for s, h in enumerate(self.hands)]
        return data

    def _brief(self) -> tuple[object, ...]:
        return (f"dealer {self.dealer}", f"liangzhang {self.liangzhang}")


@dataclass(frozen=True, slots=True, init=False)
class Ti(Event):
    """提 (R4.1, R4.2.1): four of a kind to the table. ``origin``: dealt, kan (a 坎 and the draw) or wei."""

    seat: int
    card: Card
    origin: str

    def __init__(self, to: int | None, seat: int, card: Card, origin: str) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "origin", origin)

    def _brief(self) -> tuple[object, ...]:
        return (self.seat, self.card, self.origin)


@dataclass(frozen=True, slots=True, init=False)
class Wei(Event):
    """偎 / 臭偎 (R4.2.2). The kind of a plain 偎 is hidden from the other seats (R5), unless ``shown``: the
    rule set's 明偎 (``mingwei``, R9.3) lays every 偎 face up. ``shown`` is in the dict only when true, so the
    events of rule sets without 明偎 are written as they always were."""

    seat: int
    card: Card
    chou: bool
    shown: bool

    def __init__(self, to: int | None, seat: int, card: Card, chou: bool, shown: bool = False) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "chou", chou)
        object.__setattr__(self, "shown", shown)

    def to_dict(self) -> dict[str, Any]:
        data = Event.to_dict(self)
        if not self.shown:
            del data["shown"]
        return data

    def _redacted(self, seat: int, data: dict[str, Any]) -> dict[str, Any]:
        if seat != self.seat and not self.chou and not self.shown:
            data["card"] = None
        return data

    def _brief(self) -> tuple[object, ...]:
        return (self.seat, self.card, "chou") if self.chou else (self.seat, self.card)


@dataclass(frozen=True, slots=True, init=False)
class Draw(Event):
    """A seat draws the top card of the stock (R4.2). Others see the card only once shown or 提'd."""

    seat: int
    card: Card
    stock: int

    def __init__(self, to: int | None, seat: int, card: Card, stock: int) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "stock", stock)

    def _redacted(self, seat: int, data: dict[str, Any]) -> dict[str, Any]:
        if seat != self.seat:
            data["card"] = None
        return data


@dataclass(frozen=True, slots=True, init=False)
class Show(Event):
    """明示 (R4.2.4): the drawn card is shown and offered. ``last``: it was the stock's last card (海底)."""

    seat: int
    card: Card
    last: bool

    def __init__(self, to: int | None, seat: int, card: Card, last: bool) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "last", last)

    def _brief(self) -> tuple[object, ...]:
        return (self.seat, self.card, "last") if self.last else (self.seat, self.card)


@dataclass(frozen=True, slots=True, init=False)
class Discard(Event):
    """出牌 (R4.6). ``auto``: the engine played the seat's only legal discard."""

    seat: int
    card: Card
    auto: bool

    def __init__(self, to: int | None, seat: int, card: Card, auto: bool) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "auto", auto)

    def _brief(self) -> tuple[object, ...]:
        return (self.seat, self.card, "auto") if self.auto else (self.seat, self.card)


@dataclass(frozen=True, slots=True, init=False)
class Pass(Event):
    """过: the seat declined (sent to that seat only)."""

    seat: int

    def __init__(self, to: int | None, seat: int) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True, init=False)
class Chou(Event):
    """臭 (R4.7), sent to the seat only: ``chi`` it may no longer 吃 the kind, ``peng`` no longer 碰 it,
    ``renpeng`` it declined to 碰 it (a later 偎 of it is a 臭偎)."""

    seat: int
    card: Card
    chi: bool
    peng: bool
    renpeng: bool

    def __init__(self, to: int | None, seat: int, card: Card, chi: bool, peng: bool, renpeng: bool) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "chi", chi)
        object.__setattr__(self, "peng", peng)
        object.__setattr__(self, "renpeng", renpeng)

    def _brief(self) -> tuple[object, ...]:
        flags = [n for n, on in (("chi", self.chi), ("peng", self.peng), ("renpeng", self.renpeng)) if on]
        return (self.seat, self.card, *flags)


@dataclass(frozen=True, slots=True, init=False)
class Pao(Event):
    """跑 (R4.3, forced): ``origin`` kan, wei or peng; ``source``: the seat the card came from."""

    seat: int
    card: Card
    origin: str
    source: int

    def __init__(self, to: int | None, seat: int, card: Card, origin: str, source: int) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "origin", origin)
        object.__setattr__(self, "source", source)

    def _brief(self) -> tuple[object, ...]:
        return (self.seat, self.card, self.origin, "from", self.source)


@dataclass(frozen=True, slots=True, init=False)
class Peng(Event):
    """碰 (R4.3); ``source``: the seat the card came from."""

    seat: int
    card: Card
    source: int

    def __init__(self, to: int | None, seat: int, card: Card, source: int) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "source", source)

    def _brief(self) -> tuple[object, ...]:
        return (self.seat, self.card, "from", self.source)


@dataclass(frozen=True, slots=True, init=False)
class Chi(Event):
    """吃 (R4.3) of ``card`` with the group ``group``, plus its 比 groups (R4.5)."""

    seat: int
    card: Card
    group: Group
    bi: tuple[Group, ...]
    source: int

    def __init__(self, to: int | None, seat: int, card: Card, group: Group, bi: tuple[Group, ...], source: int) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "group", group)
        object.__setattr__(self, "bi", bi)
        object.__setattr__(self, "source", source)

    def _brief(self) -> tuple[object, ...]:
        bi = [f"bi {' '.join(map(str, g.cards))}" for g in self.bi]
        return (self.seat, self.card, "from", self.source, "as", " ".join(map(str, self.group.cards)), *bi)


@dataclass(frozen=True, slots=True, init=False)
class Unclaimed(Event):
    """Nobody took the card: it lies in ``seat``'s row (R4.2)."""

    seat: int
    card: Card

    def __init__(self, to: int | None, seat: int, card: Card) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)


@dataclass(frozen=True, slots=True, init=False)
class Dead(Event):
    """死手 (R4.6): the seat owes a discard and holds only 坎 cards."""

    seat: int

    def __init__(self, to: int | None, seat: int) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True, init=False)
class Hu(Event):
    """胡 (R6): the winner, the card won and how, the arrangement and the score (R7); every hand and
    table is shown (R5). ``forced``: under R8.1 有胡必胡 (``must_hu``) the engine made the 胡 without
    asking (no action of the winner precedes it in the record); the dict has the key only then. (A dealt
    天胡, ``source`` ``dealt``, is never asked either.) ``tun``, ``xing``, ``xing_card``: a R9 family's 囤, 醒
    and 醒 card (R9.4; None without 醒); None and left out of the dict for the classic families, whose events
    stay as they were."""

    seat: int
    card: Card | None
    source: str
    zimo: bool
    tianhu: bool
    haidi: bool
    groups: tuple[Group, ...]
    loose: tuple[Card, ...]
    huxi: int
    names: tuple[tuple[str, int], ...]
    fan: int
    base: int
    points: int
    hands: tuple[tuple[Card, ...], ...]
    tables: tuple[tuple[Group, ...], ...]
    forced: bool = False
    tun: int | None = None
    xing: int | None = None
    xing_card: Card | None = None

    def __init__(  # noqa: PLR0913, PLR0917 (the dataclass's fields, written out for mypyc)
        self,
        to: int | None,
        seat: int,
        card: Card | None,
        source: str,
        zimo: bool,
        tianhu: bool,
        haidi: bool,
        groups: tuple[Group, ...],
        loose: tuple[Card, ...],
        huxi: int,
        names: tuple[tuple[str, int], ...],
        fan: int,
        base: int,
        points: int,
        hands: tuple[tuple[Card, ...], ...],
        tables: tuple[tuple[Group, ...], ...],
        forced: bool = False,
        tun: int | None = None,
        xing: int | None = None,
        xing_card: Card | None = None,
    ) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "zimo", zimo)
        object.__setattr__(self, "tianhu", tianhu)
        object.__setattr__(self, "haidi", haidi)
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "loose", loose)
        object.__setattr__(self, "huxi", huxi)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "fan", fan)
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "tables", tables)
        object.__setattr__(self, "forced", forced)
        object.__setattr__(self, "tun", tun)
        object.__setattr__(self, "xing", xing)
        object.__setattr__(self, "xing_card", xing_card)

    def to_dict(self) -> dict[str, Any]:
        data = Event.to_dict(self)
        data["names"] = [{"name": n, "fan": f} for n, f in self.names]
        if not self.forced:
            del data["forced"]  # only a 有胡必胡 win carries it (records before R8.1 stay byte-identical)
        if self.tun is None:  # a classic family: no 囤/醒 (records and frames before R9 stay byte-identical)
            del data["tun"], data["xing"], data["xing_card"]
        return data

    def _brief(self) -> tuple[object, ...]:
        brief = (self.seat, self.card, self.source, f"{self.huxi}胡息", f"{self.points}分")
        return (*brief, "forced") if self.forced else brief


@dataclass(frozen=True, slots=True, init=False)
class DrawGame(Event):
    """荒庄 (R4.2): the stock is empty; every hand and table is shown (R5)."""

    hands: tuple[tuple[Card, ...], ...]
    tables: tuple[tuple[Group, ...], ...]

    def __init__(
        self,
        to: int | None,
        hands: tuple[tuple[Card, ...], ...],
        tables: tuple[tuple[Group, ...], ...],
    ) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "tables", tables)

    def _brief(self) -> tuple[object, ...]:
        return ()


@dataclass(frozen=True, slots=True, init=False)
class Escape(Event):
    """逃跑 (R7.3): ``seat`` left; ``huxi`` is H, the others' partial-arrangement 胡息."""

    seat: int
    huxi: int
    hands: tuple[tuple[Card, ...], ...]
    tables: tuple[tuple[Group, ...], ...]

    def __init__(
        self,
        to: int | None,
        seat: int,
        huxi: int,
        hands: tuple[tuple[Card, ...], ...],
        tables: tuple[tuple[Group, ...], ...],
    ) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "huxi", huxi)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "tables", tables)

    def _brief(self) -> tuple[object, ...]:
        return (self.seat, f"H={self.huxi}")


@dataclass(frozen=True, slots=True, init=False)
class Settlement(Event):
    """The hand's payments, one per seat at the table (the sitting-out seat gets 0); they sum to 0."""

    payments: tuple[int, ...]

    def __init__(self, to: int | None, payments: tuple[int, ...]) -> None:
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "payments", payments)

    def _brief(self) -> tuple[object, ...]:
        return tuple(self.payments)
