"""The checked public environment ``env()`` (:class:`paohuzi.env.wrapper.CheckedWrapper`): the checks of
PettingZoo's ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` in one
layer, compared with those three stacked (what ``env()`` returned before)."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from paohuzi.env import DEFAULT_ILLEGAL_REWARD, NUM_ACTIONS, CheckedWrapper, env, raw_env
from paohuzi.env.aec import PaohuziEnv
from paohuzi.rules import find_preset

FOUR = find_preset("hunan").with_options(four_players=True)


def pettingzoo_stack(rules: Any = "qq", illegal_reward: float = DEFAULT_ILLEGAL_REWARD) -> Any:
    """``env()`` as it was: the raw environment in PettingZoo's three wrappers."""
    wrapped: Any = raw_env(rules=rules)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


@pytest.fixture(autouse=True)
def quiet_env_logger() -> Iterator[None]:
    """PettingZoo's EnvLogger collects its warnings in a class-level queue: start and end empty."""
    EnvLogger.flush()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
    EnvLogger.flush()


def illegal_id(e: Any) -> int:
    mask = e.observe(e.agent_selection)["action_mask"]
    return int(np.flatnonzero(mask == 0)[0])


def legal_id(e: Any) -> int:
    return int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])


def trace(e: Any, seed: int, rng: random.Random, p_illegal: float) -> list[Any]:
    """Play one hand, sometimes choosing an illegal ID; every step's view of every agent."""
    e.reset(seed=seed)
    out = []
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        live = not (termination or truncation)
        mask = obs["action_mask"]
        out.append(
            (
                agent,
                obs["observation"].tobytes(),
                mask.tobytes() if live else None,
                reward,
                termination,
                truncation,
                repr(info),
                dict(e.rewards),
                list(e.agents),
            )
        )
        if not live:
            action = None
        elif rng.random() < p_illegal:
            action = int(rng.choice(np.flatnonzero(mask == 0).tolist()))
        else:
            action = int(rng.choice(np.flatnonzero(mask).tolist()))
        e.step(action)
    out.append(("end", dict(e.rewards), dict(e.terminations), dict(e.truncations), repr(e.infos)))
    return out


class TestSameAsPettingZooStack:
    @pytest.mark.parametrize("rules", ["qq", FOUR], ids=["qq", "hunan-four-players"])
    def test_random_play_with_illegal_moves(self, rules: Any) -> None:
        """Step for step, the one layer and the three wrappers give the same observations, masks (of live
        agents), rewards, terminations, truncations and infos, illegal IDs included."""
        ended_illegally = 0
        for seed in range(40):
            ours = trace(env(rules=rules, illegal_reward=-3.5), seed, random.Random(seed), 0.04)
            stack = pettingzoo_stack(rules=rules, illegal_reward=-3.5)
            theirs = trace(stack, seed, random.Random(seed), 0.04)
            assert ours == theirs
            ended_illegally += any(step[3] == -3.5 for step in ours[:-1])
        assert 5 < ended_illegally < 40

    def test_a_dead_agent_sees_a_zero_mask(self) -> None:
        """After an illegal action every mask is zero (the old stack kept the offender's stale one)."""
        e = env()
        e.reset(seed=11)
        e.last()
        e.step(illegal_id(e))
        for _agent in e.agent_iter():
            assert not e.last()[0]["action_mask"].any()
            assert not any(e.observe(a)["action_mask"].any() for a in e.agents)
            e.step(None)


class TestIllegalAction:
    def test_ends_the_hand_with_the_penalty_and_keeps_the_state(self) -> None:
        e = env(illegal_reward=-5)
        e.reset(seed=11)
        e.step(legal_id(e))
        offender = e.agent_selection
        hand = e.unwrapped.hand
        actions, events, observations = (
            tuple(hand.actions),
            list(hand.events),
            [hand.observation(s) for s in hand.seats],
        )
        e.step(illegal_id(e))  # no observe() first: the check does not depend on one
        assert hand.actions == actions and hand.events == events and not hand.over
        assert [hand.observation(s) for s in hand.seats] == observations
        assert all(e.terminations.values()) and all(e.truncations.values())
        assert e.rewards == {a: (-5.0 if a == offender else 0) for a in e.agents}
        assert all(info == {} for info in e.infos.values())
        assert any("Illegal move made" in m for m in EnvLogger.mqueue)
        rewards = {}
        for agent in e.agent_iter():
            rewards[agent] = e.last()[1]
            e.step(None)
        assert rewards == {a: (-5.0 if a == offender else 0.0) for a in rewards}
        assert len(rewards) == 3 and e.agents == []

    def test_the_env_plays_on_after_reset(self) -> None:
        e = env()
        e.reset(seed=11)
        e.step(illegal_id(e))
        e.reset(seed=12)
        assert not any(e.terminations.values()) and e.rewards == dict.fromkeys(e.agents, 0.0)
        for _ in e.agent_iter():
            e.step(None if e.terminations[e.agent_selection] else legal_id(e))
        assert e.unwrapped.hand.over

    def test_a_dead_agent_may_only_pass_none(self) -> None:
        e = env()
        e.reset(seed=11)
        e.step(illegal_id(e))
        with pytest.raises(ValueError, match="only valid action is None"):
            e.step(0)
        with pytest.raises(AssertionError, match="action is not in action space"):
            e.step(NUM_ACTIONS)

    def test_step_once_every_agent_is_gone_warns(self) -> None:
        e = env()
        e.reset(seed=11)
        e.step(illegal_id(e))
        for _ in e.agent_iter():
            e.step(None)
        EnvLogger.flush()
        e.step(None)
        assert any("step() called after all agents" in m for m in EnvLogger.mqueue)


