"""One seat's part of a hand (一局): its hand, its table groups, its row and its flags — R3, R4.6, R4.7, R6.1.

A :class:`Seat` holds card kinds as ints (``Card`` values) and counts per kind; everything it hands out is
a ``Card`` or a ``Group``. It knows nothing of the other seats or of the turn: the turn logic
(``turns.py``) and the claim window (``claims.py``) change it through :meth:`Seat.take`, :meth:`Seat.lay`
and :meth:`Seat.upgrade`, which keep its sizes and caches true.
"""

from __future__ import annotations

from typing import Final

from paohuzi import analysis
from paohuzi._compiled import mypyc_attr
from paohuzi.analysis import Source
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.engine.observation import NO_CHOU, ChouKinds, RowCard
from paohuzi.groups import PARTNERS, Group, GroupKind, partners, same_kind_huxi

__all__ = ["Seat"]

# (Final: the compiled modules read them as C statics, not from the module's dict.)
_CARDS: Final = tuple(Card)
_TI: Final = GroupKind.TI
_PAO: Final = GroupKind.PAO
_WEI: Final = GroupKind.WEI
_CHOUWEI: Final = GroupKind.CHOUWEI
_PENG_G: Final = GroupKind.PENG
# Every group of four, three or two cards of one kind (提, 跑, 偎, 臭偎, 碰, 坎), by group kind and card kind.
SAME: Final = {
    kind: [Group(kind, (Card(k),) * kind.size) for k in range(NUM_KINDS)] for kind in GroupKind if kind.same_kind
}

# For each card kind c, the pairs of other cards (a, b), a <= b, that make a 句 or 绞 with c (R3 shape table).
_PARTNERS = PARTNERS
# 胡息 of a 坎 (R3) and of a 偎, the most a hand pair can grow into (R4.2), by card kind.
_KAN_HUXI: Final = [same_kind_huxi(GroupKind.KAN, k) for k in range(NUM_KINDS)]
_WEI_HUXI: Final = [same_kind_huxi(GroupKind.WEI, k) for k in range(NUM_KINDS)]
# Bit of "no card" (the cards as they stand) in a partner mask; bits 0–19 are the card kinds.
NO_CARD: Final = NUM_KINDS
_ALL_CARDS: Final = (1 << (NUM_KINDS + 1)) - 1


