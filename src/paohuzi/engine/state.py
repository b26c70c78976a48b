"""The state of one hand (一局) and the values every step of it hands out: R2, R4, R6, R7.3.

:class:`HandState` is every field of a hand in one object: the shared part (rules, stock, whose turn, the
decision pending, the action log, the events) and one :class:`~paohuzi.engine.seat.Seat` per seat at the
table (``players``). The claim window (:class:`~paohuzi.engine.claims.ClaimWindow`) is passed in. The turn
logic (``turns.py``), the claim window (``claims.py``) and the endings (``wins.py``) change it;
:class:`~paohuzi.engine.Hand` owns one and is the only way in. Card kinds are ints (``Card`` values) inside;
everything handed out is a ``Card``, a ``Group``, an event or an :class:`Outcome`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from paohuzi._compiled import mypyc_attr, reduce_frozen
from paohuzi.analysis import Arrangement
from paohuzi.cards import Card, PaohuziError
from paohuzi.engine import scoring_bridge
from paohuzi.engine.actions import Action
from paohuzi.engine.deck import seats_in_play
from paohuzi.engine.events import Event, jsonable
from paohuzi.engine.fair import FairSeed
from paohuzi.engine.observation import OutcomeKind, Phase, WinHow
from paohuzi.engine.seat import Seat
from paohuzi.rules import RuleSet
from paohuzi.scoring import Score

if TYPE_CHECKING:
    from paohuzi.engine.claims import ClaimWindow

__all__ = ["EngineError", "HandState", "Outcome"]

CARDS: Final = tuple(Card)
#: The keys of a win (:meth:`paohuzi.scoring.Win.to_dict`) that only the R9 families write.
_FAMILY_KEYS = ("tun", "xing", "xing_card", "combine")
# Phases: who must decide what.
# (Final: the compiled modules read them as C statics, not from the module's dict.)
OVER: Final = Phase.OVER
DISCARD: Final = Phase.DISCARD
CLAIM: Final = Phase.CLAIM
SELF: Final = Phase.SELF_HU
LIANG: Final = Phase.LIANGZHANG


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

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied by its fields (see :func:`paohuzi._compiled.reduce_frozen`)."""
        return reduce_frozen(self)

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
            # R9 families: 囤, 醒, the 醒 card and how the 名堂 combined (classic outcomes do not carry them)
            **{key: win[key] for key in _FAMILY_KEYS if key in win},
        }


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled: X.__new__(X) without __init__, for copy
class HandState:
    """Every field of a hand. A new field goes in :meth:`__init__` (its value before the deal) and in
    :meth:`copy`; ``tests/engine/test_hand_api.py`` fails when :meth:`copy` misses one.

    :ivar seats: the seats in play, in turn order from the dealer; ``players`` has one
        :class:`~paohuzi.engine.seat.Seat` per seat at the table (``table_size``), sitting-out seat included.
    :ivar hand_cards: the cards of a hand (R2, R4.6: the dealer gets one more, the 亮张): 20, or 14 on the
        15-card hands of 衡阳六胡抢 (R9.3) — the R4.6 discard base (``RuleSet.discard_base``).
    :ivar ring: seat in play → the seats in play in turn order from it (R4.4: 胡 in turn order from the drawer).
    :ivar phase, legal, decided, deciding: the decision pending (:meth:`ask`).
    :ivar actor: the seat whose turn it is (the drawer, discarder or taker).
    :ivar card, drawn, last: the card on offer (the forced draw in ``self_hu``, the 亮张 in ``liangzhang``),
        whether it was drawn, whether it was the stock's last card (海底, R6.3).
    :ivar actions: the action log, as (seat, Action) or (seat, text) (:meth:`action_texts`).
    :ivar applied: the last action :meth:`~paohuzi.engine.Hand.apply` played, or None.
    :ivar drawn_before: 荒庄 in a row just before this hand in its match (R9.1 黄番), given by the match.
    :ivar claimed: a 吃, 碰 or 跑 was made in this hand (R9.1 地胡: none before the win; forced 提/偎 are
        not claims).
    :ivar first: the card on offer (or just drawn) is the hand's first card: the first stock card drawn,
        or the dealer's opening discard (R9.1 地胡, decision in docs/decisions.md).
    """

    __slots__ = (
        "rules",
        "seed",
        "fair",
        "dealer",
        "sitting_out",
        "seats",
        "table_size",
        "hand_cards",
        "double_cards",
        "stacked",
        "positioned",
        "deck",
        "next",
        "ring",
        "min_huxi",
        "players",
        "window",
        "stock",
        "spos",
        "liang",
        "phase",
        "actor",
        "card",
        "drawn",
        "last",
        "legal",
        "decided",
        "deciding",
        "actions",
        "applied",
        "events",
        "outcome",
        "drawn_before",
        "claimed",
        "first",
    )

    def __init__(
        self,
        rules: RuleSet,
        seed: int | None,
        dealer: int,
        deck: Sequence[Card],
        double_cards: frozenset[int],
        window: ClaimWindow,
        *,
        stacked: bool = False,
        positioned: bool = False,
    ) -> None:
        n = rules.players_at_table
        self.rules = rules
        self.seed = seed
        self.fair: FairSeed | None = None  # a verifiable deal's seeds (RNG version 2), set by Hand
        self.dealer = dealer
        self.seats = seats_in_play(rules, dealer)
        self.sitting_out: int | None = (dealer + 2) % 4 if rules.four_players else None
        self.table_size = n
        self.hand_cards = rules.discard_base  # R4.6 with 20 (R2), or 14 (R9.3)
        self.double_cards = double_cards
        self.stacked = stacked  # dealt from a given deck, not from the seed
        self.positioned = positioned  # built by Hand.from_position: no deal, no record
        self.deck = tuple(deck)  # the deck in deal order (R2)
        seats = self.seats
        self.next = {s: seats[(i + 1) % len(seats)] for i, s in enumerate(seats)}  # 下家
        self.ring = {s: seats[i:] + seats[:i] for i, s in enumerate(seats)}  # 3 or 4 seats in play (R9.3)
        self.min_huxi = rules.min_huxi
        self.players = [Seat(rules.yiwushi) for _ in range(n)]
        self.window = window
        self.stock: list[int] = []
        self.spos = 0
        self.liang = 0
        self.phase = OVER
        self.actor = dealer
        self.card: int | None = None
        self.drawn = False
        self.last = False
        self.legal: dict[int, list[Action]] = {}
        self.decided: dict[int, Action] = {}
        self.deciding: tuple[int, ...] = ()
        self.actions: list[tuple[int, Action | str]] = []
        self.applied: tuple[int, Action] | None = None
        self.events: list[Event] = []
        self.outcome: Outcome | None = None
        self.drawn_before = 0  # the match's count; set before the deal (Hand)
        self.claimed = False
        self.first = False

    def copy(self) -> HandState:
        """An independent copy (search): the same position, events and log so far."""
        new = HandState.__new__(HandState)
        new.rules = self.rules
        new.seed = self.seed
        new.fair = self.fair
        new.dealer = self.dealer
        new.seats = self.seats
        new.sitting_out = self.sitting_out
        new.table_size = self.table_size
        new.hand_cards = self.hand_cards
        new.double_cards = self.double_cards
        new.stacked = self.stacked
        new.positioned = self.positioned
        new.deck = self.deck
        new.next = self.next  # never changed after the deal
        new.ring = self.ring  # never changed after the deal
        new.min_huxi = self.min_huxi
        new.players = [p.copy() for p in self.players]
        new.window = self.window.copy()
        new.stock = self.stock  # never changed after the deal: ``spos`` walks it
        new.spos = self.spos
        new.liang = self.liang
        new.phase = self.phase
        new.actor = self.actor
        new.card = self.card
        new.drawn = self.drawn
        new.last = self.last
        new.legal = {s: a[:] for s, a in self.legal.items()}
        new.decided = dict(self.decided)
        new.deciding = self.deciding
        new.actions = self.actions[:]
        new.applied = self.applied
        new.events = list(self.events)
        new.outcome = self.outcome
        new.drawn_before = self.drawn_before
        new.claimed = self.claimed
        new.first = self.first
        return new

    def check_seat(self, seat: object) -> int:
        """``seat`` if it is a seat at the table. :raises EngineError: otherwise."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.table_size:
            raise EngineError(f"no such seat {seat!r} (seats are 0–{self.table_size - 1})")
        return seat

    def action_texts(self) -> list[tuple[int, str]]:
        """The actions played as (seat, text). ``apply`` logs the Action itself (its text costs more than
        the rest of a step's bookkeeping); the texts are made here once and kept."""
        log = self.actions
        for i, (s, a) in enumerate(log):
            if type(a) is not str:
                log[i] = (s, str(a))
        return log  # type: ignore[return-value]

    def clear_decision(self) -> None:
        """Nobody is asked anything (the hand is over, or a forced step runs)."""
        self.phase = OVER
        self.legal = {}
        self.deciding = ()
        self.decided = {}
        self.window.clear()

    def ask(self, phase: Phase, legal: dict[int, list[Action]]) -> None:
        """The seats in ``legal`` must decide, among those actions."""
        self.phase = phase
        self.legal = legal
        self.decided = {}
        self.deciding = tuple(s for s in self.seats if s in legal)
