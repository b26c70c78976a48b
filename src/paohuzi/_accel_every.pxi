# Included by ``_accel.pyx`` (last, after its entry points): every complete arrangement of a hand (R6.1), for the
# families that rank arrangements by their own points (R6.2, R9) — ``paohuzi.analysis.every`` in C, with the
# same answers in the same order. One compilation unit with ``_accel.pyx``.
#
# The free cards' splits are walked as in ``every._splits`` (lowest card first; for one slot, the 将 then the
# slot's candidates in the R3 table's order, never an earlier choice than the last one taken for that slot, so
# each multiset of groups comes once), depth first, without a memo of the splits: a branch is entered only when
# the search's memoised best (``best_rest``) says that it can still be completed with ``min_huxi`` 胡息, so
# every branch entered ends in arrangements (or, rarely, in splits taken before in another order).

from operator import attrgetter

cdef object BY_HUXI = attrgetter("huxi")


cdef int every_split(HState *h, tuple table, int card, Option *o, uint64_t packed, int pair, int start,
                     int total, long need, PyObject **stack, int depth, list out) except -1:
    """Append to ``out`` the Arrangement of every split of ``packed`` (choice ``start`` or later for its lowest
    slot) whose 胡息, with ``total`` so far, reaches ``need``; ``stack`` holds the ``depth`` groups taken."""
    cdef int slot, i, sub, first, j
    cdef uint64_t low, left, guarded
    cdef object groups
    if packed == 0:
        if pair or total < need:
            return 0
        groups = PyTuple_New(head_size(h, o) + depth)
        j = fill_head(h, table, card, o, groups)
        for i in range(depth):
            Py_INCREF(<object>stack[i])
            PyTuple_SET_ITEM(groups, j + i, <object>stack[i])
        # 对对: no 句/绞 anywhere, i.e. none on the table and the rest is empty or the 将 alone.
        out.append(ARRANGEMENT.make3(groups, total, True if (not h.table_mixed and o.size <= 2) else False, EMPTY))
        return 0
    if depth >= MAXR:
        return 0  # unreachable: at most 41 free cards
    slot = ctz64(packed) // 3
    low = (<uint64_t>7) << (3 * slot)
    if start == 0 and pair and ((packed >> (3 * slot)) & 3) >= 2:
        left = packed - 2 * ONE[slot]
        sub = best_rest(left, 0)
        if sub >= 0 and total + sub >= need:
            stack[depth] = JIANG_G[slot]
            every_split(h, table, card, o, left, 0, 0, total, need, stack, depth + 1, out)
    guarded = packed | GUARD
    first = start - 1 if start > 0 else 0
    for i in range(first, NCAND[slot]):
        left = guarded - CVAL[slot][i]
        if left & GUARD != GUARD:
            continue
        left ^= GUARD
        sub = best_rest(left, pair)
        if sub < 0 or total + CHUX[slot][i] + sub < need:
            continue
        stack[depth] = CGROUP[slot][i]
        every_split(h, table, card, o, left, pair, i + 1 if left & low else 0, total + CHUX[slot][i], need,
                    stack, depth + 1, out)
    return 0


cdef object every(HState *h, tuple table, int card, int source, long need):
    """Every distinct complete arrangement with at least ``need`` 胡息, most 胡息 first (``every.every_arrangement``)."""
    cdef Option opts[MAXT + 4]
    cdef PyObject *stack[MAXR]
    cdef int nopt, i, pair, best
    cdef list out = None  # made for the first use of the card that can be completed (most waits tried have none)
    if card < 0:
        nopt = 1
        opts[0] = Option(-1, 0, 0, h.base_huxi, h.fours, h.rest, h.size)
    else:
        nopt = options(h, card, source, opts)
    for i in range(nopt):
        # Groups of 3, plus 2 for the 将 (R6.1).
        if opts[i].size % 3 != (2 if opts[i].fours else 0):
            continue
        pair = 1 if opts[i].fours else 0
        best = best_rest(opts[i].rest, pair)
        if best < 0 or opts[i].huxi + best < need:
            continue
        if out is None:
            out = []
        every_split(h, table, card, &opts[i], opts[i].rest, pair, 0, opts[i].huxi, need, stack, 0, out)
    if out is None:
        return EMPTY
    if len(out) > 1:
        out.sort(key=BY_HUXI, reverse=True)  # stable: equal 胡息 keep the order found
    return tuple(out)


def arrangements_all(hand, table, card, source, min_huxi):
    """``every.arrangements_all``, or None for the pure path to answer (bad input)."""
    table = as_tuple(table)
    if table is None:
        return None
    cdef HState h
    cdef int c, s
    cdef long m
    if read_request(hand, table, card, source, min_huxi, &h, &c, &s, &m) < 0:
        return None
    return every(&h, table, c, s, m)


def arrangements_all_counted(hand, table, card, source, min_huxi):
    """(arrangements, red, big, cards) of ``every.arrangements_all_counted``, or None for the pure path."""
    table = as_tuple(table)
    if table is None:
        return None
    cdef HState h
    cdef int c, s
    cdef long m
    if read_request(hand, table, card, source, min_huxi, &h, &c, &s, &m) < 0:
        return None
    found = every(&h, table, c, s, m)
    if not found:
        return NOTHING
    if c >= 0:
        return (found, h.red + IS_RED[c], h.big + IS_BIG[c], h.n + 1)
    return (found, h.red, h.big, h.n)


def waits_all_counted(hand, table, min_huxi):
    """``every.waits_all_counted``: [(card, every arrangement, red, big, cards)] in card order, or None for the pure
    path."""
    table = as_tuple(table)
    if table is None:
        return None
    cdef HState h
    cdef long m
    cdef int k
    cdef uint32_t tried
    if read_waits(hand, table, min_huxi, &h, &m) < 0:
        return None
    tried = wait_candidates(&h)
    out = []
    for k in range(NUM):
        if tried >> k & 1:
            found = every(&h, table, k, SRC_SELF, m)
            if found:
                out.append((CARDS[k], found, h.red + IS_RED[k], h.big + IS_BIG[k], h.n + 1))
    return out
