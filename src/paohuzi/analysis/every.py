"""Every complete arrangement of a hand (R6.1), in Python: what the regional families rank by their own points
(R6.2, R9). :func:`paohuzi.analysis.arrangements_all` calls it when the compiled accelerator is not built or not
wanted (the accelerator's ``_accel_every.pxi`` runs the same enumeration in C, in the same order).

Why not only the best of each shape (:func:`paohuzi.analysis.arrangements`): a family's points are not monotonic
in 胡息 — 衡阳十胡卡's 囤 gives 10 胡息 3 (卡胡) but 12 胡息 2 (R9.2); 全名堂's 行行息 needs every 门子 to score and
no 将, 团圆 a point held as 跑/提 in both cases (R9.1). So the family scores every reading and keeps the best.

The enumeration: the free hand cards are split the way :func:`paohuzi.analysis.pure._best_rest` searches them
(lowest card first), but every split is kept, each distinct multiset of groups once. Two groups that both hold
the lowest card could be taken in either order; only the order of the R3 shape table (the 将 first, then the
slot's candidates) is walked — after taking choice ``i`` for the lowest slot, the next group for that same slot
is choice ``i`` or later. The uses of the card won (R6.1) are :meth:`pure._Hand.options`, in its order; distinct
uses always give distinct groups (a table group joined, a 碰 or 偎 made, or the card among the free cards).

Order of the answer: most 胡息 first; equal 胡息 in the order found (the uses of the card, then the split
order above). So the first arrangement of each shape is exactly the one :func:`paohuzi.analysis.arrangements`
returns for that shape (its search keeps the first of equal 胡息 in the same order).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from paohuzi.analysis.pure import (
    _CANDIDATES_BY,
    _CARD_ONE,
    _JIANG,
    _ONE,
    _SHIFT,
    NOTHING,
    _best_rest,
    _checked_hand,
    _colours,
    _Hand,
    _waits,
)
from paohuzi.analysis.types import Arrangement, Source
from paohuzi.cards import CARDS, Card
from paohuzi.groups import Group

__all__ = ["arrangements_all", "arrangements_all_counted", "clear_cache", "every_arrangement", "waits_all_counted"]

_Split = tuple[int, tuple[Group, ...]]  # (胡息, the groups of the free cards)

# Memo of the enumeration: ((packed rest << 1 | needs pair) << 1 | shape set) << 3 | first allowed choice -> every
# split, in order.
# Kept across calls like the search's memo, up to a bound.
_MEMO: dict[int, tuple[_Split, ...]] = {}
_MEMO_LIMIT = 500_000
_GUARD = sum(4 << (3 * s) for s in range(len(_ONE)))
_BY_HUXI = attrgetter("huxi")


def clear_cache() -> None:
    """Forget the enumeration memo (:func:`paohuzi.analysis.clear_cache`)."""
    _MEMO.clear()


def _splits(packed: int, pair: int, start: int, y: int = 0) -> tuple[_Split, ...]:
    """Every split of the free cards ``packed`` into 句/绞 (and one 将 if ``pair``), as (胡息, groups), where the
    group holding the lowest card is choice ``start`` or later (choice 0 the 将, 1 + i the slot's candidate i).
    ``y``: the shape set (1: with 一五十, R9.3)."""
    key = ((packed << 1 | pair) << 1 | y) << 3 | start
    hit = _MEMO.get(key)
    if hit is not None:
        return hit
    if packed == 0:
        result: tuple[_Split, ...] = () if pair else ((0, ()),)
    else:
        slot = ((packed & -packed).bit_length() - 1) // 3
        low = 7 << (3 * slot)
        out: list[_Split] = []
        if start == 0 and pair and (packed >> (3 * slot)) & 3 >= 2:
            left = packed - 2 * _ONE[slot]
            jiang = _JIANG[slot]
            # After the 将 no second one: the next group for this slot may be any candidate.
            out.extend((huxi, (jiang, *groups)) for huxi, groups in _splits(left, 0, 0, y))
        guarded = packed | _GUARD
        candidates = _CANDIDATES_BY[y][slot]
        for i in range(max(start - 1, 0), len(candidates)):
            value, group_huxi, group = candidates[i]
            left = guarded - value
            if left & _GUARD != _GUARD:
                continue
            left ^= _GUARD
            subs = _splits(left, pair, i + 1 if left & low else 0, y)
            out.extend((group_huxi + huxi, (group, *groups)) for huxi, groups in subs)
        result = tuple(out)
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[key] = result
    return result


def every_arrangement(h: _Hand, card: int | None, source: Source, min_huxi: int) -> tuple[Arrangement, ...]:
    """Every distinct complete arrangement (R6.1) of a checked hand with at least ``min_huxi`` 胡息, most 胡息
    first (see the module's notes on the order)."""
    found: list[Arrangement] = []
    if card is None:
        options = [(h.table, h.fixed, h.base_huxi, h.fours, h.rest, h.size)]
    elif h.packed >> _SHIFT[card] & 6 == 0 and not (h.joinable >> card) & 1:
        # The common case, one use (R6.1): the card can only join the free hand cards (as in pure._Hand).
        options = [(h.table, h.fixed, h.base_huxi, h.fours, h.rest + _CARD_ONE[card], h.size + 1)]
    else:
        options = h.options(card, source)
    for table, fixed, huxi, fours, rest, size in options:
        # Groups of 3, plus 2 for the 将 (R6.1).
        if size % 3 != (2 if fours else 0):
            continue
        # The search's memoised best first: most uses of a card tried for a wait complete nothing, or too little.
        pair = 1 if fours else 0
        best = _best_rest(rest, pair, h.y)
        if best is None or huxi + best[0] < min_huxi:
            continue
        # 对对: no 句/绞 anywhere, i.e. none on the table and the rest is empty or the 将 alone.
        duidui = not h.table_mixed and size <= 2
        head = table + fixed
        for rest_huxi, groups in _splits(rest, pair, 0, h.y):
            total = huxi + rest_huxi
            if total >= min_huxi:
                found.append(Arrangement(head + groups, total, duidui))
    if len(found) > 1:
        found.sort(key=_BY_HUXI, reverse=True)  # stable: equal 胡息 keep the order found
    return tuple(found)


def arrangements_all(  # noqa: PLR0913 — the request and the shape set
    hand: Sequence[Card], table: Sequence[Group], card: Card | None, source: Source, min_huxi: int, y: int = 0
) -> tuple[Arrangement, ...]:
    """:func:`paohuzi.analysis.arrangements_all`."""
    return every_arrangement(_checked_hand(hand, table, card, source, min_huxi, y), card, source, min_huxi)


def arrangements_all_counted(  # noqa: PLR0913 — the request and the shape set
    hand: Sequence[Card], table: Sequence[Group], card: Card | None, source: Source, min_huxi: int, y: int = 0
) -> tuple[tuple[Arrangement, ...], int, int, int]:
    """:func:`paohuzi.analysis.arrangements_all_counted`."""
    h = _checked_hand(hand, table, card, source, min_huxi, y)
    found = every_arrangement(h, card, source, min_huxi)
    if not found:
        return NOTHING
    return (found, *_colours(h.in_play, card))


def waits_all_counted(
    hand: Sequence[Card], table: Sequence[Group], min_huxi: int, y: int = 0
) -> list[tuple[Card, tuple[Arrangement, ...], int, int, int]]:
    """:func:`paohuzi.analysis.waits_all_counted`."""
    h = _Hand(hand, table, y)
    return [(CARDS[k], found, *_colours(h.in_play, k)) for k, found in _waits(h, min_huxi, every_arrangement)]
