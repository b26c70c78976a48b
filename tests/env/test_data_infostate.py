"""Offline data in the information state (issue 36): ``transitions(records, obs_type="info_state")`` and
``paohuzi dataset --obs-type info_state`` give, at every decision, the very tensor the AEC environment gives
with ``obs_type="info_state"``."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from paohuzi.cli import main
from paohuzi.env import raw_env
from paohuzi.env.data import DataError, Transitions, transitions
from paohuzi.env.infostate import info_state_size
from paohuzi.rules import find_preset


@pytest.mark.parametrize("rules", ["qq", "liuhuqiang"])
def test_the_information_states_are_the_environment_s(rules: str) -> None:
    e = raw_env(rules, obs_type="info_state")
    rng = random.Random(36)
    for seed in range(6):
        e.reset(seed=seed)
        seen: list[np.ndarray] = []
        while not e.terminations[e.agent_selection]:
            obs = e.observe(e.agent_selection)
            seen.append(obs["observation"])
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        data = transitions([e.hand.record()], obs_type="info_state")
        assert data.observations.shape == (len(seen), info_state_size(find_preset(rules)))
        assert (data.observations == np.stack(seen)).all()
        snap = transitions([e.hand.record()])
        assert (snap.actions == data.actions).all() and (snap.rewards == data.rewards).all()
    with pytest.raises(DataError, match="obs_type must be 'snapshot' or 'info_state', got 'x'"):
        transitions([e.hand.record()], obs_type="x")


def test_the_dataset_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "games"
    assert main(["simulate", "--bots", "greedy,random,random", "--hands", "1", "--record", str(records),
                 "--quiet"]) == 0
    out = tmp_path / "games.npz"
    assert main(["dataset", str(records), "--out", str(out), "--obs-type", "info_state"]) == 0
    assert "(16906 values per observation, 115 actions)" in capsys.readouterr().out
    assert Transitions.load(out).observations.shape[1] == 16906
