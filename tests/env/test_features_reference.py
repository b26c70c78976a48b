"""The fast :func:`paohuzi.env.features.featurize` (issue 15) gives exactly the tensor of the straightforward
one it replaced (kept here as the reference), on thousands of positions of random play — typed
observations and their JSON form, three-seat and four-seat tables, hands over included (R5: the tensor is
built from the observation alone either way)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from paohuzi.cards import NUM_KINDS
from paohuzi.engine import Hand, Observation
from paohuzi.env import features
from paohuzi.env.features import OBSERVATION_SIZE, featurize
from paohuzi.rules import find_preset

_O = features._OFFSET
_RELATIVE = features.RELATIVE
_SAME = {
    kind: tuple(_O[f"{'wei' if kind == 'chouwei' else kind}_{r}"] for r in _RELATIVE)
    for kind in ("ti", "pao", "wei", "chouwei", "peng")
}


def reference(obs: Observation) -> np.ndarray:
    """The tensor as first written: one plain loop per piece, ``Observation.unseen`` for the unseen piece."""
    me, seats = obs.seat, obs.seats
    pos = seats.index(me)
    rel = {s: (i - pos) % len(seats) for i, s in enumerate(seats)}
    t = np.zeros(OBSERVATION_SIZE, np.float32)
    name = _RELATIVE
    counts = [0] * NUM_KINDS
    for c in obs.hand:
        counts[c] += 1
    for k in range(NUM_KINDS):
        t[_O["hand"] + k] = counts[k]
        t[_O["kan"] + k] = counts[k] == 3
    for s, groups in enumerate(obs.tables):
        if s not in rel:
            continue
        r = rel[s]
        for g in groups:
            if g is None:
                t[_O[f"hidden_wei_{name[r]}"]] += 1
            elif g.kind.value in _SAME:
                t[_SAME[g.kind.value][r] + g.cards[0]] = 1
            else:
                for k in g.cards:
                    t[_O[f"chi_{name[r]}"] + k] += 1
    for s, row in enumerate(obs.rows):
        for e in row:
            piece = "discarded" if e.discarded else "unclaimed"
            t[_O[f"{piece}_{name[rel[s]]}"] + e.card] += 1
    if obs.pending is not None:
        t[_O["pending"] + obs.pending.card] = 1
        t[_O[f"pending_from_{name[rel[obs.pending.from_seat]]}"]] = 1
        t[_O["pending_drawn"]] = obs.pending.drawn
        t[_O["pending_last"]] = obs.pending.last
    t[_O["liangzhang"] + obs.liangzhang] = 1
    for piece, kinds in (("chou_chi", obs.chou.chi), ("chou_peng", obs.chou.peng), ("renpeng", obs.chou.renpeng)):
        for k in kinds:
            t[_O[piece] + k] = 1
    t[_O[f"dealer_{name[rel[obs.dealer]]}"]] = 1
    if obs.turn in rel:
        t[_O[f"turn_{name[rel[obs.turn]]}"]] = 1
    for s in obs.dead:
        t[_O[f"dead_{name[rel[s]]}"]] = 1
    if obs.phase.value in features.PHASES:
        t[_O[f"phase_{obs.phase.value}"]] = 1
    t[_O["deciding"]] = obs.deciding
    t[_O["stock"]] = obs.stock
    for s, r in rel.items():
        t[_O[f"hand_count_{name[r]}"]] = obs.hand_counts[s]
    t[_O["unseen"] : _O["unseen"] + NUM_KINDS] = obs.unseen()
    return t


def observations(rules: Any, hands: int, seed: int) -> list[Observation]:
    rng = random.Random(seed)
    out = []
    for i in range(hands):
        hand = Hand(rules, seed=seed * 10_000 + i)
        while True:
            out += [hand.observation(s) for s in hand.seats]
            if hand.over:
                break
            seat = rng.choice(hand.deciding)
            hand.apply(seat, rng.choice(hand.legal_actions(seat)))
    return out


@pytest.mark.parametrize(
    "rules",
    [find_preset("qq"), find_preset("hunan").with_options(four_players=True, win_on_discard=True)],
    ids=["qq", "hunan-four-players"],
)
def test_featurize_equals_the_reference(rules: Any) -> None:
    seen = 0
    for obs in observations(rules, 40, seed=3):
        want = reference(obs)
        assert np.array_equal(featurize(obs), want), obs
        seen += 1
        if seen % 7 == 0:  # the JSON form too (slower: read back first)
            assert np.array_equal(featurize(obs.to_dict()), want)
    assert seen > 3_000
