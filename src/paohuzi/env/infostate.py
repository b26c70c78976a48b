"""The information-state tensor (信息集): one seat's perfect-recall history of the hand, in order (issue 36).

The observation tensor (:mod:`paohuzi.env.features`) is a snapshot: counts without order, and a card another
seat took leaves no trace in the rows. The information state adds what the seat has seen *in order* — every
draw (the card when it is shown to the seat), discard, 提/偎/跑/碰/吃 and who made it and from whom, every card
left unclaimed, its own 过 and 臭 — as OpenSpiel's ``information_state_tensor`` does beside its
``observation_tensor``. CFR/NFSP-style methods and sequence models need it.

It is built from the seat's own version of each event (:meth:`paohuzi.engine.Event.for_seat`, the one place
of R5's per-event audience) and its observation, never from the referee's view: two hands that differ only in
cards the seat has not seen give the same tensor (the permutation test in ``tests/env/test_infostate.py``).

The tensor is one flat ``float32`` vector of three parts (docs/env.md "Information state"):

==============  =====================  ======================================================================
part            size                   value
==============  =====================  ======================================================================
``observation`` 606 (752, 4 in play)   the observation tensor of the same moment (:func:`featurize`)
``dealt``       20                     my hand as dealt, before the opening 提 (copies of each kind, max 4)
``history``     capacity × 74          one row per event I saw, in order; rows after the last are all 0
==============  =====================  ======================================================================

A history row (:data:`ROW`, 74 values, each 0 or 1 but ``laid``, max 4):

==============  ====  =======================================================================================
field           size  value
==============  ====  =======================================================================================
``present``     1     1 for a row that holds an event (0: padding)
``type``        15    one-hot: draw, show, discard, ti, wei, pao, peng, chi, unclaimed, pass, chou, dead, hu,
                      draw_game, escape (:data:`EVENT_TYPES`)
``actor``       4     one-hot, relative seat (me, next, across/prev …, as in the observation) of the seat that
                      acts: draws, discards, claims, wins; all 0 for a 荒庄
``source``      4     one-hot, relative seat the claimed card came from (跑, 碰, 吃)
``card``        20    one-hot, the card when I may see it (a draw: only my own; a 偎: mine, a 臭偎, or 明偎)
``laid``        20    a 吃's cards laid down with its 比 groups (copies of each kind)
``flags``       10    ``auto`` (a forced discard), ``last`` (海底), ``chou`` (a 臭偎), ``origin`` of a 提/跑
                      (dealt, kan, wei, peng), and of my 臭 event: ``chi``, ``peng``, ``renpeng`` (R4.7)
==============  ====  =======================================================================================

The history holds up to :func:`history_capacity` rows (10 per card in the stock and per seat in play: 220 in
the classic presets; random play needs at most 106, ``tests/env/test_infostate.py``); a longer history is
an :class:`~paohuzi.env.aec.EnvError`, never a silent truncation.

>>> from paohuzi.engine import Hand
>>> from paohuzi.rules import find_preset
>>> qq = find_preset("qq")
>>> hand = Hand(qq, seed=3)
>>> t = info_state(hand.observation(0), hand.events)
>>> t.shape, info_state_size(qq), int(info_views(t)["dealt"].sum())
((16906,), 16906, 21)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from paohuzi.bots.view import rules_of
from paohuzi.cards import NUM_KINDS, Card, PaohuziError
from paohuzi.engine import Event, Observation
from paohuzi.env.features import featurize, observation_high, observation_size
from paohuzi.rules import RuleSet

__all__ = [
    "EVENT_TYPES",
    "ROW",
    "ROW_SIZE",
    "InfoStateError",
    "History",
    "history_capacity",
    "info_state",
    "info_state_high",
    "info_state_size",
    "info_views",
]

#: The event types a history row can hold (``deal`` goes to the ``dealt`` part, ``settlement`` is left out:
#: the hand is over and the payments are the rewards).
EVENT_TYPES = (
    "draw", "show", "discard", "ti", "wei", "pao", "peng", "chi", "unclaimed", "pass", "chou", "dead",
    "hu", "draw_game", "escape",
)
_FLAGS = ("auto", "last", "chou", "origin_dealt", "origin_kan", "origin_wei", "origin_peng",
          "chou_chi", "chou_peng", "chou_renpeng")
#: The fields of a history row: (name, size), in order.
ROW: tuple[tuple[str, int], ...] = (
    ("present", 1), ("type", len(EVENT_TYPES)), ("actor", 4), ("source", 4), ("card", NUM_KINDS),
    ("laid", NUM_KINDS), ("flags", len(_FLAGS)),
)
#: Values in one history row (74).
ROW_SIZE = sum(size for _, size in ROW)
_AT: dict[str, int] = {}
_pos = 0
for _name, _size in ROW:
    _AT[_name] = _pos
    _pos += _size
_TYPE_AT = {t: _AT["type"] + i for i, t in enumerate(EVENT_TYPES)}
_FLAG_AT = {f: _AT["flags"] + i for i, f in enumerate(_FLAGS)}
_KIND = {str(c): int(c) for c in Card}


class InfoStateError(PaohuziError):
    """A history longer than the tensor holds (:func:`history_capacity`), or events not of one hand."""


def history_capacity(rules: RuleSet) -> int:
    """Rows in the ``history`` part under ``rules``: 10 × (cards in the stock + seats in play) — 220 in the
    classic presets, 270 in 六胡抢 with four, 400 with three (R9.3)."""
    return 10 * (rules.stock_size + rules.active_players)


def info_state_size(rules: RuleSet) -> int:
    """The information-state tensor's length under ``rules``: observation + 20 + capacity × 74."""
    return observation_size(rules) + NUM_KINDS + history_capacity(rules) * ROW_SIZE


