"""The state API of the AEC environment (issue 36): clone, get_state/set_state, step_back and the public
determinization sample_world — round trips equal to replaying the record over thousands of random positions,
conformance of every new entry point, and the errors."""

from __future__ import annotations

import json
import random
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test

from paohuzi.engine import Hand, replay
from paohuzi.env import EnvError, EnvState, StateError, env, raw_env, sample_world
from paohuzi.env.aec import PaohuziEnv
from paohuzi.env.features import featurize
from paohuzi.env.wrapper import CheckedWrapper
from paohuzi.rules import find_preset

QQ = find_preset("qq")
LHQ = find_preset("liuhuqiang")
RULES: list[Any] = ["qq", "shihuka", {"name": "hunan", "four_players": True}, "liuhuqiang",
                    {"name": "liuhuqiang", "players": 3, "yiwushi": True}]


def snapshot(e: PaohuziEnv) -> dict[str, Any]:
    """Everything an environment shows: PettingZoo's attributes, every observation, the hand's events."""
    return {
        "selection": e.agent_selection,
        "agents": list(e.agents),
        "rewards": dict(e.rewards),
        "cumulative": {a: e.last()[1] if a == e.agent_selection else None for a in e.agents},
        "terminations": dict(e.terminations),
        "truncations": dict(e.truncations),
        "infos": json.dumps(e.infos, sort_keys=True),
        "obs": {a: (e.observe(a)["observation"].tobytes(), e.observe(a)["action_mask"].tobytes()) for a in e.agents},
        "events": list(e.hand.events),
    }


def random_move(e: PaohuziEnv, rng: random.Random) -> int | None:
    obs, _, term, trunc, _ = e.last()
    if term or trunc:
        return None
    return int(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))


@pytest.mark.parametrize("rules", RULES, ids=["qq", "shihuka", "hunan-four", "lhq", "lhq3-yiwushi"])
def test_round_trips_over_random_positions(rules: Any) -> None:
    """At every position of random hands: get_state → JSON → set_state on a fresh environment, clone, and
    step → step_back all equal the environment itself; the state's record replays to the same events."""
    e = raw_env(rules, obs_type="info_state")
    fresh = raw_env(rules, obs_type="info_state")
    rng = random.Random(36)
    positions = 0
    for hand_no in range(16):
        e.reset(seed=hand_no)
        while e.agents:
            here = snapshot(e)
            state = EnvState.from_dict(json.loads(json.dumps(e.get_state().to_dict())))
            assert replay(dict(state.record), upto=len(state.record["actions"])).events == e.hand.events
            fresh.set_state(state)
            assert snapshot(fresh) == here
            twin = e.clone()
            assert snapshot(twin) == here
            move = random_move(e, rng)
            e.step(move)
            e.step_back()
            assert snapshot(e) == here
            e.step(move)
            assert snapshot(twin) == here  # the clone was not touched
            twin.step(move)
            assert snapshot(twin) == snapshot(e)
            positions += 1
    assert positions > 400


@pytest.mark.soak
def test_thousands_of_positions_snapshot() -> None:
    """The same round trips in the snapshot observation, over more than 2,000 positions of the classic preset."""
    e, fresh = raw_env("qq"), raw_env("qq")
    rng = random.Random(7)
    positions = 0
    for hand_no in range(70):
        e.reset(seed=1000 + hand_no)
        while e.agents:
            here = snapshot(e)
            fresh.set_state(e.get_state())
            assert snapshot(fresh) == here
            assert snapshot(e.clone()) == here
            e.step(random_move(e, rng))
            positions += 1
            if positions % 3 == 0:
                e.step_back()
                assert snapshot(e) == here
                e.step(random_move(e, rng))
    assert positions > 2000


