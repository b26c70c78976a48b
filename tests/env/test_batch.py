"""The batched fast path (issue 36 part 3): the same trajectories as the AEC environment for the same seeds,
under every preset (four players in 六胡抢, 一五十's action IDs, four seats with one sitting out), illegal IDs
ending a hand as ``env()`` does, and clear errors for bad input."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest

from paohuzi.env import env
from paohuzi.env.aec import EnvError
from paohuzi.env.batch import BatchEnv

RULES: list[Any] = [
    "qq", "hengyang", "hunan", "huayang", "changde", "changde_qmt", "shihuka", "liuhuqiang",
    {"name": "hunan", "four_players": True},
    {"name": "liuhuqiang", "players": 3},
    {"name": "liuhuqiang", "yiwushi": True, "mingwei": True},
]


def play(rules: Any, rows: int, seed: int, steps: int, illegal: float = 0.0) -> tuple[BatchEnv, list[list[Any]]]:
    """Random play on a batch: per row, its steps as (observation, mask, seat, action, rewards, done). With
    ``illegal`` > 0, that share of the actions is an ID the mask refuses."""
    batch = BatchEnv(rows, rules)
    rng = np.random.default_rng(seed)
    observations, masks, seats = batch.reset(seed=seed)
    log: list[list[Any]] = [[] for _ in range(rows)]
    for _ in range(steps):
        scores = rng.random(masks.shape)
        wrong = rng.random(rows) < illegal
        legal = np.where(wrong[:, None], masks == 0, masks == 1)
        actions = np.argmax(np.where(legal, scores, -1.0), axis=1)
        nxt = batch.step(actions)
        rewards, dones = nxt[3], nxt[4]
        for i in range(rows):
            log[i].append((observations[i], masks[i], int(seats[i]), int(actions[i]), rewards[i], bool(dones[i])))
        observations, masks, seats = nxt[0], nxt[1], nxt[2]
    return batch, log


def replay_on_aec(rules: Any, seed: int, steps: list[Any]) -> int:
    """Play a row's actions on the checked AEC environment reset with ``seed`` and compare every step;
    returns the hands finished."""
    e = env(rules)
    e.reset(seed=seed)
    hands = 0
    for observation, mask, seat, action, rewards, done in steps:
        agent = e.agent_selection
        assert agent == f"player_{seat}"
        seen = e.observe(agent)
        np.testing.assert_array_equal(seen["observation"], observation)
        np.testing.assert_array_equal(seen["action_mask"], mask)
        assert seen["observation"].dtype == observation.dtype and seen["action_mask"].dtype == mask.dtype
        e.step(action)
        ended = all(e.terminations.values())
        assert ended == done
        expected = np.zeros(len(rewards), np.float32)
        if ended:
            for a, r in e.rewards.items():
                expected[int(a.split("_")[1])] = r
            hands += 1
            e.reset()
        np.testing.assert_array_equal(rewards, expected)
    return hands


@pytest.mark.parametrize("rules", RULES, ids=str)
def test_the_batch_plays_the_aec_environment_s_trajectories(rules: Any) -> None:
    seed = 9000
    batch, log = play(rules, rows=3, seed=seed, steps=90, illegal=0.01)
    hands = sum(replay_on_aec(rules, seed + i, steps) for i, steps in enumerate(log))
    assert hands >= 6  # every row went through several hands: the autoreset is checked too
    for steps in log:
        for _, _, seat, _, rewards, done in steps:
            if done and rewards[seat] != batch.illegal_reward:
                assert rewards.sum() == 0  # zero-sum settlement (R7.3)


def test_the_shapes_follow_the_rules() -> None:
    for rules, size, actions, seats in (
        ("qq", 606, 115, 3),
        ("liuhuqiang", 752, 115, 4),
        ({"name": "liuhuqiang", "players": 3, "yiwushi": True}, 606, 171, 3),
        ({"name": "hunan", "four_players": True}, 606, 115, 4),
    ):
        batch = BatchEnv(2, rules)
        observations, masks, seat = batch.reset(seed=1)
        assert observations.shape == (2, size) and masks.shape == (2, actions)
        assert (batch.observation_size, batch.num_actions, batch.num_seats) == (size, actions, seats)
        _, _, _, rewards, _ = batch.step(np.argmax(masks, axis=1))
        assert rewards.shape == (2, seats)


def test_an_illegal_id_ends_that_hand_only() -> None:
    batch = BatchEnv(2, "qq", illegal_reward=-5)
    _, masks, seats = batch.reset(seed=3)
    wrong = int(np.flatnonzero(masks[0] == 0)[0])
    before = batch.hands[1]
    _, _, _, rewards, dones = batch.step([wrong, int(np.flatnonzero(masks[1])[0])])
    assert dones.tolist() == [True, False]
    assert rewards[0].tolist() == [(-5.0 if s == seats[0] else 0.0) for s in range(3)]
    assert rewards[1].tolist() == [0.0, 0.0, 0.0]
    assert batch.hands[1] is before and batch.outcomes == [None, None]


def test_the_same_seed_gives_the_same_run() -> None:
    _, a = play("qq", rows=2, seed=5, steps=40)
    _, b = play("qq", rows=2, seed=5, steps=40)
    for row_a, row_b in zip(a, b, strict=True):
        for x, y in zip(row_a, row_b, strict=True):
            np.testing.assert_array_equal(x[0], y[0])
            assert x[2:4] == y[2:4]


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_goes_on_alone_with_the_same_steps(how: str) -> None:
    """A copied batch (its rows' arrays too: the compiled observer writes into the copy's own) plays on exactly
    as the original, and neither disturbs the other."""
    batch = BatchEnv(3, "qq")
    _, masks, _ = batch.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(10):
        _, masks, _, _, _ = batch.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
    twin = copy.deepcopy(batch) if how == "deepcopy" else pickle.loads(pickle.dumps(batch))
    for _ in range(60):
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        ours, theirs = batch.step(actions), twin.step(actions)
        for x, y in zip(ours, theirs, strict=True):
            np.testing.assert_array_equal(x, y)
        masks = ours[1]
    assert [h.record() for h in batch.hands] == [h.record() for h in twin.hands]
    assert batch.hands[0] is not twin.hands[0]


def test_a_finished_hand_s_outcome_is_kept() -> None:
    batch = BatchEnv(1, "qq")
    _, masks, _ = batch.reset(seed=11)
    while True:
        _, masks, _, rewards, dones = batch.step(np.argmax(masks, axis=1))
        if dones[0]:
            break
        assert batch.outcomes == [None]
    outcome = batch.outcomes[0]
    assert outcome is not None
    assert rewards[0].tolist() == [p / batch.rules.stake for p in outcome.payments]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: BatchEnv(0), "num_hands must be a positive int, got 0"),
        (lambda: BatchEnv(True), "num_hands must be a positive int, got True"),
        (lambda: BatchEnv(2, "nowhere"), "nowhere"),
        (lambda: BatchEnv(2, illegal_reward="x"), "illegal_reward must be a number, got 'x'"),
        (lambda: BatchEnv(2).step([0, 0]), "no hands dealt yet: call reset() first"),
        (lambda: BatchEnv(2).reset(seed=1.5), "seed must be an int, got 1.5"),
    ],
)
def test_bad_arguments_are_refused_by_name(call: Any, message: str) -> None:
    with pytest.raises(EnvError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ([0, 0, 0], r"actions must have shape \(2,\), one ID per hand; got shape \(3,\)"),
        ([[0, 1]], r"actions must have shape \(2,\), one ID per hand; got shape \(1, 2\)"),
        ([0.0, 1.0], "actions must be integer action IDs, got dtype float64"),
        ([True, False], "actions must be integer action IDs, got dtype bool"),
        ([0, 115], r"action 115 of hand 1 is out of range 0–114 \(1 out of range\)"),
        ([-1, 0], r"action -1 of hand 0 is out of range 0–114 \(1 out of range\)"),
    ],
)
def test_bad_actions_are_refused_and_change_nothing(actions: Any, message: str) -> None:
    batch = BatchEnv(2, "qq")
    observations, masks, seats = batch.reset(seed=2)
    records = [h.record() for h in batch.hands]
    with pytest.raises(EnvError, match=message):
        batch.step(actions)
    assert [h.record() for h in batch.hands] == records
    again = batch.step(np.argmax(masks, axis=1))
    assert again[0].shape == observations.shape
