# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The optional compiled accelerator of :mod:`paohuzi.analysis` (R6.1, R6.2 search; docs/decisions.md, "Speed").

The same algorithm as :mod:`paohuzi.analysis.pure`, in C on plain integers: the hand packed 3 bits a card
slot, the memoised search for the most 胡息 of the free cards, the uses of the card won (R6.1) and the
waits loop with its exact shortcuts. Every table (slots, 句/绞 candidates from the R3 shape table, the
shared group objects, the partner masks) is handed over by :func:`setup` from the pure module, so there is
one source of truth; this file holds no rule of its own.

Every entry point answers ``None`` when it meets anything but well-formed input (a bad card, more than 4 of
a kind, a 坎 on a table, a hand that is not a list, tuple or bytes of ints …): the caller then runs the
pure-Python path, which raises the error with its wording. So bad input behaves identically by construction.

Not used when the environment sets ``PAOHUZI_PURE=1``, or when ``_accel.pyx`` next to the compiled module
(or the shared ``_accel_guard.pxi``) is not the source it was built from (a stale build after an edit): see
:func:`usable`.
"""

from libc.stdint cimport uint64_t, int64_t, uint32_t, int32_t
from libc.string cimport memset
from libc.stdlib cimport calloc, free
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM, PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.long cimport PyLong_Check, PyLong_AsLong, PyLong_AsLongAndOverflow
from cpython.dict cimport PyDict_SetItem

cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        const char *name
        int type
        Py_ssize_t offset
    ctypedef struct PyMemberDescrObject:
        PyMemberDef *d_member
    object PyType_GenericAlloc(PyTypeObject *t, Py_ssize_t nitems)

#: The files this module is compiled from (their sha256 is checked by :func:`usable`).
SOURCES = ("_accel.pyx", "_accel_guard.pxi")

include "_accel_guard.pxi"


cdef enum:
    NUM = 20
    MAXC = 8           # candidates per slot (at most 5 in the R3 table)
    MAXT = 32          # table groups handled here (a real table has at most 7)
    MAXF = NUM + 1     # fixed groups (坎/提, at most one a kind) + one 偎/碰 made by the card
    MAXR = 32          # groups of the free cards (at most 2 a kind + the card: 41 cards)
    CH_JIANG = 15      # memo choice: the 将
    CH_NONE = 14       # memo choice: nothing (empty rest, or not completable)

# Tables (filled by setup()).
cdef uint64_t ONE[NUM]          # slot -> packed value of one card
cdef uint64_t CARD_ONE[NUM]     # kind -> packed value of one card
cdef int SHIFT[NUM]             # kind -> bit offset of its count
cdef int KIND[NUM]              # slot -> kind
cdef uint64_t GUARD
cdef uint64_t LOW
cdef int NCAND[NUM]
cdef uint64_t CVAL[NUM][MAXC]
cdef int CHUX[NUM][MAXC]
cdef PyObject *CGROUP[NUM][MAXC]
cdef PyObject *JIANG_G[NUM]     # by slot
cdef PyObject *TI_G[NUM]        # by kind
cdef PyObject *PAO_G[NUM]
cdef PyObject *WEI_G[NUM]
cdef PyObject *KAN_G[NUM]
cdef PyObject *PENG_G[NUM]
cdef int TI_H[NUM]
cdef int PAO_H[NUM]
cdef int WEI_H[NUM]
cdef int KAN_H[NUM]
cdef int PENG_H[NUM]
cdef int NPART[NUM]
cdef uint64_t PARTNER[NUM][MAXC * 2]
cdef int NSHAPE[NUM]
cdef uint64_t SHAPEV[NUM][MAXC * 2]
cdef uint32_t NEAR[NUM]
cdef int IS_RED[NUM]
cdef int IS_BIG[NUM]

cdef object _keep = None        # the Python objects the PyObject* above point into
cdef object Arrangement = None
cdef object Group = None
cdef object CARDS = None
cdef object K_TI, K_PAO, K_WEI, K_CHOUWEI, K_KAN, K_PENG, K_JU, K_JIAO, K_JIANG
cdef object S_NONE, S_SELF, S_OTHER, S_DISCARD
cdef bint ready = False
cdef tuple EMPTY = ()
cdef Py_ssize_t OFF_KIND = -1, OFF_CARDS = -1, OFF_HUXI = -1   # Group's slots, or -1: read by name
cdef Maker ARRANGEMENT = None

# Source codes.
cdef enum:
    SRC_NONE = 0
    SRC_SELF = 1
    SRC_OTHER = 2
    SRC_DISCARD = 3

# Table group codes.
cdef enum:
    TG_FOUR = 0     # 提/跑
    TG_MIXED = 1    # 句/绞
    TG_WEI = 2      # 偎/臭偎
    TG_PENG = 3     # 碰


def setup(tables):
    """Take the pure module's tables (a dict; see ``paohuzi.analysis._accel_tables``)."""
    global GUARD, LOW, Arrangement, Group, CARDS, _keep, ready
    global K_TI, K_PAO, K_WEI, K_CHOUWEI, K_KAN, K_PENG, K_JU, K_JIAO, K_JIANG
    global S_NONE, S_SELF, S_OTHER, S_DISCARD
    cdef int i, j, k
    _keep = tables
    Arrangement = tables["Arrangement"]
    Group = tables["Group"]
    CARDS = tables["CARDS"]
    K_TI, K_PAO, K_WEI, K_CHOUWEI, K_KAN, K_PENG, K_JU, K_JIAO, K_JIANG = tables["kinds"]
    S_NONE, S_SELF, S_OTHER, S_DISCARD = tables["sources"]
    GUARD = tables["GUARD"]
    LOW = tables["LOW"]
    for i in range(NUM):
        ONE[i] = tables["ONE"][i]
        CARD_ONE[i] = tables["CARD_ONE"][i]
        SHIFT[i] = tables["SHIFT"][i]
        KIND[i] = tables["KIND"][i]
        row = tables["CANDIDATES"][i]
        if len(row) > MAXC:
            raise ValueError("too many candidates")
        NCAND[i] = len(row)
        for j in range(len(row)):
            CVAL[i][j] = row[j][0]
            CHUX[i][j] = row[j][1]
            CGROUP[i][j] = <PyObject *>row[j][2]
        JIANG_G[i] = <PyObject *>tables["JIANG"][i]
        TI_G[i] = <PyObject *>tables["TI"][i]
        PAO_G[i] = <PyObject *>tables["PAO"][i]
        WEI_G[i] = <PyObject *>tables["WEI"][i]
        KAN_G[i] = <PyObject *>tables["KAN"][i]
        PENG_G[i] = <PyObject *>tables["PENG"][i]
        TI_H[i] = tables["TI"][i].huxi
        PAO_H[i] = tables["PAO"][i].huxi
        WEI_H[i] = tables["WEI"][i].huxi
        KAN_H[i] = tables["KAN"][i].huxi
        PENG_H[i] = tables["PENG"][i].huxi
        part = tables["PARTNER_VALUES"][i]
        shape = tables["SHAPE_VALUES"][i]
        if len(part) > 2 * MAXC or len(shape) > 2 * MAXC:
            raise ValueError("too many partners")
        NPART[i] = len(part)
        for j in range(len(part)):
            PARTNER[i][j] = part[j]
        NSHAPE[i] = len(shape)
        for j in range(len(shape)):
            SHAPEV[i][j] = shape[j]
        NEAR[i] = tables["NEAR"][i]
        IS_RED[i] = 1 if tables["IS_RED"][i] else 0
        IS_BIG[i] = 1 if tables["IS_BIG"][i] else 0
    clear()
    global OFF_KIND, OFF_CARDS, OFF_HUXI, ARRANGEMENT
    OFF_KIND = slot_offset(Group, "kind")
    OFF_CARDS = slot_offset(Group, "cards")
    OFF_HUXI = slot_offset(Group, "huxi")
    if OFF_KIND < 0 or OFF_CARDS < 0:
        OFF_HUXI = -1
    ARRANGEMENT = maker(Arrangement)
    if ARRANGEMENT is None or ARRANGEMENT.n != 4:
        raise ValueError("Arrangement is not a frozen slots dataclass of 4 fields")
    ready = True


