# Included by ``_accel.pyx`` (after ``_accel_objects.pxi``, before the entry points): the memo, the packed
# hand (HState), the uses of the card won (R6.1), the memoised search for the most 胡息 (R6.2) and the
# arrangement it builds. One compilation unit with ``_accel.pyx``.

# ---------------------------------------------------------------------------------------------------
# The memo: open addressing on (packed rest << 1 | needs pair) + 1; value (best 胡息 + 1) << 4 | choice.
# Cleared when half full (a search never needs more than a fraction of it), and by clear().
# ---------------------------------------------------------------------------------------------------

cdef int MEMO_BITS = 18
cdef uint64_t MEMO_SIZE = 1 << 18
cdef uint64_t MEMO_MASK = (1 << 18) - 1
cdef uint64_t *memo_keys = NULL
cdef int32_t *memo_vals = NULL
cdef uint64_t memo_used = 0


def memo_bits(int bits):
    """Make the memo 2 ** ``bits`` entries, empty (the tests use a tiny one: cleared again and again)."""
    global MEMO_BITS, MEMO_SIZE, MEMO_MASK, memo_keys, memo_vals
    if not 4 <= bits <= 26:
        raise ValueError(f"memo bits must be 4–26, got {bits}")
    free(memo_keys)
    free(memo_vals)
    memo_keys = NULL
    memo_vals = NULL
    MEMO_BITS = bits
    MEMO_SIZE = (<uint64_t>1) << bits
    MEMO_MASK = MEMO_SIZE - 1
    clear()


def clear():
    """Forget the memo (``analysis.clear_cache``)."""
    global memo_keys, memo_vals, memo_used
    if memo_keys == NULL:
        memo_keys = <uint64_t *>calloc(MEMO_SIZE, sizeof(uint64_t))
        memo_vals = <int32_t *>calloc(MEMO_SIZE, sizeof(int32_t))
        if memo_keys == NULL or memo_vals == NULL:
            raise MemoryError()
    elif memo_used:  # an empty memo is all zero already (analysis.clear_cache clears both shape sets' memos)
        memset(memo_keys, 0, MEMO_SIZE * sizeof(uint64_t))
    memo_used = 0


cdef inline uint64_t memo_slot(uint64_t key) noexcept nogil:
    return ((key * 0x9E3779B97F4A7C15ULL) >> (64 - MEMO_BITS)) & MEMO_MASK


cdef inline int32_t memo_get(uint64_t key) noexcept nogil:
    """The stored value, or -1."""
    cdef uint64_t k = key + 1
    cdef uint64_t i = memo_slot(key)
    while True:
        if memo_keys[i] == k:
            return memo_vals[i]
        if memo_keys[i] == 0:
            return -1
        i = (i + 1) & MEMO_MASK


cdef inline void memo_put(uint64_t key, int32_t value) noexcept nogil:
    global memo_used
    cdef uint64_t k = key + 1
    cdef uint64_t i
    if memo_used * 2 >= MEMO_SIZE:
        memset(memo_keys, 0, MEMO_SIZE * sizeof(uint64_t))
        memo_used = 0
    i = memo_slot(key)
    while memo_keys[i] != 0 and memo_keys[i] != k:
        i = (i + 1) & MEMO_MASK
    if memo_keys[i] == 0:
        memo_used += 1
    memo_keys[i] = k
    memo_vals[i] = value


cdef int best_rest(uint64_t packed, int pair) noexcept nogil:
    """The most 胡息 the free cards score split into 句/绞 (and one 将 if ``pair``), or -1 if they cannot.
    The lowest card goes first; the first of equal 胡息 is kept (the order of the R3 shape table)."""
    cdef uint64_t key = packed << 1 | <uint64_t>pair
    cdef int32_t hit = memo_get(key)
    if hit >= 0:
        return (hit >> 4) - 1
    cdef int best = -1, choice = CH_NONE, sub, i, slot
    cdef uint64_t guarded, left
    if packed == 0:
        best = -1 if pair else 0
    else:
        slot = ctz64(packed) // 3
        if pair and ((packed >> (3 * slot)) & 3) >= 2:
            sub = best_rest(packed - 2 * ONE[slot], 0)
            if sub >= 0:
                best = sub
                choice = CH_JIANG
        guarded = packed | GUARD
        for i in range(NCAND[slot]):
            left = guarded - CVAL[slot][i]
            if left & GUARD == GUARD:
                sub = best_rest(left ^ GUARD, pair)
                if sub >= 0 and (best < 0 or sub + CHUX[slot][i] > best):
                    best = sub + CHUX[slot][i]
                    choice = i
    memo_put(key, (best + 1) << 4 | choice)
    return best


