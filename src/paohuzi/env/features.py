"""The observation tensor and the action mask, built from a seat's observation dict only (R5).

The input is :meth:`paohuzi.engine.Hand.observation` (an :class:`~paohuzi.engine.Observation`, or its
JSON form) — what one seat may know — never the referee view,
so the tensor cannot leak a hidden card. The tensor is one flat ``float32`` vector of
:data:`OBSERVATION_SIZE` values made of the named pieces of :data:`PIECES`, each documented in the table
of the :mod:`paohuzi.env` docstring (the environment's documentation page); :func:`views` gives each
piece by name. Seats are relative to the observing seat: ``me``, ``next`` (下家) and ``prev`` (上家), and
``across`` (对家) between them with four players in the hand (R9.3: :data:`LAYOUTS`, :func:`observation_high`).

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
from typing import Any, Final

import numpy as np

from paohuzi.cards import NUM_KINDS
from paohuzi.engine import Observation, Phase
from paohuzi.env.actions import NUM_ACTIONS, NUM_ACTIONS_YIWUSHI, action_ids
from paohuzi.groups import GroupKind
from paohuzi.rules import RuleSet

__all__ = [
    "PIECES",
    "OBSERVATION_SIZE",
    "OBSERVATION_HIGH",
    "RELATIVE",
    "RELATIVE_4",
    "PHASES",
    "Layout",
    "LAYOUTS",
    "relative_names",
    "layout_of",
    "observation_size",
    "observation_high",
    "featurize",
    "featurize_bytes",
    "action_mask",
    "views",
    "pending_card",
]

#: The relative seat names, in order: me, 下家, 上家 (three players in the hand).
RELATIVE = ("me", "next", "prev")
#: With four players in the hand (R9.3 六胡抢): me, 下家, 对家 (across the table), 上家.
RELATIVE_4 = ("me", "next", "across", "prev")
#: The decision phases with a one-hot scalar each (``observation["phase"]``; ``over`` has none).
PHASES = ("discard", "claim", "self_hu", "liangzhang")

_W = NUM_KINDS


def relative_names(players: int) -> tuple[str, ...]:
    """The relative seat names for ``players`` in the hand: :data:`RELATIVE` (3) or :data:`RELATIVE_4` (4)."""
    if players not in (3, 4):
        raise ValueError(f"a hand has 3 or 4 players in play, got {players}")
    return RELATIVE_4 if players == 4 else RELATIVE


def _pieces(players: int = 3, cards: int = 21, stock: int = 19) -> tuple[tuple[str, int, int], ...]:
    """The pieces for ``players`` in the hand, ``cards`` the dealer's dealt cards (R2: 21; R9.3: 15) and
    ``stock`` the stock after the deal (the largest values of ``hand_count``, ``hidden_wei`` and ``stock``)."""
    rel = relative_names(players)
    out: list[tuple[str, int, int]] = [("hand", _W, 4), ("kan", _W, 1)]
    for kind, high in (("ti", 1), ("pao", 1), ("wei", 1), ("peng", 1), ("chi", 4)):
        out += [(f"{kind}_{r}", _W, high) for r in rel]
    for kind in ("discarded", "unclaimed"):
        out += [(f"{kind}_{r}", _W, 4) for r in rel]
    out += [("pending", _W, 1), ("liangzhang", _W, 1), ("chou_chi", _W, 1), ("chou_peng", _W, 1)]
    out += [("renpeng", _W, 1), ("unseen", _W, 4), ("stock", 1, stock)]
    out += [(f"hand_count_{r}", 1, cards) for r in rel]
    out += [(f"hidden_wei_{r}", 1, cards // 3) for r in rel]
    for kind in ("dealer", "turn", "dead"):
        out += [(f"{kind}_{r}", 1, 1) for r in rel]
    out += [(f"phase_{p}", 1, 1) for p in PHASES]
    out += [("pending_drawn", 1, 1)]
    out += [(f"pending_from_{r}", 1, 1) for r in rel]
    out += [("pending_last", 1, 1), ("deciding", 1, 1)]
    return tuple(out)


class Layout:
    """Where each piece lies in the tensor of a hand with ``players`` in play (3, or 4 in R9.3 六胡抢): the
    pieces depend only on that count; their largest values also on the deal (:func:`observation_high`).

    :ivar players: seats in play; :ivar pieces: (name, size, largest value at R2's deal); :ivar size: the
        tensor's length (606 with 3 players, 752 with 4); :ivar offset: each piece's first index.
    """

    def __init__(self, players: int) -> None:
        self.players = players
        rel = relative_names(players)
        self.pieces = _pieces(players)
        self.offset: dict[str, int] = {}
        pos = 0
        for name, size, _ in self.pieces:
            self.offset[name] = pos
            pos += size
        self.size = pos
        o = self.offset
        same = {kind: tuple(o[f"{kind}_{r}"] for r in rel) for kind in ("ti", "pao", "wei", "peng")}
        same["chouwei"] = same["wei"]
        # Per group kind: the piece offsets by relative seat of a same-kind group (ti, pao, wei, peng), or None
        # for a 句/绞 (counted per card in the chi piece). Keyed by id: an Enum's hash is a Python-level call,
        # and the members live as long as the module.
        self.same_by_kind: dict[int, tuple[int, ...] | None] = {id(k): same.get(k.value) for k in GroupKind}
        self.chi = tuple(o[f"chi_{r}"] for r in rel)
        self.discarded = tuple(o[f"discarded_{r}"] for r in rel)
        self.unclaimed = tuple(o[f"unclaimed_{r}"] for r in rel)
        self.hand_count = tuple(o[f"hand_count_{r}"] for r in rel)
        self.hidden_wei = tuple(o[f"hidden_wei_{r}"] for r in rel)
        self.dealer = tuple(o[f"dealer_{r}"] for r in rel)
        self.turn = tuple(o[f"turn_{r}"] for r in rel)
        self.dead = tuple(o[f"dead_{r}"] for r in rel)
        self.pending_from = tuple(o[f"pending_from_{r}"] for r in rel)
        self.phase_of = {Phase(p): o[f"phase_{p}"] for p in PHASES}  # a StrEnum hashes as its text
        self.pending, self.liangzhang, self.unseen, self.stock = o["pending"], o["liangzhang"], o["unseen"], o["stock"]
        self.chou_chi, self.chou_peng, self.renpeng = o["chou_chi"], o["chou_peng"], o["renpeng"]
        self.pending_drawn, self.pending_last, self.deciding = o["pending_drawn"], o["pending_last"], o["deciding"]


#: The layout of each number of players in the hand.
LAYOUTS: dict[int, Layout] = {n: Layout(n) for n in (3, 4)}
_L3 = LAYOUTS[3]
_BY_SIZE = {lay.size: lay for lay in LAYOUTS.values()}

#: The pieces of the tensor with three players in the hand, in order: (name, size, largest value at R2's deal).
PIECES = _L3.pieces
_OFFSET: dict[str, int] = _L3.offset
OBSERVATION_SIZE = _L3.size
#: The largest value of every element (the smallest is 0) with three players and R2's deal (21 cards, stock 19):
#: the ``high`` of the observation ``Box`` of the classic presets (:func:`observation_high` for any rule set).
OBSERVATION_HIGH = np.concatenate([np.full(size, high, np.float32) for _, size, high in PIECES])

_HAND, _KAN = _OFFSET["hand"], _OFFSET["kan"]  # the same in every layout (the first pieces)


def layout_of(rules: RuleSet) -> Layout:
    """The layout of a rule set's tensors: by its players in a hand (:attr:`RuleSet.active_players`)."""
    return LAYOUTS[rules.active_players]


def observation_size(rules: RuleSet) -> int:
    """The tensor's length under ``rules``: 606 with 3 players in the hand, 752 with 4 (R9.3)."""
    return layout_of(rules).size


def observation_high(rules: RuleSet) -> np.ndarray:
    """The largest value of every element under ``rules`` (the ``high`` of its observation ``Box``): the
    pieces of its layout, with the deal's hand size and stock (R2: 21 cards, stock 19; R9.3: 15 cards, stock
    23 with 4 players, 37 with 3) for ``hand_count``, ``hidden_wei`` (hand size ÷ 3) and ``stock``.

    >>> from paohuzi.rules import find_preset
    >>> bool((observation_high(find_preset("qq")) == OBSERVATION_HIGH).all())
    True
    """
    pieces = _pieces(rules.active_players, rules.dealer_cards, rules.stock_size)
    return np.concatenate([np.full(size, high, np.float32) for _, size, high in pieces])


def _typed(obs: Observation | Mapping[str, Any]) -> Observation:
    return obs if isinstance(obs, Observation) else Observation.from_dict(obs)


# Per (seats in play, observing seat): each seat at the table -> its relative index (None: sitting out).
_RELATIVE: Final[dict[tuple[tuple[int, ...], int], tuple[int | None, ...]]] = {}
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


def featurize(obs: Observation | Mapping[str, Any]) -> np.ndarray:
    """The observation tensor (see the :mod:`paohuzi.env` docstring) of one seat's observation.

    :param obs: :meth:`paohuzi.engine.Hand.observation` of the seat (R5-safe), or its JSON form.
    :returns: a new ``float32`` array of shape ``(OBSERVATION_SIZE,)`` — the size of the layout of the seats in
        play (:data:`LAYOUTS`: 606 with three, 752 with four, R9.3).
    """
    return np.frombuffer(featurize_bytes(obs), np.uint8).astype(np.float32)


def featurize_bytes(obs: Observation | Mapping[str, Any]) -> bytearray:  # noqa: C901, PLR0912, PLR0915 (one block per feature plane)
    """:func:`featurize`'s values as bytes (every value is a count below 256), before the conversion to
    ``float32``: the batched environment (:mod:`paohuzi.env.batch`) copies them into one buffer and converts
    the whole batch at once.
    """
    if type(obs) is not Observation:
        obs = _typed(obs)
    # Every value is a small count (< 256): count in a bytearray, convert once. ``seen`` counts the copies
    # of each kind this seat sees, for the unseen piece (Observation.unseen, computed along the way).
    rel = _relative(obs.seats, obs.seat)
    lay = LAYOUTS[len(obs.seats)]
    b = bytearray(lay.size)
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
                b[lay.hidden_wei[r]] += 1
                continue
            base = lay.same_by_kind[id(g.kind)]
            cards = g.cards
            if base is None:  # 句 / 绞
                off = lay.chi[r]
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
        discarded, unclaimed = lay.discarded[r], lay.unclaimed[r]
        for entry in row:
            k = entry.card
            b[(discarded if entry.discarded else unclaimed) + k] += 1
            seen[k] += 1
    pending = obs.pending
    if pending is not None:
        k = pending.card
        b[lay.pending + k] = 1
        seen[k] += 1
        b[lay.pending_from[rel[pending.from_seat]]] = 1  # type: ignore[index]
        b[lay.pending_drawn] = pending.drawn
        b[lay.pending_last] = pending.last
    b[lay.liangzhang + obs.liangzhang] = 1
    chou = obs.chou
    for k in chou.chi:
        b[lay.chou_chi + k] = 1
    for k in chou.peng:
        b[lay.chou_peng + k] = 1
    for k in chou.renpeng:
        b[lay.renpeng + k] = 1
    b[lay.dealer[rel[obs.dealer]]] = 1  # type: ignore[index]
    turn = obs.turn
    if turn < len(rel) and rel[turn] is not None:
        b[lay.turn[rel[turn]]] = 1  # type: ignore[index]
    for s in obs.dead:
        b[lay.dead[rel[s]]] = 1  # type: ignore[index]
    phase = lay.phase_of.get(obs.phase)
    if phase is not None:
        b[phase] = 1
    b[lay.deciding] = obs.deciding
    b[lay.stock] = obs.stock
    hand_counts = obs.hand_counts
    for s in obs.seats:
        b[lay.hand_count[rel[s]]] = hand_counts[s]  # type: ignore[index]
    b[lay.unseen : lay.unseen + _W] = bytes(seen).translate(_COPIES_LEFT)
    return b


def pending_card(obs: Observation | Mapping[str, Any]) -> int | None:
    """The kind index of the card on offer in ``obs`` (a claim window), else None."""
    pending = _typed(obs).pending
    return None if pending is None else int(pending.card)


def action_mask(obs: Observation | Mapping[str, Any], selected: bool = True) -> np.ndarray:
    """The ``int8`` action mask of ``obs``: 1 for the ID of every legal action (``obs.legal``).

    Its length is the rule set's action count (:func:`paohuzi.env.actions.num_actions`: 115, or 171 with
    ``yiwushi``, R9.3), read from the observation's options.

    :param selected: False gives all zeros (the PettingZoo convention for agents not to move).
    """
    if type(obs) is not Observation:
        obs = _typed(obs)
    mask = np.zeros(NUM_ACTIONS_YIWUSHI if obs.options.get("yiwushi") else NUM_ACTIONS, np.int8)
    legal = obs.legal
    if selected and legal:
        pending = obs.pending
        mask[action_ids(legal, None if pending is None else pending.card)] = 1
    return mask


def views(tensor: np.ndarray) -> dict[str, np.ndarray]:
    """Each named piece of an observation tensor (views, not copies); the layout is told by its length.

    >>> t = np.zeros(OBSERVATION_SIZE, np.float32)
    >>> v = views(t)
    >>> v["pending"].shape, v["deciding"].shape, len(v) == len(PIECES)
    ((20,), (1,), True)
    >>> sorted(k for k in views(np.zeros(752, np.float32)) if k.startswith("chi_"))
    ['chi_across', 'chi_me', 'chi_next', 'chi_prev']
    """
    lay = _BY_SIZE.get(len(tensor))
    if lay is None:
        raise ValueError(f"an observation tensor has {' or '.join(map(str, _BY_SIZE))} values, got {len(tensor)}")
    return {name: tensor[lay.offset[name] : lay.offset[name] + size] for name, size, _ in lay.pieces}