# ---------------------------------------------------------------------------------------------------
# Frozen slots dataclasses built in C (Arrangement here; Score and Win for scoring): the instance is
# allocated and its slots filled directly, as the generated __init__ does through object.__setattr__.
# Only for classes whose generated __init__ does nothing else (checked by maker()).
# ---------------------------------------------------------------------------------------------------

cdef class Maker:
    """Builds instances of one frozen slots dataclass from its field values, in field order."""
    cdef PyTypeObject *tp
    cdef readonly object cls
    cdef readonly Py_ssize_t n
    cdef Py_ssize_t off[24]

    cdef inline object make3(self, object a, object b, object c, object d):
        cdef object obj = PyType_GenericAlloc(self.tp, 0)
        cdef char *base = <char *><PyObject *>obj
        Py_INCREF(a)
        (<PyObject **>(base + self.off[0]))[0] = <PyObject *>a
        Py_INCREF(b)
        (<PyObject **>(base + self.off[1]))[0] = <PyObject *>b
        Py_INCREF(c)
        (<PyObject **>(base + self.off[2]))[0] = <PyObject *>c
        Py_INCREF(d)
        (<PyObject **>(base + self.off[3]))[0] = <PyObject *>d
        return obj

    def __call__(self, *args):
        cdef Py_ssize_t i
        cdef object v
        if len(args) != self.n:
            raise TypeError(f"{self.cls.__name__} takes {self.n} values, got {len(args)}")
        cdef object obj = PyType_GenericAlloc(self.tp, 0)
        cdef char *base = <char *><PyObject *>obj
        for i in range(self.n):
            v = <object>PyTuple_GET_ITEM(args, i)
            Py_INCREF(v)
            (<PyObject **>(base + self.off[i]))[0] = <PyObject *>v
        return obj