cdef int rest_groups(uint64_t packed, int pair, PyObject **out) noexcept nogil:
    """The groups of the best split of a rest that :func:`best_rest` found completable; returns how many."""
    cdef int n = 0, choice, slot
    cdef int32_t v
    while packed:
        v = memo_get(packed << 1 | <uint64_t>pair)
        if v < 0:  # evicted by a clear since: search again (it stores the node)
            best_rest(packed, pair)
            v = memo_get(packed << 1 | <uint64_t>pair)
        choice = v & 15
        slot = ctz64(packed) // 3
        if choice == CH_JIANG:
            out[n] = JIANG_G[slot]
            packed -= 2 * ONE[slot]
            pair = 0
        else:
            out[n] = CGROUP[slot][choice]
            packed -= CVAL[slot][choice]
        n += 1
    return n


# ---------------------------------------------------------------------------------------------------
# The hand.
# ---------------------------------------------------------------------------------------------------

cdef struct HState:
    uint64_t packed        # hand cards, 3 bits a slot
    uint64_t rest          # the free cards (坎/提 taken out)
    int size               # free cards
    int fours              # 提/跑 on the table and 提 in hand
    int base_huxi          # table groups + 坎/提
    int table_mixed        # a 句/绞 on the table
    uint32_t joinable      # kinds of the table 偎/臭偎/碰
    int ntable
    int tcode[MAXT]        # per table group: TG_*
    int tcard[MAXT]        # its first card
    int thuxi[MAXT]
    int nfixed
    int fkind[MAXF]        # kinds held 3 or 4 times, ascending
    int in_play[NUM]       # copies in hand and on the table
    int red, big, n        # red, big and all cards in hand and on the table


cdef int read_cards(object hand, int *counts) except -2:
    """Count the hand's cards; -1 if it is not a tuple/list/bytes of ints 0–19 (the pure path decides)."""
    cdef Py_ssize_t i, n
    cdef PyObject *item
    cdef long v
    cdef const unsigned char *raw
    cdef int overflow = 0
    cdef object t = type(hand)
    if t is tuple:
        n = PyTuple_GET_SIZE(hand)
        for i in range(n):
            item = PyTuple_GET_ITEM(hand, i)
            if not PyLong_Check(<object>item):
                return -1
            v = PyLong_AsLongAndOverflow(<object>item, &overflow)
            if overflow or v < 0 or v >= NUM:
                return -1
            counts[v] += 1
        return 0
    if t is list:
        n = PyList_GET_SIZE(hand)
        for i in range(n):
            item = PyList_GET_ITEM(hand, i)
            if not PyLong_Check(<object>item):
                return -1
            v = PyLong_AsLongAndOverflow(<object>item, &overflow)
            if overflow or v < 0 or v >= NUM:
                return -1
            counts[v] += 1
        return 0
    if t is bytes:
        raw = <const unsigned char *>PyBytes_AS_STRING(hand)
        n = PyBytes_GET_SIZE(hand)
        for i in range(n):
            if raw[i] >= NUM:
                return -1
            counts[raw[i]] += 1
        return 0
    return -1


cdef inline object as_tuple(object table):
    """The table groups as a tuple, or None for the pure path (a sequence of another type)."""
    if type(table) is tuple:
        return table
    if type(table) is list:
        return tuple(table)
    return None


cdef inline bint is_yiwushi_ju(tuple cards):
    """A 句's sorted cards are 一五十 or 壹伍拾 (``groups.is_yiwushi``)."""
    cdef long a = PyLong_AsLong(<object>PyTuple_GET_ITEM(cards, 0))
    return a % 10 == 0 and PyLong_AsLong(<object>PyTuple_GET_ITEM(cards, 1)) == a + 4 and (
        PyLong_AsLong(<object>PyTuple_GET_ITEM(cards, 2)) == a + 9)


