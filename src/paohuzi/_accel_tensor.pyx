# cython: language_level=3, boundscheck=False, wraparound=False
"""The batched environment's observation tensor, compiled (issue 36; docs/decisions.md "The compiled
accelerator"): :func:`featurize_into` writes :func:`paohuzi.env.features.featurize_bytes`' values straight into a
slice of a batch buffer. The same reading of the same observation (R5: only what the seat may know), each
count kept in a C array and each value one store — the mypyc module pays a generic call for every bytearray
item (docs/PERFORMANCE.md, "Issue 36"). ``paohuzi.env.batch`` loads it (:func:`setup` gives it the layouts)
and falls back to ``featurize_bytes`` when it is not built, stale or ``PAOHUZI_PURE=1``;
``tests/env/test_batch_accel.py`` compares both on random hands of every preset. :class:`Rows` is the
batch's step of one row in one call (the deciding seat, its observation, tensor and action mask), written into
the batch's own arrays.
"""

from cpython.ref cimport PyObject, Py_INCREF
from libc.stdint cimport int64_t
from libc.string cimport memset

SOURCES = ("_accel_tensor.pyx", "_accel_guard.pxi")

include "_accel_guard.pxi"

DEF W = 20  # card kinds (paohuzi.cards.NUM_KINDS; setup() checks it)
DEF KINDS = 16  # room for the group kinds (paohuzi.groups.GroupKind: 9)
DEF MEMO = 8192  # slots of the identity memo (a power of two)
DEF MEMO_FULL = 4096  # objects it holds at most (then the others are read each time)
DEF ACTS = 4096  # slots of the action IDs' memo (a power of two)
DEF ACTS_FULL = 2048

cdef dict _LAYOUTS = {}  # players in the hand -> _Layout
cdef object _relative = None
cdef object _action_ids = None  # paohuzi.env.actions.action_ids
cdef object _decision_order = None  # paohuzi.env.common.decision_order


# The identity memo: what the tensor reads of a card (its kind), a row card (its kind, whether discarded) and a
# table group (its kind, its cards), keyed by the object's address. The engine hands out shared instances of
# these immutable objects (every Card, the row cards, the 提/跑/偎/碰 groups, each 句/绞), so reading them is
# one probe here instead of attribute reads and index conversions (the Python-level __index__ of an IntEnum).
# Each object is held (a strong reference), so its address is never reused while it is here; at most
# MEMO_FULL objects are kept — beyond that they are read each time, with the same values.
cdef struct _Entry:
    PyObject *key
    PyObject *kind  # a group's kind (held by the group); NULL for a card or a row card
    int n  # a group's cards; for a row card, 1 if it was discarded
    int cards[4]  # a card's kind in cards[0]; a group's card kinds


cdef _Entry _memo[MEMO]
cdef Py_ssize_t _memo_used = 0


cdef inline _Entry *_probe(PyObject *o) noexcept:
    cdef size_t h = ((<size_t>o) >> 4) & (MEMO - 1)
    while _memo[h].key != NULL and _memo[h].key != o:
        h = (h + 1) & (MEMO - 1)
    return &_memo[h]


cdef inline void _keep(object o, _Entry *e) noexcept:
    """Remember ``e`` for ``o`` (held from now on), unless the memo is full."""
    global _memo_used
    cdef _Entry *slot
    if _memo_used < MEMO_FULL:
        slot = _probe(<PyObject *>o)
        if slot.key == NULL:
            Py_INCREF(o)
            e.key = <PyObject *>o
            slot[0] = e[0]
            _memo_used += 1


cdef inline Py_ssize_t _card(object card) except -1:
    """A card's kind (a :class:`~paohuzi.cards.Card` or an int)."""
    cdef _Entry *slot = _probe(<PyObject *>card)
    cdef _Entry e
    if slot.key != NULL:
        return slot.cards[0]
    e.cards[0] = card
    if not 0 <= e.cards[0] < W:
        raise ValueError(f"not a card kind: {card!r}")
    e.kind = NULL
    e.n = 0
    _keep(card, &e)
    return e.cards[0]


