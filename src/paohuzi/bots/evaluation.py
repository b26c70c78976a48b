"""Hand evaluation for the bots: how far a hand is from complete, what it can still score, what it needs.

The greedy bot (and through it the search bot's rollouts) judges a position by four numbers:

- **distance** (向听-like): the fewest cards the hand still needs to become complete (R6.1) with at least
  ``min_huxi`` 胡息, minus one — so 0 is 听牌 (one card wins) and −1 a complete hand. It is the minimum, over
  every way of splitting the hand cards into whole groups (句, 绞, 坎), partial groups (a pair, two cards
  of a 句 or 绞) and seeds (one card), of the cards those partial groups and seeds still miss. Cards left
  out are discarded on the way. A hand short of 胡息 pays one card per 3 胡息 missing.
- **useful**: how many still-unseen cards would bring the distance down (进张, counted with their
  copies): a hand waiting on dead cards is worth less than one waiting on live ones.
- **huxi**: the 胡息 the best split could reach (table groups, 坎, whole groups, and partial groups
  counted as they would score once complete).
- **shape distance**: the distance without the 胡息 minimum; at 0 the caller asks
  :func:`paohuzi.analysis.waits` for the exact winning cards.

Everything works on counts of the 20 card kinds and the table groups, so the search bot can call it on
sampled worlds as cheaply as on the real one. The split search is memoised across calls; when the optional
compiled module :mod:`paohuzi._accel_bots` is built (and ``PAOHUZI_PURE=1`` is not set) it runs the same
search in C (:data:`ACCELERATED`; identical answers, tests/bots/test_evaluation_accel.py).

>>> from paohuzi.cards import parse_cards, counts_of
>>> hand = counts_of(parse_cards("x1 x2 x3 x2 x7 x10 d4 d5 d6 d8 d8 d8 x4 x5 x6 d2 d7 d10 x9 x9"))
>>> distance(hand, (), 15)
0
>>> low = counts_of(parse_cards("x1 x2 x3 x4 x5 x6 d4 d5 d6 d8 d9 d10 x4 x5 x6 d2 d7 d10 x9 x9"))
>>> distance(low, (), 0), distance(low, (), 15)  # one card from complete, but only 9 胡息 (+2 for the pair)
(0, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from paohuzi.cards import NUM_KINDS
from paohuzi.groups import MIXED_SHAPES, SAME_KIND_HUXI, Group, GroupKind, partners, same_kind_huxi

__all__ = [
    "distance",
    "reach",
    "reach3",
    "hand_groups_needed",
    "needs_pair",
    "useful_cards",
    "partner_kinds",
    "clear_cache",
    "ACCELERATED",
]

# Card kinds are packed 3 bits each in the interleaved order x1 d1 x2 d2 … x10 d10 (like analysis/pure.py):
# every group or partial group that contains the lowest card of the rest has its other cards above it.
_SLOT = [(k % 10) * 2 + k // 10 for k in range(NUM_KINDS)]  # kind -> slot
_KIND = [0] * NUM_KINDS  # slot -> kind
for _k, _s in enumerate(_SLOT):
    _KIND[_s] = _k
_BITS = 3
_MASK = (1 << _BITS) - 1
_ONE = [1 << (_BITS * s) for s in range(NUM_KINDS)]

#: Missing 胡息 cost this many 胡息 per card of distance (a scoring group in place of a plain one).
HUXI_PER_CARD = 3


_SlotGroups = list[list[tuple[int, tuple[int, ...], int]]]


def _build() -> tuple[_SlotGroups, _SlotGroups, list[int], list[int]]:
    """Per slot: whole groups and two-card partial groups whose lowest card is there, and the 胡息 a pair or a
    single card there could grow into. All derived from the R3 shape table (:data:`paohuzi.groups.MIXED_SHAPES`).
    """
    wholes: list[list[tuple[tuple[bool, tuple[int, ...]], int]]] = [[] for _ in range(NUM_KINDS)]
    partial_huxi: dict[tuple[int, int], int] = {}  # two slots (low, high) -> 胡息 of their best completion
    single = [0] * NUM_KINDS
    for shape in MIXED_SHAPES:
        slots = tuple(sorted(_SLOT[k] for k in shape.cards))
        wholes[slots[0]].append(((shape.kind is GroupKind.JIAO, slots), shape.huxi))
        for i, j in ((0, 1), (0, 2), (1, 2)):
            if slots[i] != slots[j]:  # a pair is not a partial 句/绞: it has its own cost below
                key = (slots[i], slots[j])
                partial_huxi[key] = max(partial_huxi.get(key, 0), shape.huxi)
        for s in slots:
            single[s] = max(single[s], shape.huxi)
    out_wholes: _SlotGroups = [[] for _ in range(NUM_KINDS)]
    out_partials: _SlotGroups = [[] for _ in range(NUM_KINDS)]
    for slot in range(NUM_KINDS):
        # 句 before 绞, each by slots: the order the search tries them in.
        for (_, slots), huxi in sorted(wholes[slot]):
            out_wholes[slot].append((sum(_ONE[s] for s in slots), slots, huxi))
    for (low, high), huxi in sorted(partial_huxi.items()):
        out_partials[low].append((_ONE[low] + _ONE[high], (low, high), huxi))
    # A pair grows into 碰 (1/3) or 偎 (3/6): counted in between.
    peng, wei = SAME_KIND_HUXI[GroupKind.PENG], SAME_KIND_HUXI[GroupKind.WEI]
    pair_huxi = [(peng[slot & 1] + wei[slot & 1]) // 2 for slot in range(NUM_KINDS)]
    return out_wholes, out_partials, pair_huxi, single


_WHOLES, _PARTIALS, _PAIR_HUXI, _SINGLE_HUXI = _build()

# The split search returns, for every number g = 0 … 7 of groups the cards must form, the best split as
# one int: cards still needed × _U − 胡息 reached (so the smallest int is the fewest cards, then the most 胡息).
# The eight values travel packed in one int, _W bits each (value + _OFFSET, top bit clear), so that adding
# a cost to all of them is one addition and their pairwise minima a few bit operations (see _search).
_U = 256
_G = 8
_W = 20
_OFFSET = 1 << 16  # values stay within ±_OFFSET, so every field stays within 0 … 2^(_W−1)
_ONES = sum(1 << (_W * g) for g in range(_G))
_TOPS = _ONES << (_W - 1)  # the top bit of every field
_ALL = (1 << (_W * _G)) - 1
_NONE = (1 << (_W - 1)) - 1  # larger than any value: "no split" in field 0 after a shift


def _pack(values: Sequence[int]) -> int:
    return sum((v + _OFFSET) << (_W * g) for g, v in enumerate(values))


_BASE = (_pack([3 * g * _U for g in range(_G)]), _pack([(3 * g + 2) * _U for g in range(_G)]))
# Per slot: whole groups as (packed value, ((slot, count), …), −胡息 for every g); partial groups as
# (value, other slot, cost for every g).
# A whole group fits in ``packed`` when ((packed | _FOURS) − value) & _FOURS == _FOURS: with 4 added to
# every 3-bit field (they hold at most 3 cards), no subtraction of a count ≤ 3 borrows across fields, and
# bit 2 of a field stays set exactly where the hand holds as many cards as the group needs.
_FOURS = sum(4 << (_BITS * s) for s in range(NUM_KINDS))
_WHOLE_NEEDS = [[(v, -h * _ONES) for v, _, h in _WHOLES[slot]] for slot in range(NUM_KINDS)]
# Partial groups: (value, the 3-bit field of their other card, cost for every g).
_PARTIAL_COSTS = [
    [(v, _MASK << (_BITS * slots[1]), (_U - h) * _ONES) for v, slots, h in _PARTIALS[slot]] for slot in range(NUM_KINDS)
]
_PAIR_COST = [(_U - h) * _ONES for h in _PAIR_HUXI]
_SINGLE_COST = [(2 * _U - h) * _ONES for h in _SINGLE_HUXI]
_SEED_OF_PAIR = _U * _ONES
_MEMO: dict[int, int] = {}
_MEMO_LIMIT = 1_000_000


def accel_tables() -> dict[str, Any]:
    """Everything the compiled split search takes from this module (``paohuzi._accel_bots.setup``), unpacked:
    one source of truth for the costs."""
    return {
        "bits": _BITS,
        "groups": _G,
        "wholes": [[(v, -h) for v, _, h in _WHOLES[slot]] for slot in range(NUM_KINDS)],
        "partials": [
            [(v, _MASK << (_BITS * slots[1]), _U - h) for v, slots, h in _PARTIALS[slot]] for slot in range(NUM_KINDS)
        ],
        "pair_cost": [_U - h for h in _PAIR_HUXI],
        "single_cost": [2 * _U - h for h in _SINGLE_HUXI],
        "seed_of_pair": _U,
        "base": [[3 * g * _U for g in range(_G)], [(3 * g + 2) * _U for g in range(_G)]],
    }


def _load_accelerator() -> ModuleType | None:
    """The compiled split search, set up with this module's tables, or None (not built, stale, or
    ``PAOHUZI_PURE=1``)."""
    try:
        from paohuzi import _accel_bots  # type: ignore[attr-defined]  # compiled; absent without a C compiler
    except ImportError:
        return None
    if not _accel_bots.usable():
        return None
    _accel_bots.setup(accel_tables())
    return _accel_bots  # type: ignore[no-any-return]


_ACCEL = _load_accelerator()
#: True when the compiled split search answers (the tests check it is loaded whenever it was built).
ACCELERATED: bool = _ACCEL is not None


def clear_cache() -> None:
    """Forget the memo of the split search (for benchmarks)."""
    _MEMO.clear()
    if _ACCEL is not None:
        _ACCEL.clear()


def _field(packed: int, pair: int, groups: int) -> int:
    """Field ``groups`` of :func:`_search`, unpacked: ``needed × 256 − 胡息`` of the best split into that many
    groups (the compiled search when loaded)."""
    if _ACCEL is not None:
        found: int | None = _ACCEL.field(packed, pair, groups)
        if found is not None:
            return found
    return (_search(packed, pair) >> (_W * groups) & _NONE) - _OFFSET


def _search(packed: int, pair: int) -> int:
    """The best split of ``packed`` (and a 将 if ``pair``) into g groups, for every g: whole groups (句, 绞),
    partial groups (a pair, two cards of a 句 or 绞: one card missing) and seeds (one card: two missing);
    cards left out are discarded on the way. Field g of the result is ``needed × 256 − 胡息`` + _OFFSET.

    The minimum of two packed results, field by field: with every top bit set in ``a``, ``a − b`` keeps a
    field's top bit exactly where that field of ``a`` is ≥ that of ``b`` (no borrow crosses fields); those
    fields take ``b``'s value.
    """
    key = packed << 1 | pair
    hit = _MEMO.get(key)
    if hit is not None:
        return hit
    if packed == 0:
        result = _BASE[pair]
    else:
        low = packed & -packed
        slot = (low.bit_length() - 1) // _BITS
        count = (packed >> (_BITS * slot)) & _MASK
        one = _ONE[slot]
        left_out = _search(packed - one, pair)  # the card is left out
        # best: this card starts a group (a seed, a whole or partial group, a pair) and g groups come from
        # the rest. The seed first: the same child as leaving the card out.
        best = left_out + _SINGLE_COST[slot]
        fours = packed | _FOURS
        for value, gain in _WHOLE_NEEDS[slot]:
            if (fours - value) & _FOURS == _FOURS:
                child = _search(packed - value, pair) + gain
                ge = ((best | _TOPS) - child) & _TOPS
                best ^= (best ^ child) & (ge - (ge >> (_W - 1)))
        for value, other, cost in _PARTIAL_COSTS[slot]:
            if packed & other:
                child = _search(packed - value, pair) + cost
                ge = ((best | _TOPS) - child) & _TOPS
                best ^= (best ^ child) & (ge - (ge >> (_W - 1)))
        if count >= 2:
            child = _search(packed - 2 * one, pair) + _PAIR_COST[slot]
            ge = ((best | _TOPS) - child) & _TOPS
            best ^= (best ^ child) & (ge - (ge >> (_W - 1)))
        # Field g ≥ 1 of the result: the better of leaving the card out and field g − 1 of best.
        child = (best << _W) & _ALL | _NONE
        r = left_out
        ge = ((r | _TOPS) - child) & _TOPS
        r ^= (r ^ child) & (ge - (ge >> (_W - 1)))
        if pair:
            # The card as the 将: with its twin, or as a seed waiting for one.
            if count >= 2:
                child = _search(packed - 2 * one, 0)
                ge = ((r | _TOPS) - child) & _TOPS
                r ^= (r ^ child) & (ge - (ge >> (_W - 1)))
            child = _search(packed - one, 0) + _SEED_OF_PAIR
            ge = ((r | _TOPS) - child) & _TOPS
            r ^= (r ^ child) & (ge - (ge >> (_W - 1)))
        result = r
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[key] = result
    return result


_FOUR = (GroupKind.TI, GroupKind.PAO)


def needs_pair(counts: Sequence[int], table: Sequence[Group]) -> bool:
    """True if a win needs a 将 pair: the player has a 提 or 跑 (R6.1), on the table or four in hand."""
    return any(g.kind in _FOUR for g in table) or any(n == 4 for n in counts)


def hand_groups_needed(table: Sequence[Group], pair: bool, groups: int = 7) -> int:
    """How many 3-card groups the hand must still form: ``groups`` in all (七方门子, R6.1; 5 on 15-card hands,
    R9.3: ``RuleSet.complete_groups``), the 将 one of them."""
    return max(0, groups - len(table) - (1 if pair else 0))


_TI, _PAO = _FOUR
_KAN_HUXI = [same_kind_huxi(GroupKind.KAN, k) for k in range(NUM_KINDS)]
_TI_HUXI = [same_kind_huxi(GroupKind.TI, k) for k in range(NUM_KINDS)]
_ONE_OF_KIND = [_ONE[_SLOT[k]] for k in range(NUM_KINDS)]


def _shape(counts: Sequence[int], table: Sequence[Group], total: int) -> tuple[int, int]:
    """(cards needed for the shape, 胡息 reached) of the best split into ``total`` 门子 in all (7, R6.1; 5 on
    15-card hands, R9.3)."""
    pair = False
    huxi = 0
    for g in table:
        huxi += g.huxi
        kind = g.kind
        if kind is _TI or kind is _PAO:  # identity: a GroupKind's hash is a Python-level call
            pair = True
    groups = total - len(table)
    packed = 0
    k = 0
    for n in counts:
        if n:
            if n >= 3:
                # 坎 / four in hand: a whole group that is never broken (R3); four call for a 将 (R6.1).
                groups -= 1
                if n == 3:
                    huxi += _KAN_HUXI[k]
                else:
                    huxi += _TI_HUXI[k]
                    pair = True
            else:
                packed += n * _ONE_OF_KIND[k]
        k += 1
    if pair:
        groups -= 1
    if groups < 0:
        groups = 0
    v = _field(packed, 1 if pair else 0, groups)
    shape = -(-v // _U)
    return shape, huxi + shape * _U - v


# 一五十 / 壹伍拾 (R9.3): the kinds of each case's group and its 胡息.
_YIWUSHI = (((0, 4, 9), 3), ((10, 14, 19), 6))


def _split(
    counts: Sequence[int], table: Sequence[Group], min_huxi: int, total: int = 7, yiwushi: bool = False
) -> tuple[int, int, int]:
    """(cards needed, 胡息 reached, cards needed for the shape alone) of the best split into ``total`` 门子 in
    all; a 胡息 shortfall costs a card per 3. With ``yiwushi`` (R9.3) the split search, whose shapes are R3's,
    is run again with every number of whole 一五十 / 壹伍拾 taken out first (never from a 坎); a partial 一五十
    is not counted."""
    shape, huxi = _shape(counts, table, total)
    best = (shape + _shortfall(huxi, min_huxi), -huxi)
    best_shape = shape
    if yiwushi:
        (small, small_huxi), (big, big_huxi) = _YIWUSHI
        n_small = min(counts[k] if counts[k] < 3 else 0 for k in small)
        n_big = min(counts[k] if counts[k] < 3 else 0 for k in big)
        for i in range(n_small + 1):
            for j in range(n_big + 1):
                if not i and not j:
                    continue
                work = list(counts)
                for k in small:
                    work[k] -= i
                for k in big:
                    work[k] -= j
                shape, huxi = _shape(work, table, total - i - j)
                huxi += i * small_huxi + j * big_huxi
                best = min(best, (shape + _shortfall(huxi, min_huxi), -huxi))
                best_shape = min(best_shape, shape)
    return best[0], -best[1], best_shape


def _shortfall(huxi: int, min_huxi: int) -> int:
    """Cards a 胡息 shortfall costs: one per 3 胡息 missing."""
    return (min_huxi - huxi + HUXI_PER_CARD - 1) // HUXI_PER_CARD if huxi < min_huxi else 0


def distance(
    counts: Sequence[int], table: Sequence[Group], min_huxi: int = 15, groups: int = 7, yiwushi: bool = False
) -> int:
    """向听: the cards the hand still needs to be complete with ``min_huxi`` 胡息, minus one (0 = 听牌).

    ``counts`` are the 20 hand counts as they stand *waiting* (after the discard); −1 means the cards are
    complete already. An estimate for far hands (partial groups are assumed completable); exact near 0.
    ``groups``: the 门子 of a complete hand (``RuleSet.complete_groups``: 7, or 5 on 15-card hands, R9.3), and
    ``yiwushi``: 一五十 is a 句 (R9.3), here and in the functions below.
    """
    return _split(counts, table, min_huxi, groups, yiwushi)[0] - 1


def reach(
    counts: Sequence[int], table: Sequence[Group], min_huxi: int = 15, groups: int = 7, yiwushi: bool = False
) -> tuple[int, int]:
    """``(distance, 胡息 reachable)`` of :func:`distance`'s best split."""
    needed, huxi, _ = _split(counts, table, min_huxi, groups, yiwushi)
    return needed - 1, huxi