def info_state_high(rules: RuleSet) -> np.ndarray:
    """The largest value of every element (the smallest is 0): the observation's highs, 4 for ``dealt``, and
    per history row 1 but 4 for ``laid``."""
    row = np.ones(ROW_SIZE, np.float32)
    row[_AT["laid"] : _AT["laid"] + NUM_KINDS] = 4
    return np.concatenate([
        observation_high(rules), np.full(NUM_KINDS, 4, np.float32), np.tile(row, history_capacity(rules)),
    ]).astype(np.float32)


def info_views(tensor: np.ndarray, rules: RuleSet | None = None) -> dict[str, np.ndarray]:
    """The three parts of an information-state tensor (views): ``observation``, ``dealt`` and ``history``
    (shape ``(capacity, 74)``); each row's fields with :func:`row_views`. ``rules`` tells the observation's
    size (default: the classic presets, 606)."""
    from paohuzi.rules import find_preset  # noqa: PLC0415 (only for the default)

    rules = rules or find_preset("qq")
    obs, cap = observation_size(rules), history_capacity(rules)
    if tensor.shape != (obs + NUM_KINDS + cap * ROW_SIZE,):
        raise ValueError(f"an information state under {rules.name} has {info_state_size(rules)} values, "
                         f"got shape {tensor.shape}")
    return {
        "observation": tensor[:obs],
        "dealt": tensor[obs : obs + NUM_KINDS],
        "history": tensor[obs + NUM_KINDS :].reshape(cap, ROW_SIZE),
    }


def row_views(rows: np.ndarray) -> dict[str, np.ndarray]:
    """The fields of history rows (the last axis, 74) by name (views)."""
    return {name: rows[..., _AT[name] : _AT[name] + size] for name, size in ROW}


