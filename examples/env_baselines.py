"""A baseline table for the Gymnasium environment (issue #16): what "learning" looks like here.

Trains the numpy linear policy of ``env_train.py`` (REINFORCE) against ``random`` and by self-play, then
plays every row — and a masked-random player — on the same evaluation deals against ``random`` and against
``greedy`` opponents, and prints a Markdown table: algorithm, training hands and learner steps, CPU time,
points per hand with 95 % CIs, and the paired difference from masked random on the same deals.

    PYTHONPATH=examples .venv/bin/python examples/env_baselines.py --hands 3000 --eval 400 --eval-greedy 200

See docs/env.md ("Baselines").
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable

import numpy as np

from paohuzi.env import NUM_ACTIONS, gym_env

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import env_train  # noqa: E402

Policy = Callable[[np.ndarray, np.ndarray, np.random.Generator], int]


def masked_random(observation: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def linear(model: env_train.LinearPolicy) -> Policy:
    def play(observation: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(rng.choice(NUM_ACTIONS, p=model.probabilities(observation * env_train.SCALE, mask)))

    return play


def rewards(policy: Policy, hands: int, opponents: str, seed: int) -> list[float]:
    """The learner's points on ``hands`` deals (seeds ``seed`` …, the same for every policy; the learner's
    seat and the opponents' play are fixed by the seed too)."""
    env = gym_env(opponents=opponents)
    rng = np.random.default_rng(seed)
    out = []
    for i in range(hands):
        obs, _ = env.reset(seed=seed + i)
        while True:
            obs, reward, terminated, truncated, _ = env.step(policy(obs["observation"], obs["action_mask"], rng))
            if terminated or truncated:
                out.append(float(reward))
                break
    return out


def ci(values: list[float]) -> str:
    n = len(values)
    m = sum(values) / n
    se = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1) / n) if n > 1 else math.inf
    return f"{m:+.2f} [{m - 1.96 * se:+.2f}, {m + 1.96 * se:+.2f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000, help="training hands per trained row")
    parser.add_argument("--eval", type=int, default=400, help="evaluation deals against random")
    parser.add_argument("--eval-greedy", type=int, default=200, help="evaluation deals against greedy")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows: list[tuple[str, int, float, Policy]] = [("masked random", 0, 0.0, masked_random)]
    for name, self_play in (("linear REINFORCE vs random", 0), ("linear REINFORCE, self-play (snapshot/500)", 500)):
        start = time.process_time()
        model = env_train.train(args.hands, "random", args.seed, log_every=0, self_play=self_play)
        rows.append((name, args.hands, time.process_time() - start, linear(model)))
    seed = 2 * 10**9 + args.seed
    base = {opp: rewards(masked_random, n, opp, seed) for opp, n in (("random", args.eval),
                                                                       ("greedy", args.eval_greedy))}
    print(f"| algorithm | training hands | train CPU s | vs random ({args.eval} deals) | − masked random "
          f"| vs greedy ({args.eval_greedy} deals) | − masked random |")
    print("|---|---:|---:|---|---|---|---|")
    for name, hands, cpu, policy in rows:
        cells = []
        for opp, n in (("random", args.eval), ("greedy", args.eval_greedy)):
            r = base[opp] if policy is masked_random else rewards(policy, n, opp, seed)
            paired = [a - b for a, b in zip(r, base[opp], strict=True)]
            cells += [ci(r), "—" if policy is masked_random else ci(paired)]
        print(f"| {name} | {hands} | {cpu:.1f} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