def test_an_illegal_end_and_dead_steps_round_trip() -> None:
    """env(): an illegal action ends the hand (−8 for the offender); the state holds it and the dead steps."""
    e = env("qq")
    e.reset(seed=3)
    mask = e.observe(e.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    offender = e.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(bad)
    assert e.rewards[offender] == -8.0
    e.step(None)
    state = e.unwrapped.get_state()
    assert state.illegal == (offender, -8.0) and state.dead_steps == 1
    other = env("qq")
    other.set_state(state.to_dict())
    assert snapshot(other.unwrapped) == snapshot(e.unwrapped)
    assert len(other.agents) == 2
    with pytest.raises(EnvError, match="nothing to undo"):
        other.unwrapped.step_back()
    e.unwrapped.step_back()
    e.unwrapped.step_back()  # before the illegal action
    assert e.agent_selection == offender and not any(e.terminations.values())
    assert e.unwrapped.get_state().illegal is None


def test_set_state_from_a_record() -> None:
    """A state from any record (here an engine hand's): the environment at the end of its actions, and at
    an earlier moment by cutting them."""
    hand = Hand(QQ, seed=12)
    rng = random.Random(0)
    while not hand.over:
        s = hand.deciding[0]
        hand.apply(s, rng.choice(hand.legal_actions(s)))
    record = hand.record()
    e = raw_env("qq")
    e.set_state(EnvState.from_record(record))
    assert e.hand.events == hand.events and all(e.terminations.values())
    assert e.rewards == {f"player_{s}": hand.outcome.payments[s] / QQ.stake for s in hand.seats}  # type: ignore[union-attr]
    e.set_state(EnvState.from_record({**record, "actions": record["actions"][:5], "result": None}))
    assert e.hand.events == replay(record, upto=5).events


def test_state_errors() -> None:
    e = raw_env("qq")
    with pytest.raises(EnvError, match="no hand dealt"):
        e.get_state()
    e.reset(seed=1)
    with pytest.raises(EnvError, match="nothing to undo"):
        e.step_back()
    state = e.get_state()
    with pytest.raises(EnvError, match="under qq with other options than this environment's liuhuqiang"):
        raw_env("liuhuqiang").set_state(state)
    with pytest.raises(EnvError, match="bad state: a state needs its hand's record"):
        e.set_state({"record": 3})
    with pytest.raises(EnvError, match="dead_steps must be a count"):
        e.set_state({**state.to_dict(), "dead_steps": -1})
    with pytest.raises(EnvError, match="illegal must be null or"):
        e.set_state({**state.to_dict(), "illegal": ["player_0"]})
    bad = state.to_dict()
    bad["record"]["actions"] = [[0, "peng"]]
    with pytest.raises(EnvError, match=r"action 0 \(0, 'peng'\)"):
        e.set_state(bad)
    with pytest.raises(StateError, match="a record is an object with a list of actions"):
        EnvState.from_record({"actions": 3})
    with pytest.raises(EnvError, match="bad state: .*format_version"):
        e.set_state({"record": {"actions": []}})
    assert e.get_state() == state  # a refused state leaves a usable environment behind only after reset:
    e.reset(seed=1)
    assert e.get_state() == state


def test_clone_keeps_the_seed_stream() -> None:
    """A clone goes on with the same stream of hands as the original, independently."""
    e = raw_env("qq")
    e.reset(seed=5)
    c = e.clone()
    e.reset()
    c.reset()
    assert e.hand.dealt() == c.hand.dealt()
    d = c.clone()
    c.reset()
    e.reset()
    d.reset()
    assert e.hand.dealt() == c.hand.dealt() == d.hand.dealt()


@pytest.mark.parametrize("rules", ["qq", "liuhuqiang"])
def test_sample_world_is_a_public_determinization(rules: str) -> None:
    """The sampled environment: the agent's own observation (and information state) unchanged, the hidden
    cards resampled (other hands differ for some seeds), reproducible from the seed; it plays on by the rules."""
    e = raw_env(rules, obs_type="info_state")
    e.reset(seed=21)
    rng = random.Random(3)
    for _ in range(12):
        e.step(random_move(e, rng))
    agent = e.agent_selection
    seat = e.seat_of(agent)
    mine = e.observe(agent)
    differs = 0
    for k in range(20):
        w = e.sample_world(rng=k)
        assert w.raw_observation(agent) == e.raw_observation(agent)
        got = w.observe(agent)
        assert (got["observation"] == mine["observation"]).all() and (got["action_mask"] == mine["action_mask"]).all()
        assert w.hand.hand_of(seat) == e.hand.hand_of(seat)
        differs += any(w.hand.hand_of(s) != e.hand.hand_of(s) for s in e.hand.seats if s != seat)
        again = e.sample_world(rng=random.Random(k))
        assert [again.hand.hand_of(s) for s in again.hand.seats] == [w.hand.hand_of(s) for s in w.hand.seats]
        while w.agents:
            w.step(random_move(w, rng))
    assert differs >= 18
    with pytest.raises(EnvError, match="has no record"):
        e.sample_world(rng=0).get_state()


def test_sample_world_reads_only_the_observation() -> None:
    """The module function takes an observation (or its JSON) and nothing else; two hands that differ only in
    what the seat has not seen give the same world for the same seed."""
    hand = Hand(QQ, seed=40)
    seat = hand.deciding[0]
    obs = hand.observation(seat)
    a = sample_world(obs, random.Random(1))
    b = sample_world(obs.to_dict(), random.Random(1))
    assert a.referee_view() == b.referee_view()
    assert a.observation(seat) == obs and featurize(a.observation(seat)).tolist() == featurize(obs).tolist()
    other = next(s for s in hand.seats if s != seat)
    with pytest.raises(StateError, match=f"seat {other} has no decision"):
        sample_world(hand.observation(other), random.Random(1))
    with pytest.raises(StateError, match="not an observation"):
        sample_world({"seat": 0}, random.Random(1))


@pytest.mark.usefixtures("strict_warnings")
def test_api_test_of_clones_and_sampled_worlds() -> None:
    e = env("qq", obs_type="info_state")
    e.reset(seed=2)
    clone = e.clone()
    assert isinstance(clone, CheckedWrapper) and clone.unwrapped is not e.unwrapped
    api_test(clone, num_cycles=100)
    world = e.sample_world(rng=4)
    assert isinstance(world, CheckedWrapper)
    api_test(world, num_cycles=100)
    api_test(raw_env("liuhuqiang").clone(), num_cycles=100)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), choices=st.lists(st.integers(0, 10**6), max_size=60), back=st.integers(1, 5))
