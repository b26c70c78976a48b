"""Train a small policy on the paohuzi environment with numpy only (REINFORCE), then use it as a bot.

The policy is linear: logits = W · x + b over the 115 action IDs, with illegal IDs masked out, where x is
the observation tensor scaled to [0, 1]. It learns with REINFORCE (policy gradient with a running-mean
baseline) from whole hands against built-in bots in the Gymnasium single-agent environment, then is
compared with a masked-random player on the same deals (paired seeds).

    .venv/bin/python examples/env_train.py --hands 3000 --out policy.npz
    PYTHONPATH=examples paohuzi simulate --bots "env_train:LinearPolicyBot[weights=policy.npz],random,random"

``--self-play N`` trains against snapshots of the learner itself instead (both other seats play a frozen
copy of the weights, refreshed every N hands; issue #16), and still evaluates against ``--opponents``.

See docs/env.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from paohuzi.env import NUM_ACTIONS, PolicyBot, gym_env
from paohuzi.env.features import OBSERVATION_HIGH
from paohuzi.env.linear import LinearPolicy  # the policy, its training start, save and load (one place)

SCALE = 1.0 / OBSERVATION_HIGH


def snapshot(policy: LinearPolicy, seed: int) -> Callable[[np.ndarray, np.ndarray], int]:
    """A frozen copy of ``policy`` as an opponent callable ``f(observation, mask) -> ID`` (self-play)."""
    frozen = LinearPolicy(np.random.default_rng(0))
    frozen.W, frozen.b = policy.W.copy(), policy.b.copy()
    rng = np.random.default_rng(seed)

    def play(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(rng.choice(NUM_ACTIONS, p=frozen.probabilities(observation * SCALE, mask)))

    return play


def train(hands: int, opponents: str, seed: int, lr: float = 0.05, log_every: int = 500,
          self_play: int = 0) -> LinearPolicy:
    """REINFORCE on ``hands`` hands: after each hand, every decision's log-probability gradient is scaled
    by (final reward − baseline). The reward is the hand's points (0 until the end). With ``self_play``
    N > 0 the opponents are snapshots of the learner, refreshed every N hands."""
    rng = np.random.default_rng(seed)
    policy = LinearPolicy(rng)
    env = gym_env(opponents=snapshot(policy, seed) if self_play else opponents)
    baseline, recent = 0.0, []
    obs, _ = env.reset(seed=seed)
    for hand in range(1, hands + 1):
        steps: list[tuple[np.ndarray, np.ndarray, int]] = []
        while True:
            x = obs["observation"] * SCALE
            p = policy.probabilities(x, obs["action_mask"])
            action = int(rng.choice(NUM_ACTIONS, p=p))
            steps.append((x, p, action))
            policy.steps += 1
            obs, reward, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
        advantage = reward - baseline
        baseline += 0.01 * (reward - baseline)
        for x, p, action in steps:
            grad = -p  # d log p[action] / d logits = onehot(action) − p
            grad[action] += 1.0
            step = lr * advantage / len(steps)
            policy.W += step * np.outer(grad, x).astype(np.float32)
            policy.b += step * grad.astype(np.float32)
        recent.append(reward)
        if log_every and hand % log_every == 0:
            print(f"  hand {hand:6d}: mean reward of the last {len(recent)} hands {np.mean(recent):+.3f}")
            recent = []
        if self_play and hand % self_play == 0:
            env.set_opponents(snapshot(policy, seed + hand))  # from the next hand on
        obs, _ = env.reset()
    return policy


def evaluate(policy: LinearPolicy | None, hands: int, opponents: str, seed: int) -> float:
    """Mean reward over ``hands`` hands (seeds ``seed``, ``seed + 1`` …); ``policy`` None plays masked-random.
    The learner samples its actions from the policy, as in training."""
    env = gym_env(opponents=opponents)
    rng = np.random.default_rng(seed)
    total = 0.0
    for i in range(hands):
        obs, _ = env.reset(seed=seed + i)
        while True:
            mask = obs["action_mask"]
            if policy is None:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                p = policy.probabilities(obs["observation"] * SCALE, mask)
                action = int(rng.choice(NUM_ACTIONS, p=p))
            obs, reward, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                total += reward
                break
    return total / hands


class LinearPolicyBot(PolicyBot):
    """The trained policy as a bot: ``make_bot("env_train:LinearPolicyBot[weights=policy.npz]")``."""

    name = "linear_policy"

    def __init__(self, seed: int | None = None, weights: str = "policy.npz") -> None:
        super().__init__(seed)
        self.model = LinearPolicy.load(weights)

    def policy(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(self.rng.choice(NUM_ACTIONS, p=self.model.probabilities(observation * SCALE, mask)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000, help="training hands")
    parser.add_argument("--eval", type=int, default=500, help="evaluation hands (paired seeds; 0: none)")
    parser.add_argument("--opponents", default="random", help="bot specs of the other two seats")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--out", default=None, help="save the weights here (.npz)")
    parser.add_argument("--self-play", type=int, default=0, metavar="N",
                        help="train against snapshots of the learner, refreshed every N hands (0: off)")
    args = parser.parse_args(argv)
    start = time.process_time()
    against = f"snapshots of itself (every {args.self_play} hands)" if args.self_play else args.opponents
    print(f"training a linear policy for {args.hands} hands against {against} …")
    policy = train(args.hands, args.opponents, args.seed, args.lr, log_every=max(args.hands // 6, 1),
                   self_play=args.self_play)
    print(f"trained in {time.process_time() - start:.1f} CPU s")
    if args.out:
        policy.save(args.out)
        print(f"weights saved to {args.out}")
    if args.eval < 1:
        return 0
    eval_seed = 10**9 + args.seed
    trained = evaluate(policy, args.eval, args.opponents, eval_seed)
    baseline = evaluate(None, args.eval, args.opponents, eval_seed)
    print(f"mean points per hand over {args.eval} hands: "
          f"trained {trained:+.3f}, masked random {baseline:+.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
