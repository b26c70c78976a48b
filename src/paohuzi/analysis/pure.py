"""The hand analysis in Python (R6.1, R6.2): the search for the best arrangement, the uses of the card won,
the waits. :mod:`paohuzi.analysis` calls it when the compiled accelerator (:mod:`paohuzi._accel`, the same
algorithm in C) is not built or not wanted, and for every input the accelerator leaves to it (bad input:
this module words the errors). Both give identical answers (tests/analysis/test_accel.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from paohuzi.analysis.types import AnalysisError, Arrangement, Source
from paohuzi.cards import CARDS, IS_BIG, IS_RED, NUM_KINDS, Card
from paohuzi.groups import MIXED_SHAPES, Group, GroupKind, Shape, is_yiwushi, mixed_shapes, partners

#: (arrangements, red cards, big cards, all cards) of a request that is not complete.
NOTHING: tuple[tuple[Arrangement, ...], int, int, int] = ((), 0, 0, 0)

# ---------------------------------------------------------------------------------------------------
# The search. Hand cards outside 坎/提 ("the rest") are packed into one int, 3 bits per card kind, with
# the kinds interleaved by point (x1 d1 x2 d2 … x10 d10) so that every group that contains the lowest
# card of the rest has all its other cards above it: the search always places the lowest card first.
# A count may reach 3 when the card won joins a hand pair without forming 碰 (R6.1). The third bit of
# each field is a guard: with it set, subtracting a group's cards leaves every guard set exactly when
# the rest holds all of them, so one subtraction and one mask test check a whole group.
# ---------------------------------------------------------------------------------------------------

_SLOT = [(k % 10) * 2 + k // 10 for k in range(NUM_KINDS)]  # card kind -> interleaved slot
_KIND = [0] * NUM_KINDS  # slot -> card kind
for _k, _s in enumerate(_SLOT):
    _KIND[_s] = _k
_ONE = [1 << (3 * s) for s in range(NUM_KINDS)]  # slot -> the packed value of one card
_CARD_ONE = [_ONE[_SLOT[k]] for k in range(NUM_KINDS)]  # card kind -> the packed value of one card
_GUARD = sum(4 << (3 * s) for s in range(NUM_KINDS))


def _build_candidates(shapes: tuple[Shape, ...] = MIXED_SHAPES) -> list[tuple[tuple[int, int, Group], ...]]:
    """For each slot, the 句 and 绞 whose lowest card sits there: (packed cards, 胡息, group).

    Derived from the R3 shape table (:data:`paohuzi.groups.MIXED_SHAPES`), in its order: within a slot,
    the consecutive 句, then 二七十, (then 一五十 with ``yiwushi``, R9.3), then the two 绞 — the search keeps the
    first of equal 胡息.
    """
    table: list[list[tuple[int, int, Group]]] = [[] for _ in range(NUM_KINDS)]
    for shape in shapes:
        slots = [_SLOT[k] for k in shape.cards]
        group = Group(shape.kind, tuple(CARDS[k] for k in shape.cards))
        table[min(slots)].append((sum(_ONE[s] for s in slots), shape.huxi, group))
    return [tuple(row) for row in table]


# The shape sets by index y (the search's variant): 0 the R3 table, 1 with 一五十 (rule option ``yiwushi``, R9.3).
_CANDIDATES_BY = (_build_candidates(mixed_shapes(False)), _build_candidates(mixed_shapes(True)))
_CANDIDATES = _CANDIDATES_BY[0]
_JIANG = [Group(GroupKind.JIANG, (CARDS[_KIND[s]],) * 2) for s in range(NUM_KINDS)]

# Memo of the search: (packed rest << 1 | needs pair) << 1 | shape set -> (best 胡息, groups) or None.
# The same rests recur across hands, waits and whole games, so it is kept across calls, up to a bound.
_Groups = tuple[Group, ...]
_MEMO: dict[int, tuple[int, _Groups] | None] = {}
_MEMO_LIMIT = 2_000_000


def clear_cache() -> None:
    """Forget the search memo (for benchmarks that measure cold analyses)."""
    _MEMO.clear()


def _best_rest(packed: int, pair: int, y: int = 0) -> tuple[int, _Groups] | None:
    """The most 胡息 the rest can score split into 句/绞 (and one 将 if ``pair``), or None if it cannot. ``y``: the
    shape set (1: with 一五十, R9.3)."""
    key = (packed << 1 | pair) << 1 | y
    hit = _MEMO.get(key, _MEMO)
    if hit is not _MEMO:
        return hit  # type: ignore[return-value]
    if packed == 0:
        result: tuple[int, _Groups] | None = None if pair else (0, ())
    else:
        slot = ((packed & -packed).bit_length() - 1) // 3
        best: tuple[int, _Groups] | None = None
        if pair and (packed >> (3 * slot)) & 3 >= 2:
            sub = _best_rest(packed - 2 * _ONE[slot], 0, y)
            if sub is not None:
                best = (sub[0], (_JIANG[slot], *sub[1]))
        guarded = packed | _GUARD
        for value, huxi, group in _CANDIDATES_BY[y][slot]:
            left = guarded - value
            if left & _GUARD == _GUARD:
                sub = _best_rest(left ^ _GUARD, pair, y)
                if sub is not None and (best is None or sub[0] + huxi > best[0]):
                    best = (sub[0] + huxi, (group, *sub[1]))
        result = best
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[key] = result
    return result


# ---------------------------------------------------------------------------------------------------
# The public API.
# ---------------------------------------------------------------------------------------------------

_TI, _PAO, _WEI, _CHOUWEI, _KAN, _PENG, _JU, _JIAO = (
    GroupKind.TI, GroupKind.PAO, GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.KAN, GroupKind.PENG, GroupKind.JU,
    GroupKind.JIAO,
)
# Every same-kind group, built once, by card kind.
_TI_G, _PAO_G, _WEI_G, _KAN_G, _PENG_G = (
    [Group(kind, (CARDS[k],) * kind.size) for k in range(NUM_KINDS)] for kind in (_TI, _PAO, _WEI, _KAN, _PENG)
)
_Option = tuple[tuple[Group, ...], tuple[Group, ...], int, int, int, int]
#: Every group object the analysis puts in arrangements besides the caller's table groups (built once, kept
#: for the life of the process): scoring keys a precomputed table on them.
SHARED_GROUPS: tuple[Group, ...] = (
    *(g for row in _CANDIDATES_BY[1] for _v, _h, g in row), *_JIANG, *_TI_G, *_PAO_G, *_WEI_G, *_KAN_G, *_PENG_G
)
_SHIFT = [3 * _SLOT[k] for k in range(NUM_KINDS)]  # card kind -> bit offset of its count in the search's packing
_LOW = sum(_ONE)  # bit 0 of every 3-bit count
# Copies in play: 6 bits per card kind, in kind order.
_SIX = [1 << (6 * k) for k in range(NUM_KINDS)]
_SIX_27 = 27 * sum(_SIX)
# Both packings in one int per card (the search's below bit 64, the copies in play above): one addition.
_BOTH = [_CARD_ONE[k] | _SIX[k] << 64 for k in range(NUM_KINDS)]
_LOW64 = (1 << 64) - 1
_SIX_TOP = 32 * sum(_SIX)


def _read_table(table: Sequence[Group], y: int = 0) -> tuple[tuple[Group, ...], int, int, bool, int, int]:
    """The table groups checked (R3: no 坎 or 将 lies on a table; 一五十 only with ``yiwushi``, R9.3), as (the
    groups, how many of four cards, their 胡息, whether a 句/绞 is among them, the joinable kinds as bits, their
    copies packed 6 bits a kind)."""
    if not table:
        return (), 0, 0, False, 0, 0
    table = tuple(table)
    six = _SIX
    fours = huxi = joinable = in_play = 0
    mixed = False
    for g in table:
        if type(g) is not Group:
            raise AnalysisError(f"not a group: {g!r}")
        kind = g.kind
        if kind is _TI or kind is _PAO:
            fours += 1
        elif kind is _JU or kind is _JIAO:
            mixed = True
            if not y and kind is _JU and is_yiwushi(g.cards):
                raise AnalysisError(f"{g} (一五十) is a 句 only with the rule option yiwushi (R9.3)")
        elif kind is _KAN or kind is GroupKind.JIANG:
            raise AnalysisError(f"{kind.value} ({kind.chinese}) cannot lie on a table: {g}")
        else:
            joinable |= 1 << g.cards[0]  # a table 偎/臭偎/碰 of kind k, which the card won may join (R6.1)
        for c in g.cards:
            in_play += six[c]
        huxi += g.huxi
    return table, fours, huxi, mixed, joinable, in_play


def _check_copies(cards: bytes, table: tuple[Group, ...], in_play: int) -> None:
    """No more than 4 of a kind in hand and on the table together (R1)."""
    # 27 added to each 6-bit count sets its top bit exactly from 5 up. With 32 cards or more a count could
    # overflow its field: count them one by one.
    if (in_play + _SIX_27) & _SIX_TOP or len(cards) + 4 * len(table) >= 32:
        counts = [0] * NUM_KINDS
        for c in (*cards, *(c for g in table for c in g.cards)):
            counts[c] += 1
        if max(counts) > 4:
            many = ", ".join(f"{counts[k]} × {CARDS[k]}" for k in range(NUM_KINDS) if counts[k] > 4)
            raise AnalysisError(f"more than 4 of a kind (hand and table together): {many} (R1)")


def _fixed_groups(packed: int) -> tuple[tuple[Group, ...], int, int, int, int]:
    """The hand's 坎 and 提, never broken (R3), as (the groups in card order, their 胡息, how many are 提,
    the packed rest, how many cards they take)."""
    fixed: list[Group] = []
    huxi = fours = taken = 0
    rest = packed
    # Kinds held 3 or 4 times: bit 2 set, or bits 0 and 1 (counts are at most 4 now).
    held3 = ((packed >> 2) | (packed >> 1 & packed)) & _LOW
    if not held3:
        return (), 0, 0, rest, 0
    kinds = []
    while held3:
        low = held3 & -held3
        kinds.append(_KIND[(low.bit_length() - 1) // 3])
        held3 ^= low
    kinds.sort()  # in card order, as the groups are listed
    for k in kinds:
        n = packed >> _SHIFT[k] & 7
        # Four in hand are a 提 (R3); three are a 坎, never broken (R3).
        g = _TI_G[k] if n == 4 else _KAN_G[k]
        fixed.append(g)
        huxi += g.huxi
        fours += n == 4
        rest -= n * _CARD_ONE[k]
        taken += n
    return tuple(fixed), huxi, fours, rest, taken


class _Hand:
    """A validated hand: counts, the fixed 坎/提 groups, the table groups. Shared by the waits of one hand."""

    __slots__ = (
        "packed", "table", "fixed", "base_huxi", "fours", "table_mixed", "rest", "size", "in_play", "joinable", "y"
    )  # fmt: skip

    def __init__(self, hand: Sequence[Card] | Sequence[int], table: Sequence[Group], y: int = 0) -> None:
        # Plain ints only (see the module's search notes): the hand as bytes (bytes() takes the cards in C;
        # indexing with IntEnum members is slower than with ints), packed two ways: 3 bits per slot for the
        # search and 6 bits per card kind for the copies in play.
        both = 0
        table_of_both = _BOTH
        try:
            cards = bytes(hand)
            for c in cards:
                both += table_of_both[c]
        except (ValueError, TypeError, IndexError):
            bad = next(c for c in hand if not isinstance(c, int) or not 0 <= c < NUM_KINDS)
            raise AnalysisError(f"not a card: {bad!r}") from None
        packed = both & _LOW64
        self.y = y  # the shape set: 1 with 一五十 (R9.3)
        self.table, fours, huxi, self.table_mixed, self.joinable, table_copies = _read_table(table, y)
        self.in_play = in_play = (both >> 64) + table_copies
        _check_copies(cards, self.table, in_play)
        self.packed = packed
        self.fixed, fixed_huxi, fixed_fours, self.rest, fixed_size = _fixed_groups(packed)
        self.base_huxi = huxi + fixed_huxi
        self.fours = fours + fixed_fours
        self.size = len(cards) - fixed_size

    def count(self, card: int) -> int:
        """Copies of a kind in hand."""
        return int(self.packed >> _SHIFT[card] & 7)

    def options(self, card: int | None, source: Source) -> list[_Option]:
        """Every way the card won may be used (R6.1), each as
        (table groups after, fixed hand groups, their 胡息, four-card groups, packed rest, rest size)."""
        table, fixed, huxi, fours, rest, size = self.table, self.fixed, self.base_huxi, self.fours, self.rest, self.size
        if card is None:
            return [(table, fixed, huxi, fours, rest, size)]
        n = self.count(card)
        own = source is Source.SELF
        joined = (_TI_G if own else _PAO_G)[card]
        if n == 3:
            # A card matching a hand 坎 always joins it: 提 on an own draw, else 跑 (R6.1).
            kan = _KAN_G[card]
            new_fixed = tuple(joined if g is kan else g for g in fixed)
            return [(table, new_fixed, huxi - kan.huxi + joined.huxi, fours + 1, rest, size)]
        one = _CARD_ONE[card]
        if own and n == 2:
            wei = _WEI_G[card]  # the forced 偎 of R4.2
            return [(table, fixed + (wei,), huxi + wei.huxi, fours, rest - 2 * one, size - 2)]
        result: list[_Option] = []
        for i, g in enumerate(table):
            if g.cards[0] != card:
                continue
            kind = g.kind
            if kind is _WEI or kind is _CHOUWEI:
                # A table 偎 takes the card as 提 (own draw, forced) or 跑 (another's card, optional).
                option = (
                    table[:i] + (joined,) + table[i + 1 :],
                    fixed,
                    huxi - g.huxi + joined.huxi,
                    fours + 1,
                    rest,
                    size,
                )
                if own:
                    return [option]
                result.append(option)
            elif kind is _PENG and source is not Source.DISCARD:
                # A table 碰 becomes 跑 only with a drawn card, never a discard (R4.2, R6.1).
                pao = _PAO_G[card]
                result.append(
                    (table[:i] + (pao,) + table[i + 1 :], fixed, huxi - g.huxi + pao.huxi, fours + 1, rest, size)
                )
        if n == 2:
            peng = _PENG_G[card]  # another's card with a hand pair (R6.1)
            result.append((table, fixed + (peng,), huxi + peng.huxi, fours, rest - 2 * one, size - 2))
        result.append((table, fixed, huxi, fours, rest + one, size + 1))
        return result

    def arrangements(self, card: int | None, source: Source, min_huxi: int) -> tuple[Arrangement, ...]:
        if card is None or (self.packed >> _SHIFT[card] & 6 == 0 and not (self.joinable >> card) & 1):
            # The common case, one option (R6.1): no card, or a card that can only join the free hand
            # cards. The same steps as the loop below, without building the options.
            if card is None:
                rest, size = self.rest, self.size
            else:
                rest, size = self.rest + _CARD_ONE[card], self.size + 1
            fours = self.fours
            if size % 3 != (2 if fours else 0):
                return ()
            found = _best_rest(rest, 1 if fours else 0, self.y)
            if found is None:
                return ()
            total = self.base_huxi + found[0]
            if total < min_huxi:
                return ()
            return (Arrangement(self.table + self.fixed + found[1], total, not self.table_mixed and size <= 2),)
        best: dict[bool, tuple[int, tuple[Group, ...], tuple[Group, ...], _Groups]] = {}
        for table, fixed, huxi, fours, rest, size in self.options(card, source):
            # Quick card-count test first: groups of 3, plus 2 for the 将 (R6.1).
            if size % 3 != (2 if fours else 0):
                continue
            found = _best_rest(rest, 1 if fours else 0, self.y)
            if found is None:
                continue
            total = huxi + found[0]
            if total < min_huxi:
                continue
            # 对对: no 句/绞 anywhere, i.e. none on the table and the rest is empty or the 将 alone.
            duidui = not self.table_mixed and size <= 2
            if duidui not in best or total > best[duidui][0]:
                best[duidui] = (total, table, fixed, found[1])
        if not best:
            return ()
        # Groups: the table as it stands after the win, then 提/坎 (and the group the card made), then the rest.
        return tuple(
            Arrangement(table + fixed + rest_groups, total, duidui)
            for duidui, (total, table, fixed, rest_groups) in (sorted(best.items()) if len(best) > 1 else best.items())
        )

    def total(self, card: int) -> int:
        """Copies of a kind already held (hand and table)."""
        return int(self.in_play >> 6 * card & 7)




def _check_card(card: Card | int | None, source: Source, min_huxi: int) -> None:
    if not isinstance(min_huxi, int):
        raise AnalysisError(f"min_huxi must be a whole number, got {min_huxi!r}")
    if not isinstance(source, Source):
        raise AnalysisError(f"source must be a Source, got {source!r}")
    if card is None:
        if source is not Source.NONE:
            raise AnalysisError(f"source {source.value!r} given without a card")
    else:
        if not isinstance(card, int) or not 0 <= card < NUM_KINDS:
            raise AnalysisError(f"not a card: {card!r}")
        if source is Source.NONE:
            raise AnalysisError(f"card {Card(card)} given with source 'none': say where it came from")



def arrangements(
    hand: Sequence[Card], table: Sequence[Group], card: Card | None, source: Source, min_huxi: int, y: int = 0
) -> tuple[Arrangement, ...]:
    """:func:`paohuzi.analysis.arrangements`."""
    return _checked_hand(hand, table, card, source, min_huxi, y).arrangements(card, source, min_huxi)


def _checked_hand(  # noqa: PLR0913 — the request and the shape set
    hand: Sequence[Card], table: Sequence[Group], card: Card | None, source: Source, min_huxi: int, y: int = 0
) -> _Hand:
    """Every check :func:`arrangements` makes (it raises nothing else), and the hand."""
    _check_card(card, source, min_huxi)
    h = _Hand(hand, table, y)
    if card is not None and h.in_play >> 6 * card & 7 >= 4:
        raise AnalysisError(f"more than 4 of a kind (hand, table and card together): 5 × {Card(card)} (R1)")
    return h


def validate(  # noqa: PLR0913 — the request and the shape set
    hand: Sequence[Card], table: Sequence[Group], card: Card | None, source: Source, min_huxi: int, y: int = 0
) -> None:
    """:func:`paohuzi.analysis.validate`."""
    _checked_hand(hand, table, card, source, min_huxi, y)


# Bit planes of the copies in play (6 bits a kind, each count ≤ 4): bit b of every red / big / any kind. A
# count is the sum over the planes of 2**b × the set bits, so three bit_count() calls count a colour.
_R0, _R1, _R2, _B0, _B1, _B2, _A0, _A1, _A2 = (
    sum(1 << (6 * k + b) for k in range(NUM_KINDS) if keep(k))
    for keep in (IS_RED.__getitem__, IS_BIG.__getitem__, lambda k: True)
    for b in range(3)
)


def _colours(in_play: int, card: int | None) -> tuple[int, int, int]:
    """(red, big, all) cards (R1) among the copies in play and the card won."""
    x = in_play
    red = (x & _R0).bit_count() + 2 * (x & _R1).bit_count() + 4 * (x & _R2).bit_count()
    big = (x & _B0).bit_count() + 2 * (x & _B1).bit_count() + 4 * (x & _B2).bit_count()
    n = (x & _A0).bit_count() + 2 * (x & _A1).bit_count() + 4 * (x & _A2).bit_count()
    if card is None:
        return red, big, n
    return red + IS_RED[card], big + IS_BIG[card], n + 1


def arrangements_counted(  # noqa: PLR0913 — the request and the shape set
    hand: Sequence[Card], table: Sequence[Group], card: Card | None, source: Source, min_huxi: int, y: int = 0
) -> tuple[tuple[Arrangement, ...], int, int, int]:
    """:func:`paohuzi.analysis.arrangements_counted`."""
    h = _checked_hand(hand, table, card, source, min_huxi, y)
    found = h.arrangements(card, source, min_huxi)
    if not found:
        return NOTHING
    return (found, *_colours(h.in_play, card))


def _waits(
    h: _Hand, min_huxi: int, arrange: Callable[[_Hand, int, Source, int], tuple[Arrangement, ...]] | None = None
) -> list[tuple[int, tuple[Arrangement, ...]]]:
    """The kinds whose own draw completes the hand, in card order, with their arrangements: the best of each
    shape, or ``arrange(h, card, source, min_huxi)``'s (every arrangement, :mod:`paohuzi.analysis.every`)."""
    out: list[tuple[int, tuple[Arrangement, ...]]] = []
    # Two exact shortcuts for a card of a kind not in hand and without a table 偎/碰 to join, whose only
    # use is among the free hand cards (R6.1): it completes nothing if the card count is wrong for whole
    # groups, or if the free cards hold no partners that make a 句 or 绞 with it (R3).
    plain_fits = (h.size + 1) % 3 == (2 if h.fours else 0)
    guarded = h.rest | _GUARD
    allowed = _unstranding_kinds(h, guarded) if plain_fits else _ALL_KINDS
    partner_values = _PARTNER_VALUES_BY[h.y]
    for k in range(NUM_KINDS):
        if h.in_play >> 6 * k & 7 >= 4:
            continue
        if not h.packed >> _SHIFT[k] & 6 and not h.joinable >> k & 1:
            # The card won can only join the free hand cards (the one-option case of R6.1).
            if not plain_fits or not allowed >> k & 1:
                continue
            if not h.packed >> _SHIFT[k] & 7:
                for need in partner_values[k]:
                    if (guarded - need) & _GUARD == _GUARD:
                        break
                else:
                    continue
        found = h.arrangements(k, Source.SELF, min_huxi) if arrange is None else arrange(h, k, Source.SELF, min_huxi)
        if found:
            out.append((k, found))
    return out