cdef inline int _row_card(object entry, _Entry *out) except -1:
    """A :class:`~paohuzi.engine.RowCard`: its kind in ``out.cards[0]``, ``out.n`` 1 if it was discarded."""
    cdef _Entry *slot = _probe(<PyObject *>entry)
    if slot.key != NULL:
        out[0] = slot[0]
        return 0
    out.cards[0] = _card(entry.card)
    out.n = 1 if entry.discarded else 0
    out.kind = NULL
    _keep(entry, out)
    return 0


cdef inline int _group(object g, _Entry *out) except -1:
    """A table :class:`~paohuzi.groups.Group`: its kind, its cards' kinds and their number."""
    cdef _Entry *slot = _probe(<PyObject *>g)
    cdef Py_ssize_t i
    if slot.key != NULL:
        out[0] = slot[0]
        return 0
    kind = g.kind
    cards = g.cards
    if len(cards) > 4:
        raise ValueError(f"a group of {len(cards)} cards")
    out.kind = <PyObject *>kind
    out.n = len(cards)
    for i in range(out.n):
        out.cards[i] = _card(cards[i])
    _keep(g, out)  # holds g, which holds its kind
    return 0


# The action IDs' memo: a legal action's ID for each card on offer (index W: none; -1: not asked yet), asked of
# ``paohuzi.env.actions.action_ids`` once per (action, card) — the engine's legal actions are shared instances
# too. Held and bounded as the memo above.
cdef struct _ActionIds:
    PyObject *key
    int ids[W + 1]


cdef _ActionIds _acts[ACTS]
cdef Py_ssize_t _acts_used = 0


cdef inline _ActionIds *_probe_action(PyObject *o) noexcept:
    cdef size_t h = ((<size_t>o) >> 4) & (ACTS - 1)
    while _acts[h].key != NULL and _acts[h].key != o:
        h = (h + 1) & (ACTS - 1)
    return &_acts[h]


cdef Py_ssize_t _action_id(object action, object card, Py_ssize_t row) except -1:
    """The ID of a legal ``action`` with ``card`` on offer (``row``: its kind, or W for none)."""
    global _acts_used
    cdef _ActionIds *slot = _probe_action(<PyObject *>action)
    cdef Py_ssize_t i, a
    if slot.key != NULL and slot.ids[row] >= 0:
        return slot.ids[row]
    a = _action_ids((action,), card)[0]
    if slot.key == NULL and _acts_used < ACTS_FULL:
        Py_INCREF(action)
        slot.key = <PyObject *>action
        for i in range(W + 1):
            slot.ids[i] = -1
        _acts_used += 1
    if slot.key != NULL:
        slot.ids[row] = a
    return a


cdef class _Layout:
    """A layout's offsets (``paohuzi.env.features.Layout``) as C integers: read once at setup, not per call."""

    cdef Py_ssize_t size, pending, liangzhang, chou_chi, chou_peng, renpeng, unseen, stock
    cdef Py_ssize_t pending_drawn, pending_last, deciding
    # per relative seat (3 or 4 in the hand)
    cdef Py_ssize_t hidden_wei[4]
    cdef Py_ssize_t chi[4]
    cdef Py_ssize_t discarded[4]
    cdef Py_ssize_t unclaimed[4]
    cdef Py_ssize_t dealer[4]
    cdef Py_ssize_t turn[4]
    cdef Py_ssize_t dead[4]
    cdef Py_ssize_t hand_count[4]
    cdef Py_ssize_t pending_from[4]
    # per group kind (paohuzi.groups.GroupKind, held by the module): same-kind pieces' offsets by relative seat,
    # or counted per card in the 吃 piece (句/绞)
    cdef PyObject *kinds[KINDS]
    cdef bint kind_same[KINDS]
    cdef Py_ssize_t kind_base[KINDS][4]
    cdef Py_ssize_t nkinds
    cdef dict phase_of

    def __init__(self, lay, group_kinds):
        cdef Py_ssize_t r, j
        self.size, self.pending, self.liangzhang = lay.size, lay.pending, lay.liangzhang
        self.chou_chi, self.chou_peng, self.renpeng = lay.chou_chi, lay.chou_peng, lay.renpeng
        self.unseen, self.stock = lay.unseen, lay.stock
        self.pending_drawn, self.pending_last, self.deciding = lay.pending_drawn, lay.pending_last, lay.deciding
        for r in range(lay.players):
            self.hidden_wei[r], self.chi[r] = lay.hidden_wei[r], lay.chi[r]
            self.discarded[r], self.unclaimed[r] = lay.discarded[r], lay.unclaimed[r]
            self.dealer[r], self.turn[r], self.dead[r] = lay.dealer[r], lay.turn[r], lay.dead[r]
            self.hand_count[r], self.pending_from[r] = lay.hand_count[r], lay.pending_from[r]
        if len(group_kinds) > KINDS:
            raise ValueError(f"room for {KINDS} group kinds, got {len(group_kinds)}")
        self.nkinds = len(group_kinds)
        for j, kind in enumerate(group_kinds):
            self.kinds[j] = <PyObject *>kind
            bases = lay.same_by_kind[id(kind)]
            self.kind_same[j] = bases is not None
            for r in range(lay.players):
                self.kind_base[j][r] = bases[r] if bases is not None else 0
        self.phase_of = dict(lay.phase_of)


