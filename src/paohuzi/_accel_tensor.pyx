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

cdef dict _LAYOUTS = {}
cdef object _relative = None


def setup(layouts, relative, int kinds):
    """The tensor layouts by players in the hand (``paohuzi.env.features.LAYOUTS``) and the function that maps
    each seat to its relative index (``features._relative``)."""
    global _relative
    if kinds != W:
        raise ValueError(f"the compiled tensor counts {W} card kinds, the cards module {kinds}")
    _LAYOUTS.clear()
    _LAYOUTS.update(layouts)
    _relative = relative


def featurize_into(obs, unsigned char[::1] out, Py_ssize_t start):  # noqa: C901 (one block per piece)
    """Write the tensor of ``obs`` (an :class:`~paohuzi.engine.Observation`) into ``out[start:start + size]``."""
    cdef Py_ssize_t i, k, r, s, off, base, nrel, size, disc, uncl
    cdef int seen[W]
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
    hidden_wei = lay.hidden_wei
    chi = lay.chi
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
                        off = hidden_wei[r]
                        b[off] += 1
                        continue
                    bases = same_by_kind[id(g.kind)]
                    cards = g.cards
                    if bases is None:  # 句 / 绞
                        off = chi[r]
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
    discarded = lay.discarded
    unclaimed = lay.unclaimed
    s = 0
    for row in obs.rows:
        if row:
            r = rel[s]
            disc = discarded[r]
            uncl = unclaimed[r]
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
        off = lay.pending
        b[off + k] = 1
        seen[k] += 1
        off = lay.pending_from[rel[pending.from_seat]]
        b[off] = 1
        off = lay.pending_drawn
        b[off] = 1 if pending.drawn else 0
        off = lay.pending_last
        b[off] = 1 if pending.last else 0
    k = obs.liangzhang
    off = lay.liangzhang
    b[off + k] = 1
    chou = obs.chou
    off = lay.chou_chi
    for card in chou.chi:
        k = card
        b[off + k] = 1
    off = lay.chou_peng
    for card in chou.peng:
        k = card
        b[off + k] = 1
    off = lay.renpeng
    for card in chou.renpeng:
        k = card
        b[off + k] = 1
    off = lay.dealer[rel[obs.dealer]]
    b[off] = 1
    turn = obs.turn
    if turn < nrel and rel[turn] is not None:
        off = lay.turn[rel[turn]]
        b[off] = 1
    for dead in obs.dead:
        off = lay.dead[rel[dead]]
        b[off] = 1
    phase = lay.phase_of.get(obs.phase)
    if phase is not None:
        off = phase
        b[off] = 1
    off = lay.deciding
    b[off] = 1 if obs.deciding else 0
    off = lay.stock
    b[off] = obs.stock
    hand_counts = obs.hand_counts
    hand_count = lay.hand_count
    for seat in obs.seats:
        off = hand_count[rel[seat]]
        b[off] = hand_counts[seat]
    off = lay.unseen
    for k in range(W):  # R5: never below 0
        b[off + k] = 4 - seen[k] if seen[k] < 4 else 0
