"""Train sb3-contrib's MaskablePPO on the paohuzi Gymnasium environment, against bots or by self-play.

Needs the optional ``train`` extra (``pip install -e '.[train]'``: PyTorch, Stable-Baselines3,
sb3-contrib). The environment is made exactly as docs/env.md's recipe makes it (``make_vec_env`` on the
registered id, 8 copies, reward scale 0.1, 胡息 shaping 0.05, MaskablePPO's default hyperparameters).

``--self-play N`` trains against snapshots of the learner: both other seats play a frozen copy of the
policy (sampling from it), replaced by a fresh copy every N learner steps (:class:`SnapshotOpponents`, a
callback calling ``venv.env_method("set_opponents", snapshot)``; a copy takes it from its next hand on).

    PYTHONPATH=src python examples/sb3_train.py --steps 200000 --out ppo.zip
    PYTHONPATH=src python examples/sb3_train.py --steps 200000 --self-play 50000 --out ppo_self.zip
    PYTHONPATH=src:examples paohuzi simulate --bots "sb3_train:MaskablePPOBot[model=ppo.zip],random,random"

See docs/env.md ("Maskable PPO") and ``examples/env_baselines.py`` for the measured rows.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

import paohuzi  # noqa: F401  (registers paohuzi/Paohuzi-v0)
from paohuzi.env import PolicyBot

#: The environment options of docs/env.md's recipe.
ENV_KWARGS: dict[str, Any] = {"reward_scale": 0.1, "shaping": 0.05}

Policy = Callable[[np.ndarray, np.ndarray], int]


def as_policy(policy: Any, deterministic: bool) -> Policy:
    """A MaskablePPO policy (``model.policy``) as ``f(observation, mask) -> ID`` over the env's tensors."""

    def play(observation: np.ndarray, mask: np.ndarray) -> int:
        obs = {"observation": observation[None], "action_mask": mask[None]}
        action, _ = policy.predict(obs, action_masks=mask[None].astype(bool), deterministic=deterministic)
        return int(action[0])

    return play


def snapshot(model: MaskablePPO) -> Policy:
    """A frozen copy of the learner's current policy, sampling its actions (a self-play opponent)."""
    # A new policy with a copy of the weights (a deepcopy of the live one fails after a training step: it
    # keeps the last distribution, whose tensors are part of the autograd graph).
    frozen = type(model.policy)(model.observation_space, model.action_space, model.lr_schedule,
                                **model.policy_kwargs)
    frozen.load_state_dict(copy.deepcopy(model.policy.state_dict()))
    frozen.set_training_mode(False)
    return as_policy(frozen, deterministic=False)


class SnapshotOpponents(BaseCallback):  # type: ignore[misc]
    """Every ``every`` learner steps, the opponents of every copy become a fresh snapshot of the learner."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every, self.refreshed = every, 0

    def _on_training_start(self) -> None:
        self.training_env.env_method("set_opponents", snapshot(self.model))

    def _on_step(self) -> bool:
        if self.num_timesteps - self.refreshed >= self.every:
            self.refreshed = self.num_timesteps
            self.training_env.env_method("set_opponents", snapshot(self.model))
        return True


def train(steps: int, seed: int = 0, opponents: str = "random", self_play: int = 0, n_envs: int = 8,
          verbose: int = 0, n_steps: int = 2048) -> MaskablePPO:
    """MaskablePPO for ``steps`` learner steps (``n_steps`` per copy and rollout, SB3's default 2048), on
    the CPU with one thread (the network is small; on a 2-core machine more threads only fight the
    environment for the cores)."""
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium warns about SB3's render_mode="rgb_array" try
        venv = make_vec_env("paohuzi/Paohuzi-v0", n_envs=n_envs, seed=seed,
                            env_kwargs={"opponents": opponents, **ENV_KWARGS})
    model = MaskablePPO("MultiInputPolicy", venv, seed=seed, verbose=verbose, device="cpu", n_steps=n_steps,
                        batch_size=min(64, n_steps * n_envs))
    model.learn(total_timesteps=steps, callback=SnapshotOpponents(self_play) if self_play else None)
    return model


class MaskablePPOBot(PolicyBot):
    """A saved MaskablePPO model as a bot: ``make_bot("sb3_train:MaskablePPOBot[model=ppo.zip]")``; it
    plays the most probable legal action."""

    name = "maskable_ppo"

    def __init__(self, seed: int | None = None, model: str = "ppo.zip") -> None:
        super().__init__(seed)
        torch.set_num_threads(1)
        self.play = as_policy(MaskablePPO.load(model, device="cpu").policy, deterministic=True)

    def policy(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return self.play(observation, mask)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000, help="learner steps (decisions)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponents", default="random", help="bot specs of the other two seats")
    parser.add_argument("--self-play", type=int, default=0, metavar="N",
                        help="train against snapshots of the learner, refreshed every N steps (0: off)")
    parser.add_argument("--out", default="ppo.zip")
    args = parser.parse_args(argv)
    start, cpu = time.time(), time.process_time()
    model = train(args.steps, args.seed, args.opponents, args.self_play, verbose=1)
    model.save(args.out)
    print(f"trained {args.steps} steps in {time.time() - start:.0f} s ({time.process_time() - cpu:.0f} CPU s); "
          f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