def waits(
    hand: Sequence[Card], table: Sequence[Group], min_huxi: int, y: int = 0
) -> dict[Card, tuple[Arrangement, ...]]:
    """:func:`paohuzi.analysis.waits`."""
    return {CARDS[k]: found for k, found in _waits(_Hand(hand, table, y), min_huxi)}


def waits_counted(
    hand: Sequence[Card], table: Sequence[Group], min_huxi: int, y: int = 0
) -> list[tuple[Card, tuple[Arrangement, ...], int, int, int]]:
    """:func:`paohuzi.analysis.waits_counted`."""
    h = _Hand(hand, table, y)
    return [(CARDS[k], found, *_colours(h.in_play, k)) for k, found in _waits(h, min_huxi)]


def _unstranding_kinds(h: _Hand, guarded: int) -> int:
    """The kinds (as bits) that a card joining only the free hand cards may be: every free card must end in a
    group, and a free card that no 句/绞 (or 将) of the free cards can hold stays stranded unless the card won
    is one of its partners (or its own kind), so that card must be a partner of every stranded card (R3, R6.1).
    """
    allowed = _ALL_KINDS
    pair = bool(h.fours)
    shape_values, near = _SHAPE_VALUES_BY[h.y], _NEAR_BY[h.y]
    r = h.rest
    while r:
        low = r & -r
        slot = (low.bit_length() - 1) // 3
        kind = _KIND[slot]
        if not (pair and r >> 3 * slot & 6):
            for need in shape_values[kind]:
                if (guarded - need) & _GUARD == _GUARD:
                    break
            else:
                allowed &= near[kind]
                if not allowed:
                    break
        r &= ~(7 << 3 * slot)
    return allowed


