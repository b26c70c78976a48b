"""A brute-force reference for the hand analysis of R6.1, R6.2 and R6.4.

Written from ``docs/rules.md`` and the public API of :mod:`paohuzi.analysis` only, independently of its
algorithm. It is slow on purpose: it enumerates **every** arrangement of the cards, and the best of each
shape is simply the maximum. Keep it simple and obviously right; speed does not matter here.

R6.1, as implemented here:

- Four of a kind in hand are a 提 (``ti``); three of a kind in hand are a 坎 (``kan``), never broken (R3).
- The card won (if any) is used in one of these ways:

  ======================================  ==========================================================
  the card matches                        use
  ======================================  ==========================================================
  a hand 坎                               must join it: 提 (own draw) or 跑 (another's card)
  a hand pair, own draw                   must join it: 偎
  a table 偎/臭偎, own draw               must join it: 提
  a table 偎/臭偎, another's card         may join it: 跑
  a table 碰, a drawn card (self/other)   may join it: 跑 (never a discard)
  a hand pair, another's card             may join it: 碰
  (anything not forced above)             may join the free hand cards in a 句, 绞 or the 将
  ======================================  ==========================================================

- The other hand cards (outside 提/坎) all go into 句 (consecutive points of one case, or 二七十; with the
  option ``yiwushi`` of R9.3 also 一五十 / 壹伍拾), 绞
  (one point, two of one case and one of the other) or the 将 pair.
- Exactly one 将 when any 提 or 跑 is among all groups after the win (table, hand fours, the card's
  group); no 将 otherwise.
- Table groups keep their kind and 胡息 unless the card joins them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from paohuzi.cards import NUM_KINDS, Card
from paohuzi.groups import Group, GroupKind

__all__ = [
    "FREE_GROUPS",
    "RefArrangement",
    "all_arrangements",
    "arrangement_key",
    "best_by_shape",
    "card_uses",
    "ref_dealt_tianhu",
    "ref_partial_huxi",
    "ref_tianhu_huxi",
    "ref_waits",
]

# Source names, so this module does not need paohuzi.analysis.Source: "none", "self", "other", "discard".
NONE, SELF, OTHER, DISCARD = "none", "self", "other", "discard"


def _templates() -> list[Group]:
    """Every 句, 绞 and 将 that can be made of the 20 card kinds."""
    out: list[Group] = []
    for big in (False, True):
        for p in range(1, 9):
            out.append(Group(GroupKind.JU, tuple(Card.of(q, big) for q in (p, p + 1, p + 2))))
        out.append(Group(GroupKind.JU, tuple(Card.of(q, big) for q in (2, 7, 10))))
    for p in range(1, 11):
        x, d = Card.of(p, False), Card.of(p, True)
        out.append(Group(GroupKind.JIAO, (x, x, d)))
        out.append(Group(GroupKind.JIAO, (x, d, d)))
    for k in Card:
        out.append(Group(GroupKind.JIANG, (k, k)))
    return out


#: Every group that free hand cards can form (R3: 句, 绞, 将).
FREE_GROUPS: tuple[Group, ...] = tuple(_templates())
#: 一五十 and 壹伍拾 (R9.3, option ``yiwushi``): a 句 of 3 / 6 胡息.
YIWUSHI_GROUPS: tuple[Group, ...] = tuple(
    Group(GroupKind.JU, tuple(Card.of(q, big) for q in (1, 5, 10))) for big in (False, True)
)

# For each group: the card counts it needs.
_NEEDS: dict[Group, tuple[tuple[int, int], ...]] = {}
for _g in FREE_GROUPS + YIWUSHI_GROUPS:
    _need: dict[int, int] = {}
    for _c in _g.cards:
        _need[int(_c)] = _need.get(int(_c), 0) + 1
    _NEEDS[_g] = tuple(_need.items())

# The groups containing each card kind.
_CONTAINING: list[list[Group]] = [[g for g in FREE_GROUPS if k in g.cards] for k in Card]
_CONTAINING_YIWUSHI: list[list[Group]] = [[g for g in FREE_GROUPS + YIWUSHI_GROUPS if k in g.cards] for k in Card]


def free_partitions(counts: list[int], max_jiang: int, yiwushi: bool = False) -> Iterator[list[Group]]:
    """Every partition of the cards counted in ``counts`` into 句/绞/将, with at most ``max_jiang`` 将.

    The lowest card kind present must lie in some group; try every group that holds it, then recurse.
    A partition may come out more than once (in another order). ``counts`` is restored before returning.
    """
    k = next((i for i in range(NUM_KINDS) if counts[i]), None)
    if k is None:
        yield []
        return
    for g in (_CONTAINING_YIWUSHI if yiwushi else _CONTAINING)[k]:
        is_jiang = g.kind is GroupKind.JIANG
        if is_jiang and max_jiang == 0:
            continue
        need = _NEEDS[g]
        if all(counts[c] >= n for c, n in need):
            for c, n in need:
                counts[c] -= n
            for rest in free_partitions(counts, max_jiang - is_jiang, yiwushi):
                yield [g, *rest]
            for c, n in need:
                counts[c] += n


@dataclass(frozen=True)
class Use:
    """One way to use the card won: the table after it, the fixed hand groups, the free hand cards."""

    table: tuple[Group, ...]
    fixed: tuple[Group, ...]
    free: tuple[int, ...]  # 20 counts


def _same(kind: GroupKind, card: Card, n: int) -> Group:
    return Group(kind, (card,) * n)


def check_counts(hand: Sequence[Card], table: Sequence[Group], card: Card | None) -> list[int]:
    """All cards counted by kind; raises ValueError on more than 4 of a kind (R1)."""
    counts = [0] * NUM_KINDS
    for c in hand:
        counts[c] += 1
    for g in table:
        for c in g.cards:
            counts[c] += 1
    if card is not None:
        counts[card] += 1
    if max(counts) > 4:
        raise ValueError("more than 4 of a kind")
    return counts


def card_uses(hand: Sequence[Card], table: Sequence[Group], card: Card | None, source: str) -> list[Use]:
    """Every way the card won may be used (R6.1), each with the groups it fixes."""
    check_counts(hand, table, card)
    counts = [0] * NUM_KINDS
    for c in hand:
        counts[c] += 1
    fixed: list[Group] = []
    free = list(counts)
    for k in Card:
        if counts[k] == 4:
            fixed.append(_same(GroupKind.TI, k, 4))
            free[k] = 0
        elif counts[k] == 3:
            fixed.append(_same(GroupKind.KAN, k, 3))
            free[k] = 0
    table = tuple(table)
    if card is None:
        return [Use(table, tuple(fixed), tuple(free))]
    own = source == SELF
    h = counts[card]
    if h == 3:  # must join the 坎
        kan = _same(GroupKind.KAN, card, 3)
        rest = list(fixed)
        rest.remove(kan)
        four = _same(GroupKind.TI if own else GroupKind.PAO, card, 4)
        return [Use(table, (*rest, four), tuple(free))]
    wei_at = [i for i, g in enumerate(table) if g.kind in (GroupKind.WEI, GroupKind.CHOUWEI) and g.card == card]
    peng_at = [i for i, g in enumerate(table) if g.kind is GroupKind.PENG and g.card == card]

    def replace(i: int, kind: GroupKind) -> tuple[Group, ...]:
        return (*table[:i], _same(kind, card, 4), *table[i + 1 :])

    def without_pair() -> tuple[int, ...]:
        f = list(free)
        f[card] -= 2
        return tuple(f)

    if own and h == 2:  # must 偎
        return [Use(table, (*fixed, _same(GroupKind.WEI, card, 3)), without_pair())]
    if own and wei_at:  # must 提
        return [Use(replace(wei_at[0], GroupKind.TI), tuple(fixed), tuple(free))]
    joined = list(free)
    joined[card] += 1
    uses = [Use(table, tuple(fixed), tuple(joined))]
    if source in (OTHER, DISCARD) and wei_at:
        uses.append(Use(replace(wei_at[0], GroupKind.PAO), tuple(fixed), tuple(free)))
    if source in (SELF, OTHER) and peng_at:
        uses.append(Use(replace(peng_at[0], GroupKind.PAO), tuple(fixed), tuple(free)))
    if source in (OTHER, DISCARD) and h == 2:
        uses.append(Use(table, (*fixed, _same(GroupKind.PENG, card, 3)), without_pair()))
    return uses


@dataclass(frozen=True)
class RefArrangement:
    groups: tuple[Group, ...]
    huxi: int
    duidui: bool


def arrangement_key(groups: Sequence[Group]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """An order-free key of a list of groups (a multiset of groups)."""
    return tuple(sorted((g.kind.value, tuple(int(c) for c in g.cards)) for g in groups))


def all_arrangements(
    hand: Sequence[Card],
    table: Sequence[Group] = (),
    card: Card | None = None,
    source: str = NONE,
    yiwushi: bool = False,
) -> Iterator[RefArrangement]:
    """Every complete arrangement (R6.1) of the cards, whatever its 胡息 (``yiwushi``: 一五十 is a 句, R9.3)."""
    for use in card_uses(hand, table, card, source):
        base = (*use.table, *use.fixed)
        need_jiang = any(g.kind.four for g in base)
        for part in free_partitions(list(use.free), 1 if need_jiang else 0, yiwushi):
            n_jiang = sum(g.kind is GroupKind.JIANG for g in part)
            if n_jiang != (1 if need_jiang else 0):
                continue
            groups = (*base, *part)
            yield RefArrangement(groups, sum(g.huxi for g in groups), all(g.kind.same_kind for g in groups))


def best_by_shape(
    hand: Sequence[Card],
    table: Sequence[Group] = (),
    card: Card | None = None,
    source: str = NONE,
    *,
    min_huxi: int = 15,
    yiwushi: bool = False,
) -> dict[bool, int]:
    """{duidui: the best 胡息 of that shape}, only for shapes reaching ``min_huxi``; {} if incomplete."""
    best: dict[bool, int] = {}
    for a in all_arrangements(hand, table, card, source, yiwushi):
        if a.huxi >= min_huxi and a.huxi > best.get(a.duidui, -1):
            best[a.duidui] = a.huxi
    return best


def ref_waits(
    hand: Sequence[Card], table: Sequence[Group] = (), *, min_huxi: int = 15, yiwushi: bool = False
) -> dict[Card, dict[bool, int]]:
    """听牌: each kind (still drawable) whose own draw completes the hand, with its best 胡息 per shape."""
    counts = check_counts(hand, table, None)
    out: dict[Card, dict[bool, int]] = {}
    for k in Card:
        if counts[k] < 4:
            best = best_by_shape(hand, table, k, SELF, min_huxi=min_huxi, yiwushi=yiwushi)
            if best:
                out[k] = best
    return out


@functools.lru_cache(maxsize=1 << 16)
def _partial_best(counts: tuple[int, ...], yiwushi: bool = False) -> int:
    """The most 胡息 that some 句/绞/将 groups of these cards score, the rest left loose (memoised); with
    ``yiwushi`` 一五十 is a 句 too (R9.3)."""
    k = next((i for i in range(NUM_KINDS) if counts[i]), None)
    if k is None:
        return 0
    # Either one copy of the lowest kind stays loose…
    left = list(counts)
    left[k] -= 1
    best = _partial_best(tuple(left), yiwushi)
    # …or it lies in some group.
    for g in (_CONTAINING_YIWUSHI if yiwushi else _CONTAINING)[k]:
        rest = list(counts)
        for c, n in _NEEDS[g]:
            rest[c] -= n
        if min(rest) >= 0:
            best = max(best, g.huxi + _partial_best(tuple(rest), yiwushi))
    return best


def ref_partial_huxi(cards: Sequence[Card], *, keep_kan: bool, yiwushi: bool = False) -> int:
    """The 胡息 of the best partial arrangement (R6.4) of ``cards``.

    With ``keep_kan``, three or four of a kind are a 坎 or 提 (never broken); otherwise any copies may
    go into 句/绞 as well (and three/four of a kind may still be taken as 坎/提).
    """
    counts = [0] * NUM_KINDS
    for c in cards:
        counts[c] += 1
    if keep_kan:
        fixed = 0
        for k in Card:
            if counts[k] >= 3:
                fixed += _same(GroupKind.TI if counts[k] == 4 else GroupKind.KAN, k, counts[k]).huxi
                counts[k] = 0
        return fixed + _partial_best(tuple(counts), yiwushi)

    def rec(k: int) -> int:  # choose, for each kind with 3+, a 坎/提 or not
        while k < NUM_KINDS and counts[k] < 3:
            k += 1
        if k == NUM_KINDS:
            return _partial_best(tuple(counts))
        best = rec(k + 1)
        n = counts[k]
        huxi = _same(GroupKind.TI if n == 4 else GroupKind.KAN, Card(k), n).huxi
        counts[k] = 0
        best = max(best, huxi + rec(k + 1))
        if n == 4:  # a 坎 of three, the fourth free
            counts[k] = 1
            best = max(best, _same(GroupKind.KAN, Card(k), 3).huxi + rec(k + 1))
        counts[k] = n
        return best

    return rec(0)


def ref_dealt_tianhu(hand: Sequence[Card], table: Sequence[Group] = ()) -> bool:
    """R6.4: 3+ 提 (table 提 and hand fours), or 5+ kinds held three or four times (table 提 included)."""
    counts = [0] * NUM_KINDS
    for c in hand:
        counts[c] += 1
    tis = sum(g.kind is GroupKind.TI for g in table) + sum(n == 4 for n in counts)
    held = sum(n >= 3 for n in counts) + sum(g.kind is GroupKind.TI for g in table)
    return tis >= 3 or held >= 5


def ref_tianhu_huxi(hand: Sequence[Card], table: Sequence[Group] = ()) -> int:
    """R6.4: table groups + hand 提/坎 + the best partial arrangement of the rest."""
    return sum(g.huxi for g in table) + ref_partial_huxi(hand, keep_kan=True)