cdef int read_hand(object hand, tuple table, HState *h) except -2:
    """Fill ``h`` (``table`` from :func:`as_tuple`); -1 for anything the pure path must look at (it raises the
    error)."""
    cdef int counts[NUM]
    cdef int i, k, c, nt
    cdef object g, kind, cards, huxi
    cdef PyObject *p
    cdef PyObject *q
    cdef PyObject *r
    cdef Py_ssize_t j, m
    memset(counts, 0, sizeof(counts))
    memset(h, 0, sizeof(HState))
    if read_cards(hand, counts) < 0:
        return -1
    for k in range(NUM):
        if counts[k] > 4:
            return -1
        h.packed += <uint64_t>counts[k] * CARD_ONE[k]
        h.in_play[k] = counts[k]
    nt = <int>PyTuple_GET_SIZE(table)
    if nt > MAXT:
        return -1
    h.ntable = nt
    for i in range(nt):
        g = <object>PyTuple_GET_ITEM(table, i)
        if type(g) is not Group:
            return -1
        # The group's slots read in place (Group is a frozen slots dataclass; see setup()), else by name.
        if OFF_HUXI >= 0:
            p = (<PyObject **>((<char *><PyObject *>g) + OFF_KIND))[0]
            q = (<PyObject **>((<char *><PyObject *>g) + OFF_CARDS))[0]
            r = (<PyObject **>((<char *><PyObject *>g) + OFF_HUXI))[0]
            if p == NULL or q == NULL or r == NULL:
                return -1
            kind = <object>p
            cards = <object>q
            huxi = <object>r
        else:
            kind = g.kind
            cards = g.cards
            huxi = g.huxi
        if type(cards) is not tuple or PyTuple_GET_SIZE(cards) == 0 or not PyLong_Check(huxi):
            return -1
        if kind is K_TI or kind is K_PAO:
            h.tcode[i] = TG_FOUR
            h.fours += 1
        elif kind is K_JU or kind is K_JIAO:
            h.tcode[i] = TG_MIXED
            h.table_mixed = 1
            # 一五十 / 壹伍拾 (sorted: the kinds 1, 5, 10 of one suit) without the rule option: the pure path raises
            # (R9.3). Only that shape: a 句 of 4 5 6 is answered here (it went to the pure path too, ~10x slower).
            if REFUSE_YIWUSHI and kind is K_JU and PyTuple_GET_SIZE(cards) == 3 and is_yiwushi_ju(cards):
                return -1
        elif kind is K_WEI or kind is K_CHOUWEI:
            h.tcode[i] = TG_WEI
        elif kind is K_PENG:
            h.tcode[i] = TG_PENG
        else:
            return -1  # 坎 or 将 on a table: the pure path raises
        m = PyTuple_GET_SIZE(cards)
        for j in range(m):
            c = PyLong_AsLong(<object>PyTuple_GET_ITEM(cards, j))
            if c < 0 or c >= NUM:
                return -1
            h.in_play[c] += 1
        h.tcard[i] = PyLong_AsLong(<object>PyTuple_GET_ITEM(cards, 0))
        if h.tcode[i] != TG_FOUR and h.tcode[i] != TG_MIXED:
            h.joinable |= 1u << h.tcard[i]
        h.thuxi[i] = PyLong_AsLong(huxi)
        h.base_huxi += h.thuxi[i]
    for k in range(NUM):
        if h.in_play[k] > 4:
            return -1
        h.n += h.in_play[k]
        h.red += h.in_play[k] * IS_RED[k]
        h.big += h.in_play[k] * IS_BIG[k]
    # 坎 and 提 of the hand, in card order: never broken (R3).
    h.rest = h.packed
    h.size = 0
    for k in range(NUM):
        h.size += counts[k]
        if counts[k] >= 3:
            h.fkind[h.nfixed] = k
            h.nfixed += 1
            if counts[k] == 4:
                h.base_huxi += TI_H[k]
                h.fours += 1
            else:
                h.base_huxi += KAN_H[k]
            h.rest -= <uint64_t>counts[k] * CARD_ONE[k]
            h.size -= counts[k]
    return 0


cdef inline int hand_count(HState *h, int card) noexcept nogil:
    return <int>((h.packed >> SHIFT[card]) & 7)


# One use of the card won (R6.1).
cdef struct Option:
    int tidx       # table group replaced, or -1
    int tjoin      # it becomes: 0 提, 1 跑
    int fmod       # fixed groups: 0 as they are, 1 the card's 坎 becomes 提, 2 becomes 跑, 3 + 偎, 4 + 碰
    int huxi
    int fours
    uint64_t rest
    int size


cdef int options(HState *h, int card, int source, Option *out) noexcept nogil:
    """Every way the card won may be used (R6.1), as in ``pure._Hand.options``; returns how many."""
    cdef int n = hand_count(h, card), k = 0, i, own = source == SRC_SELF
    cdef uint64_t one = CARD_ONE[card]
    cdef int joined_h = TI_H[card] if own else PAO_H[card]
    if n == 3:
        # A card matching a hand 坎 always joins it: 提 on an own draw, else 跑.
        out[0] = Option(-1, 0, 1 if own else 2, h.base_huxi - KAN_H[card] + joined_h, h.fours + 1, h.rest, h.size)
        return 1
    if own and n == 2:
        out[0] = Option(-1, 0, 3, h.base_huxi + WEI_H[card], h.fours, h.rest - 2 * one, h.size - 2)  # forced 偎
        return 1
    for i in range(h.ntable):
        if h.tcard[i] != card:
            continue
        if h.tcode[i] == TG_WEI:
            # A table 偎 takes the card as 提 (own draw, forced) or 跑 (another's card, optional).
            out[k] = Option(i, 0 if own else 1, 0, h.base_huxi - h.thuxi[i] + joined_h, h.fours + 1, h.rest, h.size)
            k += 1
            if own:
                out[0] = out[k - 1]
                return 1
        elif h.tcode[i] == TG_PENG and source != SRC_DISCARD:
            # A table 碰 becomes 跑 only with a drawn card, never a discard.
            out[k] = Option(i, 1, 0, h.base_huxi - h.thuxi[i] + PAO_H[card], h.fours + 1, h.rest, h.size)
            k += 1
    if n == 2:
        out[k] = Option(-1, 0, 4, h.base_huxi + PENG_H[card], h.fours, h.rest - 2 * one, h.size - 2)
        k += 1
    out[k] = Option(-1, 0, 0, h.base_huxi, h.fours, h.rest + one, h.size + 1)
    return k + 1


