"""A baseline table for the Gymnasium environment (issue #16): what "learning" looks like here.

Trains the numpy linear policy of ``env_train.py`` (REINFORCE) against ``random`` and by self-play, and —
when the optional ``train`` extra is installed — sb3-contrib's MaskablePPO (``sb3_train.py``, docs/env.md's
recipe) against ``random`` and by self-play with snapshot opponents; then plays every row — and a
masked-random player — on the same evaluation deals against ``random`` and against ``greedy`` opponents,
and prints a Markdown table: algorithm, training hands and learner steps, wall and CPU time, points per
hand with 95 % CIs, and the paired difference from masked random on the same deals.

    PYTHONPATH=src:examples python examples/env_baselines.py --hands 3000 --eval 400 --eval-greedy 200 \
        --ppo-steps 200000 --ppo-self-play 50000

See docs/env.md ("Baselines").
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from paohuzi.env import NUM_ACTIONS, gym_env

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import env_train  # noqa: E402

Policy = Callable[[np.ndarray, np.ndarray, np.random.Generator], int]
#: The trained rows, by key (``--rows``); masked random is always played.
ROWS = ("linear", "linear-self-play", "ppo", "ppo-self-play")


def masked_random(observation: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def linear(model: env_train.LinearPolicy) -> Policy:
    def play(observation: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(rng.choice(NUM_ACTIONS, p=model.probabilities(observation * env_train.SCALE, mask)))

    return play


def maskable_ppo_rows(steps: int, self_play: int, seed: int, rollout: int = 2048, which: Sequence[str] = ROWS,
                      ) -> list[tuple[str, int, int, float, float, Policy]]:
    """MaskablePPO against ``random`` and by self-play (snapshots every ``self_play`` steps); none without
    the ``train`` extra."""
    try:
        import sb3_train
    except ImportError as exc:
        print(f"(MaskablePPO rows skipped: {exc}; install the train extra)", file=sys.stderr)
        return []
    rows = []
    for key, name, every in (("ppo", "MaskablePPO vs random (docs/env.md recipe)", 0),
                             ("ppo-self-play", f"MaskablePPO, self-play (snapshot/{self_play:,} steps)", self_play)):
        if key not in which:
            continue
        start, cpu = time.time(), time.process_time()
        model = sb3_train.train(steps, seed, "random", every, n_steps=rollout)
        hands = sum(len(r) for r in model.get_env().env_method("get_episode_rewards"))
        play = sb3_train.as_policy(model.policy, deterministic=True)
        rows.append((name, hands, model.num_timesteps, time.time() - start, time.process_time() - cpu,
                     lambda o, m, rng, play=play: play(o, m)))
    return rows


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
    parser.add_argument("--ppo-steps", type=int, default=200_000, help="MaskablePPO learner steps (0: no rows)")
    parser.add_argument("--ppo-self-play", type=int, default=50_000, help="MaskablePPO snapshot interval")
    parser.add_argument("--ppo-rollout", type=int, default=2048, help="MaskablePPO steps per copy and rollout")
    parser.add_argument("--rows", default=",".join(ROWS),
                        help=f"the trained rows to make, of {', '.join(ROWS)} (separate runs can share the work: "
                             "the evaluation deals depend on --seed only)")
    args = parser.parse_args(argv)
    which = args.rows.split(",")
    if not set(which) <= set(ROWS):
        parser.error(f"--rows: unknown rows {sorted(set(which) - set(ROWS))}")
    rows: list[tuple[str, int, int, float, float, Policy]] = [("masked random", 0, 0, 0.0, 0.0, masked_random)]
    for key, name, self_play in (("linear", "linear REINFORCE vs random", 0),
                                 ("linear-self-play", "linear REINFORCE, self-play (snapshot/500)", 500)):
        if key not in which:
            continue
        start, cpu = time.time(), time.process_time()
        model = env_train.train(args.hands, "random", args.seed, log_every=0, self_play=self_play)
        rows.append((name, args.hands, model.steps, time.time() - start, time.process_time() - cpu, linear(model)))
    if args.ppo_steps:
        rows += maskable_ppo_rows(args.ppo_steps, args.ppo_self_play, args.seed, args.ppo_rollout, which)
    seed = 2 * 10**9 + args.seed
    base = {opp: rewards(masked_random, n, opp, seed) for opp, n in (("random", args.eval),
                                                                       ("greedy", args.eval_greedy))}
    print(f"| algorithm | training hands | learner steps | train wall s | train CPU s | vs random ({args.eval} deals) "
          f"| − masked random | vs greedy ({args.eval_greedy} deals) | − masked random |")
    print("|---|---:|---:|---:|---:|---|---|---|---|")
    for name, hands, steps, wall, cpu, policy in rows:
        cells = []
        for opp, n in (("random", args.eval), ("greedy", args.eval_greedy)):
            r = base[opp] if policy is masked_random else rewards(policy, n, opp, seed)
            paired = [a - b for a, b in zip(r, base[opp], strict=True)]
            cells += [ci(r), "—" if policy is masked_random else ci(paired)]
        print(f"| {name} | {hands} | {steps} | {wall:.0f} | {cpu:.0f} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
