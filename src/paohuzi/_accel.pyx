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

One compilation unit in four files, by responsibility: this one (the tables, :func:`setup`, reading a request
and the entry points), ``_accel_objects.pxi`` (the frozen dataclasses built in C), ``_accel_search.pxi``
(the memo, the packed hand and the search) and ``_accel_every.pxi`` (every arrangement, for the families).

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
SOURCES = ("_accel.pyx", "_accel_guard.pxi", "_accel_objects.pxi", "_accel_search.pxi", "_accel_every.pxi")

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
cdef bint REFUSE_YIWUSHI = True  # a table 一五十 is left to the pure path (it raises) unless the tables allow it
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
    global REFUSE_YIWUSHI
    REFUSE_YIWUSHI = not tables["YIWUSHI"]
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


include "_accel_objects.pxi"
include "_accel_search.pxi"


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


cdef uint32_t wait_candidates(HState *h) noexcept nogil:
    """The kinds the waits loop of ``pure._waits`` searches (its exact shortcuts skip the others), as bits."""
    cdef int plain_fits = (h.size + 1) % 3 == (2 if h.fours else 0)
    cdef uint64_t guarded = h.rest | GUARD
    cdef uint32_t allowed = unstranding_kinds(h, guarded) if plain_fits else ((1u << NUM) - 1)
    cdef uint32_t tried = 0
    cdef int k, i, ok
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
        tried |= 1u << k
    return tried


cdef int wait_kinds(HState *h, long min_huxi, Found *found, int *kinds) noexcept nogil:
    """The waits loop of ``pure.waits``: fills ``found``/``kinds`` for each completing kind; returns how many."""
    cdef uint32_t tried = wait_candidates(h)
    cdef int k, n = 0
    for k in range(NUM):
        if not (tried >> k & 1):
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


include "_accel_every.pxi"