class History:
    """The ``dealt`` and ``history`` parts of one seat's information state, kept up to date as the hand goes
    on: :meth:`update` encodes only the events since the last call (events are only ever appended)."""

    def __init__(self, seat: int, seats: Sequence[int], capacity: int) -> None:
        self.seat = seat
        n, pos = len(seats), list(seats).index(seat)
        self.rel = {s: (i - pos) % n for i, s in enumerate(seats)}
        self.capacity = capacity
        self.dealt = np.zeros(NUM_KINDS, np.float32)
        self.rows = np.zeros((capacity, ROW_SIZE), np.float32)
        self.count = 0  # rows written
        self.seen = 0  # events read

    def copy(self) -> History:
        new = History.__new__(History)
        new.seat, new.rel, new.capacity = self.seat, self.rel, self.capacity
        new.dealt, new.rows, new.count, new.seen = self.dealt.copy(), self.rows.copy(), self.count, self.seen
        return new

    def truncate(self, count: int, seen: int) -> None:
        """Back to ``count`` rows after ``seen`` events (an undo: the later events are gone)."""
        self.rows[count : self.count] = 0
        self.count, self.seen = count, seen

    def update(self, events: Sequence[Event]) -> None:
        """Encode the events after the ones already read, each as the seat may see it (R5)."""
        if len(events) < self.seen:
            raise InfoStateError("the events are not those of the hand this history follows")
        for i in range(self.seen, len(events)):
            data = events[i].for_seat(self.seat)
            if data is not None:
                self._encode(data)
        self.seen = len(events)

    def _encode(self, data: dict[str, Any]) -> None:
        kind = data["type"]
        if kind == "deal":
            for text in data["hands"][self.seat]:
                self.dealt[_KIND[text]] += 1
            return
        at = _TYPE_AT.get(kind)
        if at is None:  # settlement: the payments are the rewards
            return
        if self.count >= self.capacity:
            raise InfoStateError(f"the history holds {self.capacity} events (history_capacity); this hand has more")
        row = self.rows[self.count]
        self.count += 1
        row[0] = 1
        row[at] = 1
        seat = data.get("seat")
        if isinstance(seat, int):
            row[_AT["actor"] + self.rel[seat]] = 1
        source = data.get("source")
        if isinstance(source, int) and not isinstance(source, bool) and source in self.rel:
            row[_AT["source"] + self.rel[source]] = 1
        card = data.get("card")
        if card is not None:
            row[_AT["card"] + _KIND[card]] = 1
        if kind == "chi":
            for group in (data["group"], *data["bi"]):
                for text in group["cards"]:
                    row[_AT["laid"] + _KIND[text]] += 1
        _flags(row, kind, data)


def _flags(row: np.ndarray, kind: str, data: dict[str, Any]) -> None:
    """The ``flags`` of an event's row."""
    for flag in ("auto", "last", "chou"):
        if data.get(flag) is True and kind != "chou":
            row[_FLAG_AT[flag]] = 1
    origin = data.get("origin")
    if origin is not None:
        row[_FLAG_AT[f"origin_{origin}"]] = 1
    if kind == "chou":
        for flag in ("chi", "peng", "renpeng"):
            if data[flag]:
                row[_FLAG_AT[f"chou_{flag}"]] = 1


def info_state(observation: Observation, events: Sequence[Event], history: History | None = None,
               rules: RuleSet | None = None) -> np.ndarray:
    """The information-state tensor of ``observation``'s seat: :func:`featurize` of the observation, then the
    seat's ``dealt`` hand and its ``history`` of ``events`` (the hand's events so far, each read as the seat
    may see it, R5).

    :param history: a :class:`History` of this seat kept between calls (only new events are encoded); None
        encodes them all.
    :param rules: the hand's rule set (for the capacity); default: the observation's preset with its options.
    :raises InfoStateError: for a history longer than :func:`history_capacity`.
    """
    if history is None:
        if rules is None:
            rules = rules_of(observation)
        history = History(observation.seat, observation.seats, history_capacity(rules))
    history.update(events)
    return np.concatenate([featurize(observation), history.dealt, history.rows.reshape(-1)])