cdef struct Found:
    int n                  # 0, 1 or 2 arrangements (not 对对 first)
    int total[2]
    int duidui[2]
    Option opt[2]


cdef void search(HState *h, int card, int source, long min_huxi, Found *f) noexcept nogil:
    """The best arrangement of each shape (R6.1, R6.2), as in ``pure._Hand.arrangements``."""
    cdef Option opts[MAXT + 4]
    cdef int nopt, i, got, dd, total
    cdef int have[2]
    cdef int best[2]
    cdef Option bopt[2]
    have[0] = have[1] = 0
    if card < 0:
        nopt = 1
        opts[0] = Option(-1, 0, 0, h.base_huxi, h.fours, h.rest, h.size)
    else:
        nopt = options(h, card, source, opts)
    for i in range(nopt):
        if opts[i].size % 3 != (2 if opts[i].fours else 0):
            continue
        got = best_rest(opts[i].rest, 1 if opts[i].fours else 0)
        if got < 0:
            continue
        total = opts[i].huxi + got
        if total < min_huxi:
            continue
        # 对对: no 句/绞 anywhere, i.e. none on the table and the rest is empty or the 将 alone.
        dd = 1 if (not h.table_mixed and opts[i].size <= 2) else 0
        if not have[dd] or total > best[dd]:
            have[dd] = 1
            best[dd] = total
            bopt[dd] = opts[i]
    f.n = 0
    for dd in range(2):
        if have[dd]:
            f.total[f.n] = best[dd]
            f.duidui[f.n] = dd
            f.opt[f.n] = bopt[dd]
            f.n += 1


cdef inline int head_size(HState *h, Option *o) noexcept nogil:
    """How many groups :func:`fill_head` puts first."""
    return h.ntable + h.nfixed + (1 if o.fmod >= 3 else 0)


cdef int fill_head(HState *h, tuple table, int card, Option *o, object groups) noexcept:
    """Put the table after the win, then the 坎/提 (and the group the card made) first in the new tuple
    ``groups``; returns how many."""
    cdef int i, j = 0, k
    cdef PyObject *g
    for i in range(h.ntable):
        if i == o.tidx:
            g = TI_G[card] if o.tjoin == 0 else PAO_G[card]
        else:
            g = PyTuple_GET_ITEM(table, i)
        Py_INCREF(<object>g)
        PyTuple_SET_ITEM(groups, j, <object>g)
        j += 1
    for i in range(h.nfixed):
        k = h.fkind[i]
        if (h.packed >> SHIFT[k] & 7) == 4:
            g = TI_G[k]
        elif k == card and o.fmod == 1:
            g = TI_G[k]
        elif k == card and o.fmod == 2:
            g = PAO_G[k]
        else:
            g = KAN_G[k]
        Py_INCREF(<object>g)
        PyTuple_SET_ITEM(groups, j, <object>g)
        j += 1
    if o.fmod >= 3:
        g = WEI_G[card] if o.fmod == 3 else PENG_G[card]
        Py_INCREF(<object>g)
        PyTuple_SET_ITEM(groups, j, <object>g)
        j += 1
    return j


cdef object build(HState *h, tuple table, int card, Option *o, int total, int duidui):
    """The Arrangement: the table after the win, the 坎/提 (and the group the card made), the free cards' groups."""
    cdef PyObject *rest[MAXR]
    cdef int nrest = rest_groups(o.rest, 1 if o.fours else 0, rest)
    cdef object groups = PyTuple_New(head_size(h, o) + nrest)
    cdef int i, j = fill_head(h, table, card, o, groups)
    for i in range(nrest):
        Py_INCREF(<object>rest[i])
        PyTuple_SET_ITEM(groups, j, <object>rest[i])
        j += 1
    return ARRANGEMENT.make3(groups, total, True if duidui else False, EMPTY)


cdef object built(HState *h, tuple table, int card, Found *f):
    if f.n == 0:
        return ()
    if f.n == 1:
        return (build(h, table, card, &f.opt[0], f.total[0], f.duidui[0]),)
    return (build(h, table, card, &f.opt[0], f.total[0], f.duidui[0]),
            build(h, table, card, &f.opt[1], f.total[1], f.duidui[1]))
