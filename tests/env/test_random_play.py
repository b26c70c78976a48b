"""Masked random play (issue #7 acceptance): over 10,000 hands, an action drawn from the mask is always
legal, and every legal action the engine offers has a unique ID that decodes back to it (R4.2–R4.5).

The hands are split into chunks so that ``pytest -n 2`` shares them. The raw environment raises
:class:`~paohuzi.engine.IllegalActionError` on an illegal ID, so one illegal draw fails the chunk.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from paohuzi.cards import Card
from paohuzi.env import decode, raw_env
from paohuzi.rules import find_preset

HANDS = 10_000
CHUNKS = 10
PRESETS = ("qq", "hengyang", "hunan", "huayang")


@pytest.mark.soak  # 10,000 masked random hands (~60 s)
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_masked_random_play_is_always_legal(chunk: int) -> None:
    per_chunk = HANDS // CHUNKS
    rules = find_preset(PRESETS[chunk % len(PRESETS)])
    if chunk == CHUNKS - 1:
        rules = find_preset("hunan").with_options(four_players=True)
    env = raw_env(rules=rules)
    rng = random.Random(chunk)
    env.reset(seed=chunk * 1_000_003)
    hands = decisions = 0
    ends = {"hu": 0, "draw": 0}
    while hands < per_chunk:
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = env.legal_actions(agent)
            ids = [env.action_id(a) for a in legal]
            assert len(set(ids)) == len(ids), legal
            card = env.raw_observation(agent)["pending"]
            on_offer = None if card is None else Card.parse(card["card"])
            assert [decode(i, on_offer) for i in ids] == legal
            allowed = np.flatnonzero(obs["action_mask"]).tolist()
            assert allowed == sorted(ids)
            env.step(rng.choice(allowed))  # raises IllegalActionError if the engine refuses it
            decisions += 1
        ends[env.hand.outcome.kind] += 1
        hands += 1
        env.reset()
    assert decisions > per_chunk * 10 and ends["hu"] > 0 and ends["draw"] > 0


# R9.3 衡阳六胡抢 (issue 30): four active agents and three, with and without 一五十 and 明偎.
LIUHUQIANG = (
    {},
    {"players": 3},
    {"yiwushi": True, "mingwei": True},
    {"players": 3, "yiwushi": True, "tun": "1xi1tun"},
)


@pytest.mark.soak  # 4 × 1,000 masked random hands
@pytest.mark.parametrize("options", LIUHUQIANG, ids=["4", "3", "4-yiwushi-mingwei", "3-yiwushi-1xi1tun"])
def test_masked_random_play_liuhuqiang(options: dict[str, object]) -> None:
    rules = find_preset("liuhuqiang").with_options(**options) if options else find_preset("liuhuqiang")
    env = raw_env(rules=rules)
    rng = random.Random(30)
    env.reset(seed=30_000_003)
    hands = decisions = 0
    ends = {"hu": 0, "draw": 0}
    while hands < 1_000:
        total = 0.0
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                total += reward
                env.step(None)
                continue
            legal = env.legal_actions(agent)
            ids = [env.action_id(a) for a in legal]
            assert len(set(ids)) == len(ids), legal
            card = env.raw_observation(agent)["pending"]
            on_offer = None if card is None else Card.parse(card["card"])
            assert [decode(i, on_offer, rules.yiwushi) for i in ids] == legal
            allowed = np.flatnonzero(obs["action_mask"]).tolist()
            assert allowed == sorted(ids)
            env.step(rng.choice(allowed))
            decisions += 1
        assert total == 0 and len(env.possible_agents) == rules.players
        ends[env.hand.outcome.kind] += 1
        hands += 1
        env.reset()
    assert decisions > 1_000 * 5 and ends["hu"] > 0 and ends["draw"] > 0
