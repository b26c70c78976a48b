"""Issue 36's acceptance on every entry point, with both observation types: PettingZoo's ``api_test`` and
``seed_test`` on ``raw_env`` (``env()`` has its own in ``test_aec.py`` and ``test_infostate.py``), Gymnasium's
``check_env`` on the registered ``gymnasium.make`` environment and on each copy of the vector environment,
whose observations must lie in its batched space and repeat from the same seed. (``BatchEnv`` has its own
API, one observation type, and its seed and trajectory tests in ``test_batch.py``.)"""

from __future__ import annotations

import functools

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from paohuzi.env import GYM_ID, OBS_TYPES, PaohuziVectorEnv, raw_env


@pytest.mark.usefixtures("strict_warnings")
@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_raw_env_passes_api_test_and_seed_test(obs_type: str) -> None:
    api_test(raw_env(obs_type=obs_type), num_cycles=200)
    seed_test(functools.partial(raw_env, obs_type=obs_type), num_cycles=200)


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_the_registered_gymnasium_env_passes_check_env(obs_type: str) -> None:
    check_env(gymnasium.make(GYM_ID, opponents="random", obs_type=obs_type).unwrapped, skip_render_check=True)


def vector_run(obs_type: str, seed: int, steps: int) -> list[np.ndarray]:
    """Observations of a 3-copy vector environment reset with ``seed``, the first legal ID in every copy;
    each is checked against the vector observation space."""
    envs = PaohuziVectorEnv(num_envs=3, opponents="random", obs_type=obs_type)
    obs, _ = envs.reset(seed=seed)
    seen = [obs["observation"].copy()]
    for _ in range(steps):
        assert envs.observation_space.contains(obs)
        # a copy whose hand just ended has an empty mask: its next step is the autoreset (any ID)
        actions = np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in obs["action_mask"]])
        obs, _, _, _, _ = envs.step(actions)
        seen.append(obs["observation"].copy())
    envs.close()
    return seen


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_the_vector_env_copies_pass_check_env_and_repeat_from_a_seed(obs_type: str) -> None:
    envs = PaohuziVectorEnv(num_envs=2, opponents="random", obs_type=obs_type)
    for copy in envs.envs:
        check_env(copy, skip_render_check=True)
    envs.close()
    first, again, other = vector_run(obs_type, 21, 40), vector_run(obs_type, 21, 40), vector_run(obs_type, 22, 40)
    assert all((a == b).all() for a, b in zip(first, again, strict=True))
    assert any((a != b).any() for a, b in zip(first, other, strict=True))