class TestOutOfRange:
    @pytest.mark.parametrize(
        "action",
        [
            NUM_ACTIONS,
            -1,
            10**9,
            None,
            1.0,
            "3",
            True,
            np.int64(NUM_ACTIONS),
            np.array([1]),
            np.float32(1),
            np.bool_(True),
        ],
        ids=repr,
    )
    def test_is_an_assertion_error_and_changes_nothing(self, action: Any) -> None:
        e = env()
        e.reset(seed=0)
        agent, actions = e.agent_selection, tuple(e.unwrapped.hand.actions)
        with pytest.raises(AssertionError, match="action is not in action space"):
            e.step(action)
        assert e.agent_selection == agent and e.unwrapped.hand.actions == actions
        assert not any(e.terminations.values())

    @pytest.mark.parametrize("kind", [int, np.int64, np.int8, np.uint16, np.array])
    def test_integers_of_any_kind_are_accepted(self, kind: Any) -> None:
        e = env()
        e.reset(seed=0)
        n = len(e.unwrapped.hand.actions)
        e.step(kind(legal_id(e)))
        assert len(e.unwrapped.hand.actions) == n + 1

    def test_raised_under_python_O(self) -> None:
        """Not an ``assert`` statement: ``python -O`` keeps the check."""
        code = (
            "from paohuzi.env import env\ne = env(); e.reset(seed=0)\n"
            "try:\n    e.step(115)\nexcept AssertionError as x:\n    print('refused', x)\n"
        )
        out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, check=True)
        assert out.stdout.strip() == "refused action is not in action space"


class TestOrder:
    @pytest.mark.parametrize(
        "name", ["agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "num_agents"]
    )
    def test_attributes_before_reset(self, name: str) -> None:
        for e in (env(), pettingzoo_stack()):
            with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
                getattr(e, name)

    def test_calls_before_reset(self) -> None:
        e = env(render_mode="ansi")
        with pytest.raises(AssertionError, match="reset\\(\\) needs to be called before step"):
            e.step(0)
        with pytest.raises(AssertionError, match="reset\\(\\) needs to be called before observe"):
            e.observe("player_0")
        with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
            e.last()
        with pytest.raises(AssertionError, match="reset\\(\\) needs to be called before agent_iter"):
            e.agent_iter()
        with pytest.raises(AssertionError, match="reset\\(\\) needs to be called before render"):
            e.render()
        with pytest.raises(AssertionError, match="reset\\(\\) needs to be called before state"):
            e.state()
        # what does not depend on a hand is there before reset
        assert e.possible_agents == ["player_0", "player_1", "player_2"] and e.max_num_agents == 3
        assert e.action_space("player_0").n == NUM_ACTIONS
        assert e.metadata["name"] == "paohuzi_v0"

    def test_agent_iter_needs_a_step(self) -> None:
        e = env()
        e.reset(seed=1)
        it = iter(e.agent_iter())
        next(it)
        with pytest.raises(AssertionError, match="need to call step\\(\\) or reset\\(\\)"):
            next(it)

    def test_private_attributes_are_not_forwarded(self) -> None:
        e = env()
        with pytest.raises(AttributeError, match="private attribute '_hand'"):
            e._hand  # noqa: B018


class TestLayer:
    def test_one_layer_over_the_raw_env(self) -> None:
        e = env()
        assert isinstance(e, CheckedWrapper) and isinstance(e, wrappers.OrderEnforcingWrapper)
        assert type(e.env) is PaohuziEnv and e.unwrapped is e.env
        assert str(e) == "paohuzi_v0"

    def test_attributes_are_the_env_s(self) -> None:
        e = env()
        e.reset(seed=3)
        raw = e.unwrapped
        for name in (
            "agents",
            "agent_selection",
            "rewards",
            "terminations",
            "truncations",
            "infos",
            "_cumulative_rewards",
        ):
            assert getattr(e, name) is getattr(raw, name)
        assert e.num_agents == 3 and e.render_mode is None
        e.agent_selection = "player_1"  # setting one sets the environment's
        assert raw.agent_selection == "player_1"