def _partner_mask(loose: list[int], pairs: tuple[tuple[tuple[int, int], ...], ...] = _PARTNERS) -> int:
    """The cards (bit k for kind k, bit ``NO_CARD`` for none) with which every loose card held once has
    two cards to form a 句 or 绞 with (R3), among the loose cards and that card — the second test of
    :meth:`Seat.maybe_complete`, worked out once for every card.

    A loose card k held once with no such pair (an *orphan*) passes only with the card k itself (then it
    is held twice and needs no partner) or with a card that completes one of its pairs: the missing kind of
    a pair whose other kind is loose, or the second copy of a pair of one kind held once. No orphan: every
    card passes, and so do the cards as they stand. ``pairs``: the rule set's partners (一五十 too under
    ``yiwushi``, R9.3).
    """
    mask = _ALL_CARDS
    for k in range(NUM_KINDS):
        if loose[k] != 1:
            continue
        rescue = 1 << k
        for a, b in pairs[k]:
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
            mask &= rescue  # an orphan: also clears NO_CARD
    return mask


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled: X.__new__(X) without __init__, for copy
class Seat:
    """One seat's cards and flags in a hand.

    A new field goes in :meth:`__init__` (its value for a seat with no cards) and in :meth:`copy`;
    ``tests/engine/test_hand_api.py`` fails when :meth:`copy` misses one.

    :ivar hand: count per card kind in hand.
    :ivar size: cards in hand.
    :ivar table: the table groups in the order they were laid down.
    :ivar tsize: cards on the table.
    :ivar fours: 提 + 跑 on the table (R4.6).
    :ivar wei: card kind → index in ``table`` of its 偎/臭偎.
    :ivar peng: card kind → index in ``table`` of its 碰.
    :ivar row: the seat's row of cards nobody took, as (card, discarded from hand) (R5).
    :ivar no_chi, no_peng, renpeng: the 臭 kinds (R4.7): declined 吃, blocked 碰, 忍碰.
    :ivar discarded: the kinds this seat has discarded (never 吃 or 碰 by it, R4.7).
    :ivar dead: 死手 (R4.6 decision): no discard, no 吃/碰/胡.
    :ivar weis: 偎 (臭偎 included) the seat has made in this hand, also those that became 提 or 跑 since
        (R9.1 听胡: a 提 made from a 偎 does not count).
    :ivar yiwushi: 一五十 / 壹伍拾 is a 句 (rule option, R9.3): in 吃, 比 and every analysis of this seat's cards.
    :ivar partners: for each card kind, the pairs of cards that make a 句 or 绞 with it under the rule set
        (:func:`paohuzi.groups.partners`).
    """

    __slots__ = (
        "hand",
        "size",
        "table",
        "tsize",
        "fours",
        "wei",
        "peng",
        "row",
        "no_chi",
        "no_peng",
        "renpeng",
        "discarded",
        "dead",
        "weis",
        "yiwushi",
        "partners",
        "hcache",
        "tcache",
        "tview",
        "rview",
        "cview",
        "info",
    )

    def __init__(self, yiwushi: bool = False) -> None:
        self.hand: list[int] = [0] * NUM_KINDS
        self.size = 0
        self.table: list[Group] = []
        self.tsize = 0
        self.fours = 0
        self.wei: dict[int, int] = {}
        self.peng: dict[int, int] = {}
        self.row: list[tuple[int, bool]] = []
        self.no_chi: set[int] = set()
        self.no_peng: set[int] = set()
        self.renpeng: set[int] = set()
        self.discarded: set[int] = set()
        self.dead = False
        self.weis = 0
        self.yiwushi = yiwushi
        self.partners = partners(yiwushi)
        # Caches, kept until the cards they describe change: the hand as Cards, the table as a tuple, the
        # table as the other seats see it (a 偎 hidden, R5), the row as RowCards (rows only grow: rebuilt
        # when longer), the 臭 kinds keyed by the sets' sizes (they only grow), and ``info``
        # (see :meth:`seat_info`). The cached tuples are never changed in place, so a copy shares them.
        self.hcache: tuple[Card, ...] | None = None
        self.tcache: tuple[Group, ...] | None = None
        self.tview: tuple[Group | None, ...] | None = None
        self.rview: tuple[RowCard, ...] = ()
        self.cview: tuple[int, ChouKinds] = (0, NO_CHOU)
        self.info: tuple[int, list[int], int] | None = None

    def copy(self) -> Seat:
        """An independent copy (search): containers copied, cached immutable values shared."""
        new = Seat.__new__(Seat)
        new.hand = self.hand[:]
        new.size = self.size
        new.table = self.table[:]
        new.tsize = self.tsize
        new.fours = self.fours
        new.wei = dict(self.wei)
        new.peng = dict(self.peng)
        new.row = self.row[:]
        new.no_chi = set(self.no_chi)
        new.no_peng = set(self.no_peng)
        new.renpeng = set(self.renpeng)
        new.discarded = set(self.discarded)
        new.dead = self.dead
        new.weis = self.weis
        new.yiwushi = self.yiwushi
        new.partners = self.partners
        new.hcache = self.hcache
        new.tcache = self.tcache
        new.tview = self.tview
        new.rview = self.rview
        new.cview = self.cview
        new.info = self.info
        return new

    # -- the cards ---------------------------------------------------------------------------------

    def hand_cards(self) -> tuple[Card, ...]:
        """The hand, sorted."""
        cards = self.hcache
        if cards is None:
            out: list[Card] = []
            k = 0
            for n in self.hand:  # one append per card: no tuple made per kind (compiled, a native append)
                while n > 0:
                    out.append(_CARDS[k])
                    n -= 1
                k += 1
            cards = self.hcache = tuple(out)
        return cards

    def table_groups(self) -> tuple[Group, ...]:
        """The table groups in the order they were laid down."""
        groups = self.tcache
        if groups is None:
            groups = self.tcache = tuple(self.table)
        return groups

    def table_view(self) -> tuple[Group | None, ...]:
        """The table as the other seats see it while the hand is on: a 偎's kind hidden (R5)."""
        view = self.tview
        if view is None:
            view = self.tview = tuple([None if g.kind is _WEI else g for g in self.table])
        return view

    def take(self, card: int, n: int = 1) -> None:
        """``n`` copies of ``card`` leave the hand."""
        self.hand[card] -= n
        self.size -= n
        self.hcache = None
        self.info = None

    def lay(self, group: Group) -> None:
        """``group`` goes to the table (its cards already taken from the hand, or from outside)."""
        table = self.table
        kind = group.kind
        if kind is _WEI or kind is _CHOUWEI:
            self.wei[group.cards[0]] = len(table)
            self.weis += 1
        elif kind is _PENG_G:
            self.peng[group.cards[0]] = len(table)
        elif kind is _TI or kind is _PAO:
            self.fours += 1
        table.append(group)
        self.tsize += kind.size
        self.tcache = None
        self.tview = None
        self.info = None

    def upgrade(self, index: int, kind: GroupKind) -> None:
        """A 偎/臭偎/碰 on the table takes the fourth card: 提 or 跑 (``kind``)."""
        card = self.table[index].cards[0]
        self.table[index] = SAME[kind][card]
        self.wei.pop(card, None)
        self.peng.pop(card, None)
        self.tsize += 1
        self.fours += 1
        self.tcache = None
        self.tview = None
        self.info = None

    def only_own_ti(self, won: int | None = None) -> bool:
        """听胡 (R9.1 decision): before the card won, the table holds nothing but 提 made from the seat's own
        dealt cards — no 吃, 碰, 偎 or 跑, and no 提 from a 偎. ``won``: the drawn card of a forced 偎 that the
        seat now wins with (R4.2.3); that 偎 is the card won, not a move made before it."""
        weis = self.weis
        table = self.table
        if won is not None and table and table[-1].kind in (_WEI, _CHOUWEI) and table[-1].cards[0] == won:
            weis -= 1
            table = table[:-1]
        return weis == 0 and all(g.kind is _TI for g in table)

    # -- what the seat may do ----------------------------------------------------------------------

    def owes(self, hand_cards: int, taking: int = 0) -> bool:
        """R4.6: discard exactly when hand + table cards > ``hand_cards`` + max(0, n − 1), n = 提 + 跑 on the
        table; ``taking`` counts a card about to be taken (碰/吃, which add no four-card group)."""
        return self.size + self.tsize + taking > hand_cards + max(0, self.fours - 1)

    def discardable(self) -> list[int]:
        """Kinds the seat may discard: any in hand except a 坎 (R3, R4.6)."""
        h = self.hand
        return [k for k in range(NUM_KINDS) if 0 < h[k] < 3]

    def loose(self) -> int:
        """Hand cards outside 坎."""
        return sum(n for n in self.hand if n < 3)

    def can_hu(self, card: int | None, source: Source, min_huxi: int) -> bool:
        """R6.1 with ``card`` (None: the cards as they stand). A dead seat never 胡 (R4.6)."""
        if self.dead or not self.maybe_complete(card, min_huxi):
            return False
        return analysis.is_complete(
            self.hand_cards(),
            self.table_groups(),
            None if card is None else _CARDS[card],
            source,
            min_huxi=min_huxi,
            yiwushi=self.yiwushi,
        )

    def seat_info(self) -> tuple[int, list[int], int]:
        """(胡息 of the table groups and the 坎, the loose card counts, the cards the partner test lets
        through), cached until the cards change. See :meth:`maybe_complete`."""
        info = self.info
        if info is None:
            h = self.hand
            fixed = 0
            for g in self.table:
                fixed += g.huxi
            loose = [0] * NUM_KINDS
            for k in range(NUM_KINDS):
                m = h[k]
                if m >= 3:
                    fixed += _KAN_HUXI[k]
                else:
                    loose[k] = m
            info = self.info = (fixed, loose, _partner_mask(loose, self.partners))
        return info

    def maybe_complete(self, card: int | None, min_huxi: int) -> bool:
        """A cheap necessary condition for R6.1, so that most offered cards skip the full analysis:

        - every loose hand card held once (of another kind than the card) has two cards to form a 句 or
          绞 with, among the loose cards and the card (precomputed for every card: the bits of
          ``_partner_mask``);
        - the 胡息 can reach the minimum: table groups, 坎, as many 一二三/二七十 (and 一五十 under
          ``yiwushi``, R9.3) as the loose cards (and the card) could make, and the most the card can add to
          a group it matches (R3)."""
        info = self.info
        if info is None:
            info = self.seat_info()
        fixed, loose, mask = info
        if not mask >> (NO_CARD if card is None else card) & 1:
            return False
        bound = fixed
        if card is not None:
            m = self.hand[card]
            if m == 3 or card in self.wei or card in self.peng:
                bound += 6  # 坎/偎 → 提 or 跑, 碰 → 跑: at most +6
            elif m == 2:
                bound += _WEI_HUXI[card]  # a pair → 偎 or 碰
            loose = loose[:]
            loose[card] += 1
        for base, value in ((0, 3), (10, 6)):
            two = loose[base + 1]
            bound += value * (min(loose[base], two, loose[base + 2]) + min(two, loose[base + 6], loose[base + 9]))
            if self.yiwushi:  # 一五十 / 壹伍拾: 3 / 6 胡息 (R9.3)
                bound += value * min(loose[base], loose[base + 4], loose[base + 9])
        return bound >= min_huxi

    def partial_huxi(self) -> int:
        """R7.3: the 胡息 of the table groups plus the best partial arrangement of the hand (R6.4)."""
        best = analysis.partial_arrangement(self.hand_cards(), yiwushi=self.yiwushi)
        return sum(g.huxi for g in self.table) + best.huxi

    def chou_view(self) -> ChouKinds:
        """The 臭 kinds (R4.7), sorted."""
        no_chi, no_peng, ren = self.no_chi, self.no_peng, self.renpeng
        key = len(no_chi) << 12 | len(no_peng) << 6 | len(ren)  # the sets only grow
        known, chou = self.cview
        if known != key:
            # Rebuild only the sets that grew (a discard adds its kind to two of them).
            chi = chou.chi if len(chou.chi) == len(no_chi) else sorted_cards(no_chi)
            peng = chou.peng if len(chou.peng) == len(no_peng) else sorted_cards(no_peng)
            renpeng = chou.renpeng if len(chou.renpeng) == len(ren) else sorted_cards(ren)
            chou = ChouKinds(chi, peng, renpeng) if key else NO_CHOU
            self.cview = (key, chou)
        return chou


def sorted_cards(kinds: set[int] | frozenset[int] | list[int]) -> tuple[Card, ...]:
    """Card kinds as sorted Cards."""
    return tuple(_CARDS[k] for k in sorted(kinds))