cdef Py_ssize_t slot_offset(object cls, str name) except -2:
    """Where the slot ``name`` of ``cls`` instances lies, or -1 if it is not a plain ``__slots__`` member."""
    import types
    desc = cls.__dict__.get(name)
    if type(desc) is not types.MemberDescriptorType:
        return -1
    cdef PyMemberDescrObject *d = <PyMemberDescrObject *>desc
    if d.d_member.type != 16:  # T_OBJECT_EX, the kind of slot __slots__ makes
        return -1
    return d.d_member.offset


def maker(cls):
    """A :class:`Maker` for ``cls``, or None unless it is a frozen slots dataclass whose instances hold exactly
    its fields, all set by ``__init__`` (no ``__post_init__``, no other slots, plain ``object.__new__``)."""
    import dataclasses
    import types
    if type(cls) is not type or not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:
        return None
    if hasattr(cls, "__post_init__") or cls.__new__ is not object.__new__ or cls.__base__ is not object:
        return None
    fields = dataclasses.fields(cls)
    if len(fields) > 24 or any(not f.init for f in fields) or tuple(cls.__dict__.get("__slots__", ())) != tuple(
        f.name for f in fields
    ):
        return None
    cdef Maker m = Maker.__new__(Maker)
    cdef PyMemberDescrObject *d
    m.cls = cls
    m.tp = <PyTypeObject *>cls
    m.n = len(fields)
    for i, f in enumerate(fields):
        desc = cls.__dict__[f.name]
        if type(desc) is not types.MemberDescriptorType:
            return None
        d = <PyMemberDescrObject *>desc
        if d.d_member.type != 16:  # T_OBJECT_EX, the kind of slot __slots__ makes
            return None
        m.off[i] = d.d_member.offset
    return m


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
    else:
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