# Per card kind: the two other cards of each 句/绞 it belongs to (R3 shape table), packed like the search's
# rest; the same with the card itself (the whole group); and the kinds that can share a group with it.
# By shape set (y 1: with 一五十, R9.3).
_PARTNER_VALUES_BY = tuple(
    [tuple(_CARD_ONE[a] + _CARD_ONE[b] for a, b in partners(y)[k]) for k in range(NUM_KINDS)] for y in (False, True)
)
_SHAPE_VALUES_BY = tuple(
    [tuple(_CARD_ONE[k] + v for v in pv[k]) for k in range(NUM_KINDS)] for pv in _PARTNER_VALUES_BY
)
_NEAR_BY = tuple(
    [(1 << k) | sum({1 << x for pair in partners(y)[k] for x in pair}) for k in range(NUM_KINDS)] for y in (False, True)
)
_ALL_KINDS = (1 << NUM_KINDS) - 1


def accel_tables(y: int = 0) -> dict[str, Any]:
    """Everything the compiled accelerator takes from this module (``paohuzi._accel.setup``): one source of truth.
    ``y``: the shape set (1: with 一五十, for ``paohuzi._accel_yiwushi``, R9.3)."""
    return {
        "Arrangement": Arrangement,
        "Group": Group,
        "CARDS": CARDS,
        "kinds": (_TI, _PAO, _WEI, _CHOUWEI, _KAN, _PENG, _JU, _JIAO, GroupKind.JIANG),
        "sources": (Source.NONE, Source.SELF, Source.OTHER, Source.DISCARD),
        "GUARD": _GUARD,
        "LOW": _LOW,
        "ONE": _ONE,
        "CARD_ONE": _CARD_ONE,
        "SHIFT": _SHIFT,
        "KIND": _KIND,
        "CANDIDATES": _CANDIDATES_BY[y],
        "YIWUSHI": bool(y),
        "JIANG": _JIANG,
        "TI": _TI_G,
        "PAO": _PAO_G,
        "WEI": _WEI_G,
        "KAN": _KAN_G,
        "PENG": _PENG_G,
        "PARTNER_VALUES": _PARTNER_VALUES_BY[y],
        "SHAPE_VALUES": _SHAPE_VALUES_BY[y],
        "NEAR": _NEAR_BY[y],
        "IS_RED": IS_RED,
        "IS_BIG": IS_BIG,
    }
