"""Random play of 衡阳六胡抢 (R9.3) with four and with three players, under the preset and under random values of
its own options (``family_options``: 一五十, 明偎, 醒, 囤, 底, 起胡 …), with the engine's invariants of
``test_random_play.py`` after every step: the 80 cards conserved, R4.6 with 14, the deciding seats, R5 in
observations and events (明偎 included), the settlement (the discarder paying all (players − 1) shares), every
hand ended legally, and replay event for event."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from paohuzi.engine import replay
from paohuzi.rules import RuleSet, family_options, find_preset

from .test_random_play import _check_events, _check_settlement, _play

LHQ = find_preset("liuhuqiang")


def _options(players: int, rng: random.Random) -> RuleSet:
    """The preset with ``players``, each other option of the family at a random value half the time."""
    options: dict[str, Any] = {"players": players}
    for name, values in family_options(LHQ).items():
        if name in ("stake", "rounds", "players", "first_dealer") or rng.random() < 0.5:
            continue
        options[name] = rng.choice(values)
    return LHQ.with_options(**options)


def _run(players: int, seeds: range, observe_every: int) -> Counter[str]:
    kinds: Counter[str] = Counter()
    for i, seed in enumerate(seeds):
        rules = LHQ.with_options(players=players) if i % 3 == 0 else _options(players, random.Random(-seed))
        hand = _play(rules, seed, observe=i % observe_every == 0)
        outcome = hand.outcome
        assert outcome is not None
        assert len(hand.seats) == players == len(outcome.payments)
        kinds[outcome.kind.value] += 1
        if outcome.kind.value == "hu":
            kinds[outcome.source.value] += 1
            hu = next(e for e in hand.events if e.type == "hu").to_dict()
            assert hu["huxi"] >= rules.min_huxi and hu["tun"] is not None
        _check_settlement(hand)
        if outcome.kind.value != "escape":
            assert sum(outcome.payments) == 0
        if i % 4 == 0:
            _check_events(hand)
        again = replay(hand.record())
        assert again.events == hand.events and again.outcome == hand.outcome
    return kinds


@pytest.mark.parametrize("players", [4, 3])
def test_r9_3_random_play_quick(players: int) -> None:
    kinds = _run(players, range(8_100_000 + 1000 * players, 8_100_000 + 1000 * players + 60), observe_every=3)
    assert kinds["hu"] > 0 and kinds["draw"] > 0


@pytest.mark.soak  # 2 × 3 × 700 = 4,200 random hands
@pytest.mark.parametrize(("players", "chunk"), [(p, c) for p in (4, 3) for c in range(3)])
def test_r9_3_random_play_soak(players: int, chunk: int) -> None:
    start = 8_200_000 + 100_000 * players + 10_000 * chunk
    kinds = _run(players, range(start, start + 700), observe_every=10)
    assert kinds["hu"] > 0 and kinds["draw"] > 0 and kinds["discard"] > 0