cdef object build(HState *h, tuple table, int card, Option *o, int total, int duidui):
    """The Arrangement: the table after the win, the 坎/提 (and the group the card made), the free cards' groups."""
    cdef PyObject *rest[MAXR]
    cdef int nrest = rest_groups(o.rest, 1 if o.fours else 0, rest)
    cdef int nfix = h.nfixed + (1 if o.fmod >= 3 else 0)
    cdef int ntot = h.ntable + nfix + nrest
    cdef object groups = PyTuple_New(ntot)
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


cdef int read_request(object hand, tuple table, object card, object source, object min_huxi,
                      HState *h, int *c, int *s, long *m) except -2:
    """Everything ``pure._checked_hand`` checks; -1 where it would raise (or for input it must look at)."""
    cdef int overflow = 0
    cdef long v
    if not PyLong_Check(min_huxi):
        return -1
    m[0] = PyLong_AsLongAndOverflow(min_huxi, &overflow)
    if overflow:
        return -1
    if source is S_NONE:
        s[0] = SRC_NONE
    elif source is S_SELF:
        s[0] = SRC_SELF
    elif source is S_OTHER:
        s[0] = SRC_OTHER
    elif source is S_DISCARD:
        s[0] = SRC_DISCARD
    else:
        return -1
    if card is None:
        if s[0] != SRC_NONE:
            return -1
        c[0] = -1
    else:
        if not PyLong_Check(card) or s[0] == SRC_NONE:
            return -1
        v = PyLong_AsLongAndOverflow(card, &overflow)
        if overflow or v < 0 or v >= NUM:
            return -1
        c[0] = <int>v
    if read_hand(hand, table, h) < 0:
        return -1
    if c[0] >= 0 and h.in_play[c[0]] >= 4:
        return -1
    return 0


def arrangements(hand, table, card, source, min_huxi):
    """``pure.arrangements``, or None for the pure path to answer (bad input)."""
    table = as_tuple(table)
    if table is None:
        return None
    cdef HState h
    cdef Found f
    cdef int c, s
    cdef long m
    if read_request(hand, table, card, source, min_huxi, &h, &c, &s, &m) < 0:
        return None
    search(&h, c, s, m, &f)
    return built(&h, table, c, &f)


def is_complete(hand, table, card, source, min_huxi):
    """``bool(pure.arrangements(...))`` without building the arrangements, or None for the pure path."""
    table = as_tuple(table)
    if table is None:
        return None
    cdef HState h
    cdef Found f
    cdef int c, s
    cdef long m
    if read_request(hand, table, card, source, min_huxi, &h, &c, &s, &m) < 0:
        return None
    search(&h, c, s, m, &f)
    return f.n > 0


def validate(hand, table, card, source, min_huxi):
    """True if ``pure.validate`` would raise nothing; None for the pure path to answer."""
    table = as_tuple(table)
    if table is None:
        return None
    cdef HState h
    cdef int c, s
    cdef long m
    if read_request(hand, table, card, source, min_huxi, &h, &c, &s, &m) < 0:
        return None
    return True


def arrangements_counted(hand, table, card, source, min_huxi):
    """(arrangements, red, big, cards) of ``pure.arrangements_counted``, or None for the pure path."""
    table = as_tuple(table)
    if table is None:
        return None
    cdef HState h
    cdef Found f
    cdef int c, s
    cdef long m
    if read_request(hand, table, card, source, min_huxi, &h, &c, &s, &m) < 0:
        return None
    search(&h, c, s, m, &f)
    if f.n == 0:
        return NOTHING
    if c >= 0:
        return (built(&h, table, c, &f), h.red + IS_RED[c], h.big + IS_BIG[c], h.n + 1)
    return (built(&h, table, c, &f), h.red, h.big, h.n)


