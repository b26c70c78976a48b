# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The optional compiled split search of :mod:`paohuzi.bots.evaluation` (the bots' 向听; docs/decisions.md,
"The compiled accelerator").

The same search as ``evaluation._search``, in C: the hand cards packed 3 bits a slot (at most 2 a kind: 坎
and fours are taken out before), the lowest card first, and for every number g = 0 … 7 of groups the cards
must form the best ``needed × 256 − 胡息``. The Python version packs the eight values into one int to
take their minima with bit operations; here they are eight C ints and the minima plain comparisons (the
same values: the tests compare both on thousands of hands). Every cost table is handed over by
:func:`setup` from ``evaluation.accel_tables()``, so this file holds no rule of its own.

Not used when the environment sets ``PAOHUZI_PURE=1``, or when ``_accel_bots.pyx`` (or the shared
``_accel_guard.pxi``) next to the compiled module is not the source it was built from (a stale build after an
edit): see :func:`usable`.
"""

from libc.stdint cimport uint64_t, int32_t
from libc.string cimport memset, memcpy
from libc.stdlib cimport calloc, free

#: The files this module is compiled from (their sha256 is checked by :func:`usable`).
SOURCES = ("_accel_bots.pyx", "_accel_guard.pxi")

include "_accel_guard.pxi"


cdef enum:
    NUM = 20
    G = 8              # numbers of groups 0 … 7
    MAXC = 8           # candidates per slot (at most 5 in the R3 table)
    BITS = 3

cdef int n_whole[NUM]
cdef uint64_t whole_value[NUM][MAXC]
cdef int32_t whole_gain[NUM][MAXC]
cdef int n_partial[NUM]
cdef uint64_t partial_value[NUM][MAXC]
cdef uint64_t partial_other[NUM][MAXC]
cdef int32_t partial_cost[NUM][MAXC]
cdef int32_t pair_cost[NUM]
cdef int32_t single_cost[NUM]
cdef int32_t seed_of_pair = 0
cdef int32_t base[2][G]
cdef uint64_t FOURS = 0
cdef bint ready = False


def setup(tables):
    """Take evaluation's tables (a dict; see ``paohuzi.bots.evaluation.accel_tables``)."""
    global seed_of_pair, FOURS, ready
    cdef int s, i, g
    if len(tables["wholes"]) != NUM or tables["groups"] != G or tables["bits"] != BITS:
        raise ValueError("the evaluation tables do not fit the compiled split search")
    for s in range(NUM):
        wholes = tables["wholes"][s]
        partials = tables["partials"][s]
        if len(wholes) > MAXC or len(partials) > MAXC:
            raise ValueError("too many candidate groups for one slot")
        n_whole[s] = len(wholes)
        for i, (value, gain) in enumerate(wholes):
            whole_value[s][i] = value
            whole_gain[s][i] = gain
        n_partial[s] = len(partials)
        for i, (value, other, cost) in enumerate(partials):
            partial_value[s][i] = value
            partial_other[s][i] = other
            partial_cost[s][i] = cost
        pair_cost[s] = tables["pair_cost"][s]
        single_cost[s] = tables["single_cost"][s]
    seed_of_pair = tables["seed_of_pair"]
    for i in range(2):
        for g in range(G):
            base[i][g] = tables["base"][i][g]
    FOURS = 0
    for s in range(NUM):
        FOURS |= (<uint64_t>4) << (BITS * s)
    clear()
    ready = True


# The memo: open addressing on (packed << 1 | pair) + 1; the eight values of each key.
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
    """Forget the memo (``evaluation.clear_cache``)."""
    global memo_keys, memo_vals, memo_used
    if memo_keys == NULL:
        memo_keys = <uint64_t *>calloc(MEMO_SIZE, sizeof(uint64_t))
        memo_vals = <int32_t *>calloc(MEMO_SIZE * G, sizeof(int32_t))
        if memo_keys == NULL or memo_vals == NULL:
            raise MemoryError()
    else:
        memset(memo_keys, 0, MEMO_SIZE * sizeof(uint64_t))
    memo_used = 0


cdef inline uint64_t memo_slot(uint64_t key) noexcept nogil:
    return ((key * 0x9E3779B97F4A7C15ULL) >> (64 - MEMO_BITS)) & MEMO_MASK


