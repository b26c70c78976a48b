"""The environment as RL users drive it (issue #16): registration, vectorization (Gymnasium, and
Stable-Baselines3 when installed), ``action_masks()``, reward scale and shaping, configurable and
self-play opponents, the global ``state()``."""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections import Counter
from typing import Any

import gymnasium
import numpy as np
import pytest

from paohuzi.bots import BotError
from paohuzi.cards import Card
from paohuzi.env import GYM_ID, EnvError, PaohuziGymEnv, gym_env, raw_env
from paohuzi.env.aec import RenderModeError, global_state
from paohuzi.env.features import OBSERVATION_SIZE, views
from paohuzi.env.policy import FunctionPolicyBot, PolicyBot
from paohuzi.env.single import huxi_progress
from paohuzi.env.vector import PaohuziVectorEnv


def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


class FirstLegalBot(PolicyBot):
    def policy(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return first_legal(observation, mask)


def play(env: Any, seed: int, pick: Any = first_legal) -> tuple[list[float], dict[str, Any]]:
    """One episode with a deterministic learner; the rewards and the last info."""
    obs, info = env.reset(seed=seed)
    rewards = []
    while True:
        obs, reward, terminated, truncated, info = env.step(pick(obs["observation"], obs["action_mask"]))
        rewards.append(float(reward))
        if terminated or truncated:
            return rewards, info


# -------------------------------------------------------------------------------------------------
# Registration and vectorization
# -------------------------------------------------------------------------------------------------


def _python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return out.stdout.strip()


def test_plain_import_registers_the_id_without_loading_the_env() -> None:
    """``import paohuzi`` is enough for ``gymnasium.make`` in either import order, and imports neither
    Gymnasium nor the environment (the command line starts without them)."""
    out = _python(
        "import sys, paohuzi\n"
        "print('gymnasium' in sys.modules, 'paohuzi.env' in sys.modules)\n"
        "import gymnasium\n"
        "print('paohuzi.env' in sys.modules)\n"
        "env = gymnasium.make('paohuzi/Paohuzi-v0', opponents='random')\n"
        "obs, info = env.reset(seed=1)\n"
        "print(obs['observation'].shape, type(env.unwrapped).__name__)\n"
        "import importlib.resources\n"
        "print(importlib.resources.files('gymnasium').name)"
    )
    assert out.splitlines() == ["False False", "False", "(606,) PaohuziGymEnv", "gymnasium"]
    out = _python(
        "import gymnasium, paohuzi\n"
        "env = gymnasium.make_vec('paohuzi/Paohuzi-v0', num_envs=2, opponents='random')\n"
        "print(type(env).__name__)"
    )
    assert out == "PaohuziVectorEnv"
    # gymnasium's "module:id" form needs no import of ours at all.
    out = _python(
        "import gymnasium\n"
        "env = gymnasium.make('paohuzi:paohuzi/Paohuzi-v0', opponents='random')\n"
        "print(type(env.unwrapped).__name__)"
    )
    assert out == "PaohuziGymEnv"


def test_unsupported_render_mode_is_a_type_error() -> None:
    """Gymnasium's render_modes are ``human`` and ``ansi``; any other mode (SB3 asks for ``rgb_array``) is a
    RenderModeError, which is both our EnvError and a TypeError (SB3's fallback catches TypeError)."""
    for make in (lambda: gym_env(render_mode="rgb_array"), lambda: raw_env(render_mode="rgb_array")):
        with pytest.raises(TypeError, match="render_mode must be None or one of 'human', 'ansi'"):
            make()
        with pytest.raises(EnvError):
            make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium warns about the mode before calling us
        with pytest.raises(RenderModeError):
            gymnasium.make(GYM_ID, render_mode="rgb_array")
    assert gym_env(render_mode="ansi").render_mode == "ansi"


def _sb3_style_make(env_id: str, **env_kwargs: Any) -> gymnasium.Env[Any, Any]:
    """What ``stable_baselines3.common.env_util.make_vec_env`` does for a string id (SB3 2.x): try
    ``render_mode="rgb_array"`` first, and on a TypeError make it without."""
    kwargs = {"render_mode": "rgb_array", **env_kwargs}
    try:
        return gymnasium.make(env_id, **kwargs)
    except TypeError:
        return gymnasium.make(env_id, **env_kwargs)


def test_sb3_make_vec_env_fallback() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = _sb3_style_make(GYM_ID, opponents="random")
    assert env.render_mode is None
    obs, _ = env.reset(seed=4)
    assert (env.get_wrapper_attr("action_masks")() == obs["action_mask"]).all()


def test_sb3_make_vec_env_itself() -> None:
    """The real thing, when the optional ``train`` extra is installed."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env  # type: ignore[import-not-found]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        venv = make_vec_env(GYM_ID, n_envs=2, seed=3, env_kwargs={"opponents": "random"})
    obs = venv.reset()
    assert obs["observation"].shape == (2, OBSERVATION_SIZE)
    masks = np.stack(venv.env_method("action_masks"))
    assert (masks == obs["action_mask"].astype(bool)).all()


def test_make_vec_gives_the_batched_env() -> None:
    envs = gymnasium.make_vec(GYM_ID, num_envs=3, opponents="random")
    assert isinstance(envs.unwrapped, PaohuziVectorEnv)
    obs, info = envs.reset(seed=10)
    assert obs["observation"].shape == (3, OBSERVATION_SIZE) and obs["action_mask"].shape == (3, 115)
    finished = 0
    for _ in range(600):
        masks = envs.action_masks()
        assert (masks == obs["action_mask"].astype(bool)).all()
        actions = np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in masks])
        obs, rewards, terminated, truncated, info = envs.step(actions)
        finished += int(terminated.sum())
        assert not truncated.any()
        for i in np.flatnonzero(terminated):  # each copy's outcome dict, whole (winner None on a 荒庄)
            assert info["_outcome"][i] and info["outcome"][i]["kind"] in ("hu", "draw")
    assert finished >= 6
    assert envs.state().shape == (3, 3 * OBSERVATION_SIZE + 20)
    envs.close()


def test_make_vec_sync_mode_and_call() -> None:
    envs = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync", opponents="random")
    obs, _ = envs.reset(seed=1)
    masks = np.stack(envs.call("action_masks"))
    assert (masks == obs["action_mask"].astype(bool)).all()
    envs.close()


def test_vector_env_is_reproducible_from_its_seed() -> None:
    """``reset(seed=s)`` seeds copy i with s + i: copy 1 of a seed-5 batch is the single env at seed 6."""
    envs = PaohuziVectorEnv(num_envs=2, opponents="random", seat=0)
    obs, _ = envs.reset(seed=5)
    single = gym_env(opponents="random", seat=0)
    one, _ = single.reset(seed=6)
    assert (obs["observation"][1] == one["observation"]).all()
    with pytest.raises(EnvError, match="num_envs"):
        PaohuziVectorEnv(num_envs=0)
    with pytest.raises(EnvError, match="seat must be"):
        PaohuziVectorEnv(num_envs=2, seat=7)


# -------------------------------------------------------------------------------------------------
# The mask
# -------------------------------------------------------------------------------------------------


def test_action_masks_equal_the_observation_mask() -> None:
    env = gym_env(opponents="random")
    rng = np.random.default_rng(3)
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            masks = env.action_masks()
            assert masks.dtype == bool and (masks == obs["action_mask"].astype(bool)).all() and masks.any()
            obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(masks))))
        assert not env.action_masks().any()  # over: nothing is legal
    with pytest.raises(EnvError, match="call reset"):
        gym_env().action_masks()


def test_aec_action_masks_are_agent_selections_mask() -> None:
    e = raw_env()
    e.reset(seed=8)
    rng = np.random.default_rng(1)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        assert (e.action_masks() == obs["action_mask"].astype(bool)).all()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# -------------------------------------------------------------------------------------------------
# Rewards: scale, drawn hands, shaping
# -------------------------------------------------------------------------------------------------


def test_reward_scale_multiplies_every_reward() -> None:
    for seed in range(12):
        plain, info = play(gym_env(opponents="random"), seed)
        scaled, info_scaled = play(gym_env(opponents="random", reward_scale=0.1), seed)
        assert scaled == [r * 0.1 for r in plain]
        assert info["points"] == info_scaled["points"] == plain[-1]  # R7.3 points, unscaled


def test_draw_reward_only_for_drawn_hands() -> None:
    kinds = Counter()
    for seed in range(30):
        rewards, info = play(gym_env(opponents="random", draw_reward=-0.5), seed)
        kind = info["outcome"]["kind"]
        kinds[kind] += 1
        if kind == "draw":  # 荒庄 pays nothing under the rules (R7.3); the option makes it cost 0.5
            assert rewards[-1] == -0.5 and info["points"] == 0
        else:
            assert rewards[-1] == info["points"]
    assert kinds["draw"] >= 5 and kinds["hu"] >= 1


def test_shaping_is_potential_based() -> None:
    """Each step adds shaping × ΔΦ (Φ = the learner's 胡息 progress, 0 at the end), so the shaping terms of
    an episode add up to −shaping × Φ(start) whatever is played."""
    for seed in range(8):
        env = gym_env(opponents="random", shaping=0.5)
        obs, _ = env.reset(seed=seed)
        phi = huxi_progress(env.hand, env.seat)
        start = phi
        total = 0.0
        while True:
            obs, reward, done, _, info = env.step(first_legal(obs["observation"], obs["action_mask"]))
            total += reward
            if done:
                assert reward == pytest.approx(info["points"] - 0.5 * phi)
                break
            now = huxi_progress(env.hand, env.seat)
            assert reward == pytest.approx(0.5 * (now - phi))
            phi = now
        assert total == pytest.approx(info["points"] - 0.5 * start)


def test_huxi_progress_counts_table_and_best_partial_hand() -> None:
    env = gym_env(opponents="random", seat=0)
    env.reset(seed=2)
    hand = env.hand
    # the same count the engine uses for a seat left behind by an escape (R7.3)
    assert huxi_progress(hand, 0) == hand._st.players[0].partial_huxi()


def test_bad_reward_options() -> None:
    for bad in ({"reward_scale": "1"}, {"shaping": float("nan")}, {"draw_reward": True}):
        with pytest.raises(EnvError, match="must be"):
            gym_env(**bad)


# -------------------------------------------------------------------------------------------------
# Opponents
# -------------------------------------------------------------------------------------------------


def test_a_policy_callable_plays_like_the_same_policy_bot() -> None:
    """A callable opponent f(observation, mask) -> ID (a snapshot of a learner) plays exactly as the
    PolicyBot with the same policy."""
    for seed in range(6):
        a = play(gym_env(opponents=first_legal), seed)
        b = play(gym_env(opponents=[FirstLegalBot(), FirstLegalBot()]), seed)
        assert a == b


def test_set_opponents_takes_effect_at_the_next_reset() -> None:
    env = gym_env(opponents="random")
    env.set_opponents(first_legal)
    assert all(isinstance(o, FunctionPolicyBot) for o in env.opponents)
    assert play(env, 3) == play(gym_env(opponents=first_legal), 3)
    env.set_opponents(["random", "greedy"])
    assert env.opponents == ["random", "greedy"]
    with pytest.raises(EnvError, match="one opponent spec, or two"):
        env.set_opponents([first_legal] * 3)
    with pytest.raises(EnvError, match="policy"):
        env.set_opponents(42)  # type: ignore[arg-type]
    with pytest.raises(BotError, match="unknown bot"):
        env.set_opponents("nobody")


def test_self_play_with_a_snapshot_of_the_learner() -> None:
    """The recipe of docs/env.md: the opponents are a frozen copy of the learner's weights."""
    rng = np.random.default_rng(0)
    weights = rng.normal(size=(115, OBSERVATION_SIZE)).astype(np.float32)

    def snapshot(w: np.ndarray) -> Any:
        frozen = w.copy()

        def policy(observation: np.ndarray, mask: np.ndarray) -> int:
            return int(np.argmax(np.where(mask.astype(bool), frozen @ observation, -np.inf)))

        return policy

    env = gym_env(opponents=snapshot(weights))
    learner = snapshot(weights)
    rewards, info = play(env, 11, learner)
    weights += 1.0  # the learner moves on; the snapshot does not
    assert play(gym_env(opponents=snapshot(weights - 1.0)), 11, learner) == (rewards, info)


def test_a_policy_returning_nonsense_is_a_bot_error() -> None:
    env = gym_env(opponents=lambda observation, mask: "pass")
    with pytest.raises(BotError, match="not an action ID"):
        for seed in range(5):
            play(env, seed)


# -------------------------------------------------------------------------------------------------
# The global state
# -------------------------------------------------------------------------------------------------


def test_state_holds_every_hand_and_the_stock() -> None:
    e = raw_env()
    e.reset(seed=5)
    rng = np.random.default_rng(2)
    steps = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        hand = e.unwrapped.hand
        state = e.state()
        assert state.dtype == np.float32 and e.state_space.contains(state)
        for s in range(3):
            block = state[s * OBSERVATION_SIZE : (s + 1) * OBSERVATION_SIZE]
            counts = Counter(int(c) for c in hand.hand_of(s))
            assert [int(x) for x in views(block)["hand"]] == [counts[k] for k in range(20)]
        stock = Counter(int(Card.parse(t)) for t in hand.referee_view()["stock_cards"])
        assert [int(x) for x in state[3 * OBSERVATION_SIZE :]] == [stock[k] for k in range(20)]
        assert state[3 * OBSERVATION_SIZE :].sum() == hand.stock_left
        steps += 1
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert steps > 10


def test_gym_state_starts_from_the_learner() -> None:
    env = gym_env(opponents="random", seat=1)
    env.reset(seed=9)
    state = env.state()
    table = global_state(env.hand)
    n = OBSERVATION_SIZE
    assert (state[:n] == table[n : 2 * n]).all() and (state[n : 2 * n] == table[2 * n : 3 * n]).all()
    assert (state[2 * n : 3 * n] == table[:n]).all() and (state[3 * n :] == table[3 * n :]).all()
    with pytest.raises(EnvError, match="call reset"):
        PaohuziGymEnv().state()


def test_doc_maskable_ppo_recipe_runs() -> None:
    """docs/env.md's MaskablePPO recipe, shortened, when the optional train extra is installed."""
    pytest.importorskip("sb3_contrib")
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "env.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```py\n(.*?)```", doc, flags=re.S)
    code = code.replace("total_timesteps=200_000", "total_timesteps=256").replace("n_envs=8", "n_envs=2")
    code = code.replace('model.save("maskable_ppo_paohuzi")', "")
    code = code.replace("seed=0, verbose=1)", "seed=0, n_steps=64, batch_size=64)")
    exec(compile(code, "docs/env.md MaskablePPO", "exec"), {"__name__": "doc_example"})