cdef tuple _GROUP_KINDS = ()  # held: _Layout keeps their addresses


def setup(layouts, relative, int kinds, group_kinds, action_ids, decision_order):
    """The tensor layouts by players in the hand (``paohuzi.env.features.LAYOUTS``), the function that maps
    each seat to its relative index (``features._relative``), the group kinds (``paohuzi.groups.GroupKind``),
    and for :class:`Rows` the legal actions' IDs (``paohuzi.env.actions.action_ids``) and the order of the
    seats deciding together (``paohuzi.env.common.decision_order``)."""
    global _relative, _action_ids, _decision_order, _GROUP_KINDS
    if kinds != W:
        raise ValueError(f"the compiled tensor counts {W} card kinds, the cards module {kinds}")
    _GROUP_KINDS = tuple(group_kinds)
    _LAYOUTS.clear()
    for players, lay in layouts.items():
        _LAYOUTS[players] = _Layout(lay, _GROUP_KINDS)
    _relative = relative
    _action_ids = action_ids
    _decision_order = decision_order


cdef class Rows:
    """The batch's arrays, written in place one row at a time by :meth:`observe`: ``observations`` (``uint8``,
    rows × tensor size), ``masks`` (``int8``, rows × action IDs) and ``seats`` (``int64``, the deciding seat of
    each row). The arrays are held (and must stay C-contiguous and the same size) as long as this object."""

    cdef unsigned char[:, ::1] _observations
    cdef signed char[:, ::1] _masks
    cdef int64_t[::1] _seats
    cdef Py_ssize_t rows, size, actions

    def __init__(self, observations, masks, seats):
        self._observations = observations
        self._masks = masks
        self._seats = seats
        self.rows = self._observations.shape[0]
        self.size = self._observations.shape[1]
        self.actions = self._masks.shape[1]
        if self._masks.shape[0] != self.rows or self._seats.shape[0] != self.rows:
            raise ValueError("observations, masks and seats need one row per hand")

    def observe(self, hand, Py_ssize_t row):
        """Row ``row`` is ``hand`` (an engine :class:`~paohuzi.engine.Hand` whose hand is on): write its deciding
        seat (the AEC environment's ``agent_selection``), that seat's tensor and its legal IDs as a 0/1 mask;
        returns that seat's observation."""
        cdef Py_ssize_t k, offer
        if row < 0 or row >= self.rows:
            raise IndexError(f"row {row} of {self.rows}")
        deciding = hand.deciding
        seat = deciding[0] if len(deciding) == 1 else _decision_order(hand)[0]
        obs = hand.observation(seat)
        if _write(obs, &self._observations[row, 0], self.size) != self.size:
            raise ValueError(f"the tensor of {len(obs.seats)} seats in play does not fit rows of {self.size}")
        pending = obs.pending
        card = None if pending is None else pending.card
        offer = W if card is None else _card(card)
        cdef signed char *m = &self._masks[row, 0]
        memset(m, 0, self.actions)
        for action in obs.legal:
            k = _action_id(action, card, offer)
            if k < 0 or k >= self.actions:
                raise ValueError(f"action ID {k} out of range for {self.actions} IDs")
            m[k] = 1
        self._seats[row] = seat
        return obs


