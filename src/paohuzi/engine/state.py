"""The state of a hand (一局) and the helpers every step of the flow uses: R1, R3, R4.6, R6.1.

:class:`HandState` declares every field of :class:`~paohuzi.engine.Hand` with its type; the steps of the
hand build on it (``wins.py`` → ``claims.py`` → ``turns.py`` → ``position.py`` → ``hand.py``). Card kinds are
ints (``Card`` values) inside; everything handed out is a ``Card``, a ``Group`` or an event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paohuzi import analysis
from paohuzi._compiled import mypyc_attr, reduce_frozen
from paohuzi.analysis import Arrangement, Source
from paohuzi.cards import NUM_KINDS, Card, PaohuziError
from paohuzi.engine import scoring_bridge
from paohuzi.engine.actions import Action
from paohuzi.engine.deck import HAND_CARDS
from paohuzi.engine.events import Event, jsonable
from paohuzi.engine.observation import ChouKinds, OutcomeKind, Phase, RowCard, WinHow
from paohuzi.groups import PARTNERS, Group, GroupKind, same_kind_huxi
from paohuzi.rules import RuleSet
from paohuzi.scoring import Score

_CARDS = tuple(Card)
_TI, _PAO, _WEI, _CHOUWEI, _PENG_G = GroupKind.TI, GroupKind.PAO, GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PENG
_SAME = {kind: [Group(kind, (Card(k),) * kind.size) for k in range(NUM_KINDS)] for kind in GroupKind if kind.same_kind}

# Phases: who must decide what.
_OVER, _DISCARD, _CLAIM, _SELF, _LIANG = Phase.OVER, Phase.DISCARD, Phase.CLAIM, Phase.SELF_HU, Phase.LIANGZHANG

# For each card kind c, the pairs of other cards (a, b), a <= b, that make a 句 or 绞 with c (R3 shape table).
_PARTNERS = PARTNERS
# 胡息 of a 坎 (R3) and of a 偎, the most a hand pair can grow into (R4.2), by card kind.
_KAN_HUXI = [same_kind_huxi(GroupKind.KAN, k) for k in range(NUM_KINDS)]
_WEI_HUXI = [same_kind_huxi(GroupKind.WEI, k) for k in range(NUM_KINDS)]
# Bit of "no card" (the cards as they stand) in a partner mask; bits 0–19 are the card kinds.
_NO_CARD = NUM_KINDS
_ALL_CARDS = (1 << (NUM_KINDS + 1)) - 1


def _partner_mask(loose: list[int]) -> int:
    """The cards (bit k for kind k, bit ``_NO_CARD`` for none) with which every loose card held once has
    two cards to form a 句 or 绞 with (R3), among the loose cards and that card — the second test of
    :meth:`HandState._maybe_complete`, worked out once for every card.

    A loose card k held once with no such pair (an *orphan*) passes only with the card k itself (then it
    is held twice and needs no partner) or with a card that completes one of its pairs: the missing kind of
    a pair whose other kind is loose, or the second copy of a pair of one kind held once. No orphan: every
    card passes, and so do the cards as they stand.
    """
    mask = _ALL_CARDS
    for k in range(NUM_KINDS):
        if loose[k] != 1:
            continue
        rescue = 1 << k
        for a, b in _PARTNERS[k]:
            if a == k or b == k:  # k is held once, so a partner pair never includes k itself
                continue
            la, lb = loose[a], loose[b]
            if a == b:
                if la >= 2:
                    break
                if la == 1:
                    rescue |= 1 << a
            elif la and lb:
                break
            elif la:
                rescue |= 1 << b
            elif lb:
                rescue |= 1 << a
        else:
            mask &= rescue  # an orphan: also clears _NO_CARD
    return mask


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
        }


def _next_seats(seats: tuple[int, ...]) -> dict[int, int]:
    """下家 of each seat in play (the seat sitting out has none)."""
    return {s: seats[(i + 1) % len(seats)] for i, s in enumerate(seats)}


@mypyc_attr(allow_interpreted_subclasses=True)  # see paohuzi/_compiled.py
class HandState:
    """The fields of a hand and the helpers on them (see :class:`~paohuzi.engine.Hand`, which sets them)."""

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
        "_tview",
        "_rview",
        "_cview",
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

    rules: RuleSet
    seed: int | None
    dealer: int
    sitting_out: int | None
    seats: tuple[int, ...]
    table_size: int
    double_cards: frozenset[int]
    events: list[Event]
    outcome: Outcome | None
    _stacked: bool
    _deck: tuple[Card, ...]  # the deck in deal order (R2)
    _next: dict[int, int]
    _hands: list[list[int]]  # per seat: count per card kind
    _hsize: list[int]
    _tables: list[list[Group]]
    _tsize: list[int]
    _fours: list[int]  # 提 + 跑 on the table (R4.6)
    _wei: list[dict[int, int]]  # kind -> index of its 偎/臭偎
    _peng: list[dict[int, int]]  # kind -> index of its 碰
    _rows: list[list[tuple[int, bool]]]  # (card, discarded from hand)
    _stock: list[int]
    _spos: int
    _liang: int
    _no_chi: list[set[int]]
    _no_peng: list[set[int]]
    _renpeng: list[set[int]]
    _discarded: list[set[int]]
    _dead: list[bool]
    _hcache: list[tuple[Card, ...] | None]
    _tcache: list[tuple[Group, ...] | None]
    # Observation pieces (R5), kept until they change: the table as the other seats see it (a 偎 hidden),
    # the row as RowCards (rows only grow: rebuilt when longer), the 臭 kinds (the sets only grow: keyed by
    # their sizes).
    _tview: list[tuple[Group | None, ...] | None]
    _rview: list[tuple[RowCard, ...]]
    _cview: list[tuple[int, ChouKinds]]
    _info: list[tuple[int, list[int], int] | None]
    _phase: Phase
    _actor: int
    _card: int | None  # the card on offer, the forced draw (self_hu) or the 亮张
    _drawn: bool
    _last: bool
    _claims: list[tuple[int, int]]  # (claim type, seat) in priority order (R4.4), see claims.py
    _legal: dict[int, list[Action]]
    _decided: dict[int, Action]
    _deciding: tuple[int, ...]
    _actions: list[tuple[int, Action | str]]  # the text is made on demand: see _action_texts
    _min_huxi: int
    _positioned: bool

    def _check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.table_size:
            raise EngineError(f"no such seat {seat!r} (seats are 0–{self.table_size - 1})")

    def _action_texts(self) -> list[tuple[int, str]]:
        """The actions played as (seat, text). ``apply`` logs the Action itself (its text costs more than
        the rest of a step's bookkeeping); the texts are made here once and kept."""
        log = self._actions
        for i, (s, a) in enumerate(log):
            if type(a) is not str:
                log[i] = (s, str(a))
        return log  # type: ignore[return-value]

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
        self._tview[s] = None
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
        self._tview[s] = None
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

    def _seat_info(self, s: int) -> tuple[int, list[int], int]:
        """(胡息 of the table groups and the 坎, the loose card counts, the cards the partner test lets
        through) of seat ``s``, cached until its cards change. See :meth:`_maybe_complete`."""
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
            info = self._info[s] = (fixed, loose, _partner_mask(loose))
        return info

    def _maybe_complete(self, s: int, card: int | None) -> bool:
        """A cheap necessary condition for R6.1, so that most offered cards skip the full analysis:

        - every loose hand card held once (of another kind than the card) has two cards to form a 句 or
          绞 with, among the loose cards and the card (precomputed per seat for every card: the bits of
          ``_partner_mask``);
        - the 胡息 can reach the minimum: table groups, 坎, as many 一二三/二七十 as the loose cards (and the
          card) could make, and the most the card can add to a group it matches (R3)."""
        info = self._info[s]
        if info is None:
            info = self._seat_info(s)
        fixed, loose, mask = info
        if not mask >> (_NO_CARD if card is None else card) & 1:
            return False
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
        return bound >= self._min_huxi

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