NOTHING = ((), 0, 0, 0)


cdef uint32_t unstranding_kinds(HState *h, uint64_t guarded) noexcept nogil:
    """As ``pure._unstranding_kinds``: the kinds a card joining only the free cards may be."""
    cdef uint32_t allowed = (1u << NUM) - 1
    cdef int pair = h.fours != 0, slot, kind, i, ok
    cdef uint64_t r = h.rest
    while r:
        slot = ctz64(r) // 3
        kind = KIND[slot]
        if not (pair and (r >> (3 * slot)) & 6):
            ok = 0
            for i in range(NSHAPE[kind]):
                if (guarded - SHAPEV[kind][i]) & GUARD == GUARD:
                    ok = 1
                    break
            if not ok:
                allowed &= NEAR[kind]
                if not allowed:
                    break
        r &= ~((<uint64_t>7) << (3 * slot))
    return allowed


cdef int wait_kinds(HState *h, long min_huxi, Found *found, int *kinds) noexcept nogil:
    """The waits loop of ``pure.waits``: fills ``found``/``kinds`` for each completing kind; returns how many."""
    cdef int plain_fits = (h.size + 1) % 3 == (2 if h.fours else 0)
    cdef uint64_t guarded = h.rest | GUARD
    cdef uint32_t allowed = unstranding_kinds(h, guarded) if plain_fits else ((1u << NUM) - 1)
    cdef int k, i, ok, n = 0
    for k in range(NUM):
        if h.in_play[k] >= 4:
            continue
        if not (h.packed >> SHIFT[k] & 6) and not (h.joinable >> k & 1):
            # The card won can only join the free hand cards (the one-option case of R6.1).
            if not plain_fits or not (allowed >> k & 1):
                continue
            if not (h.packed >> SHIFT[k] & 7):
                ok = 0
                for i in range(NPART[k]):
                    if (guarded - PARTNER[k][i]) & GUARD == GUARD:
                        ok = 1
                        break
                if not ok:
                    continue
        search(h, k, SRC_SELF, min_huxi, &found[n])
        if found[n].n:
            kinds[n] = k
            n += 1
    return n


cdef int read_waits(object hand, tuple table, object min_huxi, HState *h, long *m) except -2:
    cdef int overflow = 0
    if not PyLong_Check(min_huxi):
        return -1
    m[0] = PyLong_AsLongAndOverflow(min_huxi, &overflow)
    if overflow:
        return -1
    return read_hand(hand, table, h)


def waits(hand, table, min_huxi):
    """``pure.waits`` (a dict card -> arrangements), or None for the pure path."""
    table = as_tuple(table)
    if table is None:
        return None
    cdef HState h
    cdef Found found[NUM]
    cdef int kinds[NUM]
    cdef long m
    cdef int n, i
    if read_waits(hand, table, min_huxi, &h, &m) < 0:
        return None
    n = wait_kinds(&h, m, found, kinds)
    out = {}
    for i in range(n):
        PyDict_SetItem(out, CARDS[kinds[i]], built(&h, table, kinds[i], &found[i]))
    return out


def waits_counted(hand, table, min_huxi):
    """``pure.waits_counted``: [(card, arrangements, red, big, cards)] in card order, or None for the pure path."""
    table = as_tuple(table)
    if table is None:
        return None
    cdef HState h
    cdef Found found[NUM]
    cdef int kinds[NUM]
    cdef long m
    cdef int n, i, k
    if read_waits(hand, table, min_huxi, &h, &m) < 0:
        return None
    n = wait_kinds(&h, m, found, kinds)
    out = []
    for i in range(n):
        k = kinds[i]
        out.append((CARDS[k], built(&h, table, k, &found[i]), h.red + IS_RED[k], h.big + IS_BIG[k], h.n + 1))
    return out