def test_undo_and_state_are_inverses(seed: int, choices: list[int], back: int) -> None:
    """Invariant: after any moves, ``back`` undos land where the first ``len − back`` moves led, and the state
    of any moment rebuilds it (hypothesis over seeds and choices among the legal IDs)."""
    e = raw_env("qq")
    e.reset(seed=seed)
    seen = [snapshot(e)]
    for c in choices:
        if not e.agents:
            break
        obs, _, term, trunc, _ = e.last()
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        e.step(None if term or trunc else legal[c % len(legal)])
        seen.append(snapshot(e))
    fresh = raw_env("qq")
    fresh.set_state(e.get_state())
    assert snapshot(fresh) == seen[-1]
    for k in range(min(back, len(seen) - 1)):
        e.step_back()
        assert snapshot(e) == seen[-2 - k]


def test_a_clone_s_undo_is_its_own() -> None:
    """Undo in a clone and in the original after the end (dead steps change the bookkeeping in place): each
    goes back to its own past."""
    e = raw_env("qq")
    e.reset(seed=8)
    rng = random.Random(2)
    while not e.terminations[e.agent_selection]:
        e.step(random_move(e, rng))
    end = snapshot(e)
    e.step(None)
    twin = e.clone()
    e.step_back()
    assert snapshot(e) == end
    e.step(None)
    e.step(None)
    twin.step_back()
    assert snapshot(twin) == end
    twin.step(None)
    twin.step(None)
    assert snapshot(twin) == snapshot(e)