cdef inline bint memo_get(uint64_t key, int32_t *out) noexcept nogil:
    cdef uint64_t k = key + 1
    cdef uint64_t i = memo_slot(key)
    while True:
        if memo_keys[i] == k:
            memcpy(out, &memo_vals[i * G], G * sizeof(int32_t))
            return True
        if memo_keys[i] == 0:
            return False
        i = (i + 1) & MEMO_MASK


cdef inline void memo_put(uint64_t key, const int32_t *values) noexcept nogil:
    global memo_used
    cdef uint64_t k = key + 1
    cdef uint64_t i
    if memo_used * 2 >= MEMO_SIZE:  # half full: start again (a cache; the answers do not depend on it)
        memset(memo_keys, 0, MEMO_SIZE * sizeof(uint64_t))
        memo_used = 0
    i = memo_slot(key)
    while memo_keys[i] != 0 and memo_keys[i] != k:
        i = (i + 1) & MEMO_MASK
    if memo_keys[i] == 0:
        memo_used += 1
    memo_keys[i] = k
    memcpy(&memo_vals[i * G], values, G * sizeof(int32_t))


cdef void search(uint64_t packed, int pair, int32_t *out) noexcept nogil:
    """``evaluation._search``: into ``out[g]``, the best ``needed × 256 − 胡息`` with g groups, for every g."""
    cdef uint64_t key = packed << 1 | <uint64_t>pair
    cdef int32_t left[G]
    cdef int32_t best[G]
    cdef int32_t child[G]
    cdef int32_t c
    cdef int slot, count, i, g
    cdef uint64_t one, fours, value
    if memo_get(key, out):
        return
    if packed == 0:
        memcpy(out, base[pair], G * sizeof(int32_t))
        memo_put(key, out)
        return
    slot = ctz64(packed) // BITS
    count = <int>((packed >> (BITS * slot)) & 7)
    one = (<uint64_t>1) << (BITS * slot)
    search(packed - one, pair, left)  # the card is left out
    # The card starts a group: a seed (the same child as leaving it out), a whole or partial group, a pair.
    for g in range(G):
        best[g] = left[g] + single_cost[slot]
    fours = packed | FOURS
    for i in range(n_whole[slot]):
        value = whole_value[slot][i]
        if ((fours - value) & FOURS) == FOURS:
            search(packed - value, pair, child)
            for g in range(G):
                c = child[g] + whole_gain[slot][i]
                if c < best[g]:
                    best[g] = c
    for i in range(n_partial[slot]):
        if packed & partial_other[slot][i]:
            search(packed - partial_value[slot][i], pair, child)
            for g in range(G):
                c = child[g] + partial_cost[slot][i]
                if c < best[g]:
                    best[g] = c
    if count >= 2:
        search(packed - 2 * one, pair, child)
        for g in range(G):
            c = child[g] + pair_cost[slot]
            if c < best[g]:
                best[g] = c
    # g groups: leave the card out, or let it start one of them (g − 1 from the rest).
    out[0] = left[0]
    for g in range(1, G):
        out[g] = left[g] if left[g] < best[g - 1] else best[g - 1]
    if pair:
        # The card as the 将: with its twin, or as a seed waiting for one.
        if count >= 2:
            search(packed - 2 * one, 0, child)
            for g in range(G):
                if child[g] < out[g]:
                    out[g] = child[g]
        search(packed - one, 0, child)
        for g in range(G):
            c = child[g] + seed_of_pair
            if c < out[g]:
                out[g] = c
    memo_put(key, out)


_LIMIT = 2 ** (3 * 20)  # a Python int: packed hands take 60 bits at most


def field(packed, int pair, int groups):
    """Field ``groups`` of ``evaluation._search(packed, pair)``, unpacked: ``needed × 256 − 胡息``; None for
    anything the compiled search does not take (not ready, a packed hand over 60 bits or with 3+ of a slot,
    a count of groups outside 0 … 7), so that the caller runs the Python search."""
    cdef int32_t out[G]
    cdef uint64_t p
    cdef int s
    if not ready or groups < 0 or groups >= G or not 0 <= pair <= 1:
        return None
    if not isinstance(packed, int) or packed < 0 or packed >= _LIMIT:
        return None
    p = packed
    for s in range(NUM):
        if ((p >> (BITS * s)) & 7) > 2:
            return None
    search(p, pair, out)
    return out[groups]