def reach3(
    counts: Sequence[int], table: Sequence[Group], min_huxi: int = 15, groups: int = 7, yiwushi: bool = False
) -> tuple[int, int, int]:
    """``(distance, 胡息 reachable, distance of the shape alone)``: the last ignores the 胡息 minimum, so
    when it is 0 the hand is one card from complete in shape and :func:`paohuzi.analysis.waits` can tell
    exactly whether it is 听牌."""
    needed, huxi, shape = _split(counts, table, min_huxi, groups, yiwushi)
    return needed - 1, huxi, shape - 1


def useful_cards(
    counts: Sequence[int],
    table: Sequence[Group],
    live: Sequence[int],
    min_huxi: int = 15,
    base: int | None = None,
    groups: int = 7,
    yiwushi: bool = False,
) -> tuple[int, list[int]]:
    """进张: the unseen copies of the kinds that would bring the distance down, and those kinds.

    ``live[k]`` is how many copies of kind ``k`` the player has not seen (they may still come).
    """
    if base is None:
        base = _split(counts, table, min_huxi, groups, yiwushi)[0]
    total = 0
    kinds = []
    work = list(counts)
    for k in range(NUM_KINDS):
        if live[k] <= 0 or work[k] >= 4:
            continue
        work[k] += 1
        if _split(work, table, min_huxi, groups, yiwushi)[0] < base:
            total += live[k]
            kinds.append(k)
        work[k] -= 1
    return total, kinds


def partner_kinds(kind: int, yiwushi: bool = False) -> tuple[int, ...]:
    """The kinds that form a 句 or 绞 with ``kind`` (what a neighbour could eat it with); 一五十 too with
    ``yiwushi`` (R9.3)."""
    return tuple(sorted({k for pair in partners(yiwushi)[kind] for k in pair} - {kind}))
