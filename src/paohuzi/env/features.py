"""The observation tensor and the action mask, built from a seat's observation dict only (R5).

The input is :meth:`paohuzi.engine.Hand.observation` (an :class:`~paohuzi.engine.Observation`, or its
JSON form) — what one seat may know — never the referee view,
so the tensor cannot leak a hidden card. The tensor is one flat ``float32`` vector of
:data:`OBSERVATION_SIZE` values made of the named pieces of :data:`PIECES`, each documented in the table
of the :mod:`paohuzi.env` docstring (the environment's documentation page); :func:`views` gives each
piece by name. Seats are relative to the observing seat: ``me``, ``next`` (下家) and ``prev`` (上家).

>>> from paohuzi.engine import Hand
>>> from paohuzi.rules import find_preset
>>> hand = Hand(find_preset("qq"), seed=3)
>>> obs = hand.observation(0)
>>> t = featurize(obs)
>>> t.shape, t.dtype, int(views(t)["hand"].sum()), int(views(t)["stock"][0])
((606,), dtype('float32'), 21, 19)
>>> mask = action_mask(obs)
>>> mask.shape, int(mask.sum()) == len(obs.legal)
((115,), True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from paohuzi.cards import NUM_KINDS
from paohuzi.engine import Observation, Phase
from paohuzi.env.actions import NUM_ACTIONS, action_ids
from paohuzi.groups import GroupKind

__all__ = [
    "PIECES",
    "OBSERVATION_SIZE",
    "OBSERVATION_HIGH",
    "RELATIVE",
    "PHASES",
    "featurize",
    "action_mask",
    "views",
    "pending_card",
]

#: The relative seat names, in order: me, 下家, 上家.
RELATIVE = ("me", "next", "prev")
#: The decision phases with a one-hot scalar each (``observation["phase"]``; ``over`` has none).
PHASES = ("discard", "claim", "self_hu", "liangzhang")

_W = NUM_KINDS


def _pieces() -> tuple[tuple[str, int, int], ...]:
    out: list[tuple[str, int, int]] = [("hand", _W, 4), ("kan", _W, 1)]
    for kind, high in (("ti", 1), ("pao", 1), ("wei", 1), ("peng", 1), ("chi", 4)):
        out += [(f"{kind}_{r}", _W, high) for r in RELATIVE]
    for kind in ("discarded", "unclaimed"):
        out += [(f"{kind}_{r}", _W, 4) for r in RELATIVE]
    out += [("pending", _W, 1), ("liangzhang", _W, 1), ("chou_chi", _W, 1), ("chou_peng", _W, 1)]
    out += [("renpeng", _W, 1), ("unseen", _W, 4), ("stock", 1, 19)]
    out += [(f"hand_count_{r}", 1, 21) for r in RELATIVE]
    out += [(f"hidden_wei_{r}", 1, 7) for r in RELATIVE]
    for kind in ("dealer", "turn", "dead"):
        out += [(f"{kind}_{r}", 1, 1) for r in RELATIVE]
    out += [(f"phase_{p}", 1, 1) for p in PHASES]
    out += [("pending_drawn", 1, 1)]
    out += [(f"pending_from_{r}", 1, 1) for r in RELATIVE]
    out += [("pending_last", 1, 1), ("deciding", 1, 1)]
    return tuple(out)


#: The pieces of the tensor, in order: (name, size, largest value).
PIECES = _pieces()
_OFFSET: dict[str, int] = {}
_pos = 0
for _name, _size, _ in PIECES:
    _OFFSET[_name] = _pos
    _pos += _size
OBSERVATION_SIZE = _pos
#: The largest value of every element (the smallest is 0): the ``high`` of the observation ``Box``.
OBSERVATION_HIGH = np.concatenate([np.full(size, high, np.float32) for _, size, high in PIECES])

_HAND, _KAN, _PENDING, _LIANG = _OFFSET["hand"], _OFFSET["kan"], _OFFSET["pending"], _OFFSET["liangzhang"]
_CHOU_CHI, _CHOU_PENG, _RENPENG, _UNSEEN = (
    _OFFSET["chou_chi"], _OFFSET["chou_peng"], _OFFSET["renpeng"], _OFFSET["unseen"],
)
_SAME = {
    "ti": tuple(_OFFSET[f"ti_{r}"] for r in RELATIVE),
    "pao": tuple(_OFFSET[f"pao_{r}"] for r in RELATIVE),
    "wei": tuple(_OFFSET[f"wei_{r}"] for r in RELATIVE),
    "chouwei": tuple(_OFFSET[f"wei_{r}"] for r in RELATIVE),
    "peng": tuple(_OFFSET[f"peng_{r}"] for r in RELATIVE),
}
_CHI = tuple(_OFFSET[f"chi_{r}"] for r in RELATIVE)
_ROW = {
    True: tuple(_OFFSET[f"discarded_{r}"] for r in RELATIVE),
    False: tuple(_OFFSET[f"unclaimed_{r}"] for r in RELATIVE),
}
_STOCK = _OFFSET["stock"]
_HAND_COUNT = tuple(_OFFSET[f"hand_count_{r}"] for r in RELATIVE)
_HIDDEN_WEI = tuple(_OFFSET[f"hidden_wei_{r}"] for r in RELATIVE)
_DEALER = tuple(_OFFSET[f"dealer_{r}"] for r in RELATIVE)
_TURN = tuple(_OFFSET[f"turn_{r}"] for r in RELATIVE)
_DEAD = tuple(_OFFSET[f"dead_{r}"] for r in RELATIVE)
_PHASE = {p: _OFFSET[f"phase_{p}"] for p in PHASES}
_PHASE_OF = {Phase(p): offset for p, offset in _PHASE.items()}  # a StrEnum hashes as its text
_PENDING_DRAWN = _OFFSET["pending_drawn"]
_PENDING_LAST = _OFFSET["pending_last"]
_DECIDING = _OFFSET["deciding"]
_PENDING_FROM = tuple(_OFFSET[f"pending_from_{r}"] for r in RELATIVE)


def _typed(obs: Observation | Mapping[str, Any]) -> Observation:
    return obs if isinstance(obs, Observation) else Observation.from_dict(obs)


# Per (seats in play, observing seat): each seat at the table -> its relative index (None: sitting out).
_RELATIVE: dict[tuple[tuple[int, ...], int], tuple[int | None, ...]] = {}
# Per group kind: the piece offsets by relative seat of a same-kind group (ti, pao, wei, peng), or None for
# a 句/绞 (counted per card in the chi piece). Keyed by id: an Enum's hash is a Python-level call, and the
# members live as long as the module.
_SAME_BY_KIND = {id(kind): _SAME.get(kind.value) for kind in GroupKind}
_COPIES_LEFT = bytes(max(0, 4 - x) for x in range(256))  # seen copies -> unseen copies (R5: never below 0)
_IS_KAN = bytes(int(x == 3) for x in range(256))  # copies in hand -> 1 for a 坎


def _relative(seats: tuple[int, ...], me: int) -> tuple[int | None, ...]:
    key = (seats, me)
    rel = _RELATIVE.get(key)
    if rel is None:
        n = len(seats)
        pos = seats.index(me)
        by_seat: list[int | None] = [None] * (max(seats) + 1)
        for i, s in enumerate(seats):
            by_seat[s] = (i - pos) % n
        rel = _RELATIVE[key] = tuple(by_seat)
    return rel


def featurize(obs: Observation | Mapping[str, Any]) -> np.ndarray:  # noqa: C901, PLR0912, PLR0915 (one block per feature plane)
    """The observation tensor (see the :mod:`paohuzi.env` docstring) of one seat's observation.

    :param obs: :meth:`paohuzi.engine.Hand.observation` of the seat (R5-safe), or its JSON form.
    :returns: a new ``float32`` array of shape ``(OBSERVATION_SIZE,)``.
    """
    if type(obs) is not Observation:
        obs = _typed(obs)
    # Every value is a small count (< 256): count in a bytearray, convert once. ``seen`` counts the copies
    # of each kind this seat sees, for the unseen piece (Observation.unseen, computed along the way).
    rel = _relative(obs.seats, obs.seat)
    b = bytearray(OBSERVATION_SIZE)
    seen = [0] * _W
    for card in obs.hand:
        seen[card] += 1
    held = bytes(seen)
    b[_HAND : _HAND + _W] = held
    b[_KAN : _KAN + _W] = held.translate(_IS_KAN)
    for s, groups in enumerate(obs.tables):
        if not groups:
            continue
        r = rel[s] if s < len(rel) else None
        if r is None:  # the seat sitting out has no table; were one given, its cards are still seen
            for g in groups:
                if g is not None:
                    for k in g.cards:
                        seen[k] += 1
            continue
        for g in groups:
            if g is None:  # another seat's 偎: three backs (R5)
                b[_HIDDEN_WEI[r]] += 1
                continue
            base = _SAME_BY_KIND[id(g.kind)]
            cards = g.cards
            if base is None:  # 句 / 绞
                off = _CHI[r]
                for k in cards:
                    b[off + k] += 1
                    seen[k] += 1
            else:
                k = cards[0]
                b[base[r] + k] = 1
                seen[k] += len(cards)
    for s, row in enumerate(obs.rows):
        if not row:
            continue
        r = rel[s]
        assert r is not None
        discarded, unclaimed = _ROW[True][r], _ROW[False][r]
        for entry in row:
            k = entry.card
            b[(discarded if entry.discarded else unclaimed) + k] += 1
            seen[k] += 1
    pending = obs.pending
    if pending is not None:
        k = pending.card
        b[_PENDING + k] = 1
        seen[k] += 1
        b[_PENDING_FROM[rel[pending.from_seat]]] = 1  # type: ignore[index]
        b[_PENDING_DRAWN] = pending.drawn
        b[_PENDING_LAST] = pending.last
    b[_LIANG + obs.liangzhang] = 1
    chou = obs.chou
    for k in chou.chi:
        b[_CHOU_CHI + k] = 1
    for k in chou.peng:
        b[_CHOU_PENG + k] = 1
    for k in chou.renpeng:
        b[_RENPENG + k] = 1
    b[_DEALER[rel[obs.dealer]]] = 1  # type: ignore[index]
    turn = obs.turn
    if turn < len(rel) and rel[turn] is not None:
        b[_TURN[rel[turn]]] = 1  # type: ignore[index]
    for s in obs.dead:
        b[_DEAD[rel[s]]] = 1  # type: ignore[index]
    phase = _PHASE_OF.get(obs.phase)
    if phase is not None:
        b[phase] = 1
    b[_DECIDING] = obs.deciding
    b[_STOCK] = obs.stock
    hand_counts = obs.hand_counts
    for s in obs.seats:
        b[_HAND_COUNT[rel[s]]] = hand_counts[s]  # type: ignore[index]
    b[_UNSEEN : _UNSEEN + _W] = bytes(seen).translate(_COPIES_LEFT)
    return np.frombuffer(b, np.uint8).astype(np.float32)


def pending_card(obs: Observation | Mapping[str, Any]) -> int | None:
    """The kind index of the card on offer in ``obs`` (a claim window), else None."""
    pending = _typed(obs).pending
    return None if pending is None else int(pending.card)


def action_mask(obs: Observation | Mapping[str, Any], selected: bool = True) -> np.ndarray:
    """The ``int8`` action mask of ``obs``: 1 for the ID of every legal action (``obs.legal``).

    :param selected: False gives all zeros (the PettingZoo convention for agents not to move).
    """
    if type(obs) is not Observation:
        obs = _typed(obs)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    legal = obs.legal
    if selected and legal:
        pending = obs.pending
        mask[action_ids(legal, None if pending is None else pending.card)] = 1
    return mask


def views(tensor: np.ndarray) -> dict[str, np.ndarray]:
    """Each named piece of an observation tensor (views, not copies).

    >>> t = np.zeros(OBSERVATION_SIZE, np.float32)
    >>> v = views(t)
    >>> v["pending"].shape, v["deciding"].shape, len(v) == len(PIECES)
    ((20,), (1,), True)
    """
    return {name: tensor[_OFFSET[name] : _OFFSET[name] + size] for name, size, _ in PIECES}