def featurize_into(obs, unsigned char[::1] out, Py_ssize_t start):
    """Write the tensor of ``obs`` (an :class:`~paohuzi.engine.Observation`) into ``out[start:start + size]``."""
    cdef _Layout lay = _LAYOUTS[len(obs.seats)]
    if start < 0 or start + lay.size > out.shape[0]:
        raise ValueError(f"the tensor ({lay.size} values) does not fit at {start} in a buffer of {out.shape[0]}")
    _write(obs, &out[start], lay.size)


cdef Py_ssize_t _write(obs, unsigned char *b, Py_ssize_t room) except -1:  # noqa: C901 (one block per piece)
    """The tensor of ``obs`` from ``b`` on, where ``room`` values fit; returns its size (its layout's)."""
    cdef Py_ssize_t i, j, k, r, s, off, nrel, size, disc, uncl
    cdef int seen[W]
    cdef _Layout lay
    cdef _Entry e
    seats = obs.seats
    rel = _relative(seats, obs.seat)
    lay = _LAYOUTS[len(seats)]
    size = lay.size
    if size > room:
        raise ValueError(f"the tensor ({size} values) does not fit in {room}")
    memset(b, 0, size)
    for k in range(W):
        seen[k] = 0
    for card in obs.hand:
        seen[_card(card)] += 1
    for k in range(W):  # hand and kan: the first two pieces of every layout
        b[k] = seen[k]
        b[W + k] = 1 if seen[k] == 3 else 0
    nrel = len(rel)
    s = 0
    for groups in obs.tables:
        if groups:
            seat_rel = rel[s] if s < nrel else None
            if seat_rel is None:  # the seat sitting out has no table; were one given, its cards are still seen
                for g in groups:
                    if g is not None:
                        _group(g, &e)
                        for i in range(e.n):
                            seen[e.cards[i]] += 1
            else:
                r = seat_rel
                for g in groups:
                    if g is None:  # another seat's 偎: three backs (R5)
                        b[lay.hidden_wei[r]] += 1
                        continue
                    _group(g, &e)
                    for j in range(lay.nkinds):
                        if lay.kinds[j] == e.kind:
                            break
                    else:
                        raise KeyError(f"not a group kind: {g.kind!r}")
                    if not lay.kind_same[j]:  # 句 / 绞
                        off = lay.chi[r]
                        for i in range(e.n):
                            k = e.cards[i]
                            b[off + k] += 1
                            seen[k] += 1
                    else:
                        k = e.cards[0]
                        b[lay.kind_base[j][r] + k] = 1
                        seen[k] += e.n
        s += 1
    s = 0
    for row in obs.rows:
        if row:
            r = rel[s]
            disc = lay.discarded[r]
            uncl = lay.unclaimed[r]
            for entry in row:
                _row_card(entry, &e)
                k = e.cards[0]
                if e.n:
                    b[disc + k] += 1
                else:
                    b[uncl + k] += 1
                seen[k] += 1
        s += 1
    pending = obs.pending
    if pending is not None:
        k = _card(pending.card)
        b[lay.pending + k] = 1
        seen[k] += 1
        r = rel[pending.from_seat]
        b[lay.pending_from[r]] = 1
        b[lay.pending_drawn] = 1 if pending.drawn else 0
        b[lay.pending_last] = 1 if pending.last else 0
    b[lay.liangzhang + _card(obs.liangzhang)] = 1
    chou = obs.chou
    for card in chou.chi:
        b[lay.chou_chi + _card(card)] = 1
    for card in chou.peng:
        b[lay.chou_peng + _card(card)] = 1
    for card in chou.renpeng:
        k = _card(card)
        b[lay.renpeng + k] = 1
    r = rel[obs.dealer]
    b[lay.dealer[r]] = 1
    turn = obs.turn
    if turn < nrel and rel[turn] is not None:
        r = rel[turn]
        b[lay.turn[r]] = 1
    for dead in obs.dead:
        r = rel[dead]
        b[lay.dead[r]] = 1
    phase = lay.phase_of.get(obs.phase)
    if phase is not None:
        off = phase
        b[off] = 1
    b[lay.deciding] = 1 if obs.deciding else 0
    b[lay.stock] = obs.stock
    hand_counts = obs.hand_counts
    for seat in obs.seats:
        r = rel[seat]
        b[lay.hand_count[r]] = hand_counts[seat]
    off = lay.unseen
    for k in range(W):  # R5: never below 0
        b[off + k] = 4 - seen[k] if seen[k] < 4 else 0
    return size
