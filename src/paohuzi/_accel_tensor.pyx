# cython: language_level=3, boundscheck=False, wraparound=False
"""The batched environment's observation tensor, compiled (issue 36; docs/decisions.md "The compiled
accelerator"): :func:`featurize_into` writes :func:`paohuzi.env.features.featurize_bytes`' values straight into a
slice of a batch buffer. The same reading of the same observation (R5: only what the seat may know), each
count kept in a C array and each value one store — the mypyc module pays a generic call for every bytearray
item (docs/PERFORMANCE.md, "Issue 36"). ``paohuzi.env.batch`` loads it (:func:`setup` gives it the layouts)
and falls back to ``featurize_bytes`` when it is not built, stale or ``PAOHUZI_PURE=1``;
``tests/env/test_batch_accel.py`` compares both on random hands of every preset.
"""

SOURCES = ("_accel_tensor.pyx", "_accel_guard.pxi")

include "_accel_guard.pxi"

DEF W = 20  # card kinds (paohuzi.cards.NUM_KINDS; setup() checks it)

cdef dict _LAYOUTS = {}  # players in the hand -> _Layout
cdef object _relative = None


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
    cdef dict same_by_kind  # id(GroupKind) -> offsets by relative seat, or None (句/绞)
    cdef dict phase_of

    def __init__(self, lay):
        cdef Py_ssize_t r
        self.size, self.pending, self.liangzhang = lay.size, lay.pending, lay.liangzhang
        self.chou_chi, self.chou_peng, self.renpeng = lay.chou_chi, lay.chou_peng, lay.renpeng
        self.unseen, self.stock = lay.unseen, lay.stock
        self.pending_drawn, self.pending_last, self.deciding = lay.pending_drawn, lay.pending_last, lay.deciding
        for r in range(lay.players):
            self.hidden_wei[r], self.chi[r] = lay.hidden_wei[r], lay.chi[r]
            self.discarded[r], self.unclaimed[r] = lay.discarded[r], lay.unclaimed[r]
            self.dealer[r], self.turn[r], self.dead[r] = lay.dealer[r], lay.turn[r], lay.dead[r]
            self.hand_count[r], self.pending_from[r] = lay.hand_count[r], lay.pending_from[r]
        self.same_by_kind = dict(lay.same_by_kind)
        self.phase_of = dict(lay.phase_of)


def setup(layouts, relative, int kinds):
    """The tensor layouts by players in the hand (``paohuzi.env.features.LAYOUTS``) and the function that maps
    each seat to its relative index (``features._relative``)."""
    global _relative
    if kinds != W:
        raise ValueError(f"the compiled tensor counts {W} card kinds, the cards module {kinds}")
    _LAYOUTS.clear()
    for players, lay in layouts.items():
        _LAYOUTS[players] = _Layout(lay)
    _relative = relative


def featurize_into(obs, unsigned char[::1] out, Py_ssize_t start):  # noqa: C901 (one block per piece)
    """Write the tensor of ``obs`` (an :class:`~paohuzi.engine.Observation`) into ``out[start:start + size]``."""
    cdef Py_ssize_t i, k, r, s, off, base, nrel, size, disc, uncl
    cdef int seen[W]
    cdef _Layout lay
    seats = obs.seats
    rel = _relative(seats, obs.seat)
    lay = _LAYOUTS[len(seats)]
    size = lay.size
    if start < 0 or start + size > out.shape[0]:
        raise ValueError(f"the tensor ({size} values) does not fit at {start} in a buffer of {out.shape[0]}")
    cdef unsigned char *b = &out[start]
    for i in range(size):
        b[i] = 0
    for k in range(W):
        seen[k] = 0
    for card in obs.hand:
        k = card
        seen[k] += 1
    for k in range(W):  # hand and kan: the first two pieces of every layout
        b[k] = seen[k]
        b[W + k] = 1 if seen[k] == 3 else 0
    same_by_kind = lay.same_by_kind
    nrel = len(rel)
    s = 0
    for groups in obs.tables:
        if groups:
            seat_rel = rel[s] if s < nrel else None
            if seat_rel is None:  # the seat sitting out has no table; were one given, its cards are still seen
                for g in groups:
                    if g is not None:
                        for card in g.cards:
                            k = card
                            seen[k] += 1
            else:
                r = seat_rel
                for g in groups:
                    if g is None:  # another seat's 偎: three backs (R5)
                        b[lay.hidden_wei[r]] += 1
                        continue
                    bases = same_by_kind[id(g.kind)]
                    cards = g.cards
                    if bases is None:  # 句 / 绞
                        off = lay.chi[r]
                        for card in cards:
                            k = card
                            b[off + k] += 1
                            seen[k] += 1
                    else:
                        k = cards[0]
                        base = bases[r]
                        b[base + k] = 1
                        seen[k] += len(cards)
        s += 1
    s = 0
    for row in obs.rows:
        if row:
            r = rel[s]
            disc = lay.discarded[r]
            uncl = lay.unclaimed[r]
            for entry in row:
                k = entry.card
                if entry.discarded:
                    b[disc + k] += 1
                else:
                    b[uncl + k] += 1
                seen[k] += 1
        s += 1
    pending = obs.pending
    if pending is not None:
        k = pending.card
        b[lay.pending + k] = 1
        seen[k] += 1
        r = rel[pending.from_seat]
        b[lay.pending_from[r]] = 1
        b[lay.pending_drawn] = 1 if pending.drawn else 0
        b[lay.pending_last] = 1 if pending.last else 0
    k = obs.liangzhang
    b[lay.liangzhang + k] = 1
    chou = obs.chou
    for card in chou.chi:
        k = card
        b[lay.chou_chi + k] = 1
    for card in chou.peng:
        k = card
        b[lay.chou_peng + k] = 1
    for card in chou.renpeng:
        k = card
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
