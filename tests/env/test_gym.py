"""The Gymnasium single-agent environment (issue #7): the learner against built-in bots."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from paohuzi.bots import BotError, make_bot
from paohuzi.env import DEFAULT_ILLEGAL_REWARD, GYM_ID, EnvError, gym_env
from paohuzi.env.single import PaohuziGymEnv
from paohuzi.rules import find_preset

FOUR = find_preset("hunan").with_options(four_players=True)


def run_episode(env: PaohuziGymEnv, seed: int | None, rng: np.random.Generator) -> list[tuple[bytes, float]]:
    obs, info = env.reset(seed=seed)
    trace = [(obs["observation"].tobytes(), 0.0)]
    while True:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs["observation"].tobytes(), reward))
        assert not truncated
        if terminated:
            assert "outcome" in info
            return trace
        assert reward == 0.0


def test_check_env() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gymnasium.make(GYM_ID, opponents="random").unwrapped)


def test_make_by_id() -> None:
    env = gymnasium.make(GYM_ID, opponents="random", seat=1)
    obs, info = env.reset(seed=2)
    assert info["seat"] == 1 and obs["action_mask"].any()


def test_same_seed_same_episode() -> None:
    traces = [run_episode(gym_env(opponents="random"), 21, np.random.default_rng(4)) for _ in range(2)]
    assert traces[0] == traces[1]


def test_reward_is_the_learners_points() -> None:
    """R7.3: the final reward is the learner's payment over the stake."""
    env = gym_env(opponents="random,random", seat=0)
    rng = np.random.default_rng(0)
    rewards = []
    for seed in range(15):
        trace = run_episode(env, seed, rng)
        outcome = env.hand.outcome
        assert outcome is not None and env.seat == 0
        assert trace[-1][1] == outcome.payments[0] / env.rules.stake
        rewards.append(trace[-1][1])
    assert any(r != 0 for r in rewards)


def test_learner_seat_varies_with_the_seed() -> None:
    env = gym_env(opponents="random")
    seats = {env.reset(seed=s)[1]["seat"] for s in range(12)}
    assert seats == {0, 1, 2}


def test_illegal_action_ends_the_episode() -> None:
    env = gym_env(opponents="random")
    obs, _ = env.reset(seed=6)
    before = env.hand.actions
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated, info["illegal"]) == (DEFAULT_ILLEGAL_REWARD, True, False, True)
    assert env.hand.actions == before and not obs["action_mask"].any()
    with pytest.raises(EnvError, match="call reset"):
        env.step(0)
    obs, _ = env.reset()
    assert obs["action_mask"].any()


def test_four_players() -> None:
    env = gym_env(rules=FOUR, opponents="random")
    rng = np.random.default_rng(1)
    for seed in range(5):
        run_episode(env, seed, rng)
        assert env.seat in env.hand.seats
    with pytest.raises(EnvError, match="four_players"):
        gym_env(rules=FOUR, seat=0)


def test_bot_objects_as_opponents() -> None:
    bots = [make_bot("random", seed=1), make_bot("greedy", seed=2)]
    env = gym_env(opponents=bots, seat=2)
    run_episode(env, 3, np.random.default_rng(2))
    assert set(env._bots.values()) == set(bots)


def test_render() -> None:
    env = gym_env(opponents="random", render_mode="ansi")
    env.reset(seed=1)
    assert f"seen by seat {env.seat}" in env.render()  # type: ignore[operator]


def test_bad_arguments() -> None:
    with pytest.raises(BotError):
        gym_env(opponents="nobody")
    with pytest.raises(EnvError, match="one opponent spec, or two"):
        gym_env(opponents="random,random,random")
    with pytest.raises(EnvError, match="seat must be"):
        gym_env(seat=3)
    with pytest.raises(EnvError, match="render_mode"):
        gym_env(render_mode="rgb_array")
    with pytest.raises(EnvError, match="call reset"):
        _ = gym_env().hand
    with pytest.raises(EnvError, match="call reset"):
        gym_env(opponents="random").step(0)
