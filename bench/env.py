"""Benchmark of the RL environment (issue #7): turns per second with random masked actions, one core.

The loop is PettingZoo's ``performance_benchmark`` (``pettingzoo.test.performance_benchmark``): every
turn calls ``env.last()`` (which builds the observation tensor and the mask), picks a random legal ID from
the mask, and calls ``env.step``; a *turn* is one ``step``, dead steps at the end of a hand included. It
runs on the public ``paohuzi.env.env()`` (what users get: the raw environment in one checking layer,
:class:`paohuzi.env.wrapper.CheckedWrapper`), on ``raw_env()``, and on the raw environment in PettingZoo's
three classic wrappers (what ``env()`` was before). It reports CPU time, so other processes on the machine
disturb it less, and the median and best of ``--rounds`` rounds. For context it also times the engine
alone on the same hands (random legal actions, no observations) and the pieces of a turn.

The batched fast path (:class:`paohuzi.env.batch.BatchEnv`, issue 36) runs the same random play over
``--batch`` hands at once (the random IDs drawn for the whole batch with numpy); its *turns* are agent steps
(one decision of one hand), so they compare with ``env()``'s turns less its dead steps at the end of each
hand. The vector row is :class:`paohuzi.env.PaohuziVectorEnv` (8 copies of the Gymnasium environment,
``random`` opponents): its turns are the learner's steps, each also playing the bots' replies.

    .venv/bin/python bench/env.py                 # 3 rounds of 3 s
    .venv/bin/python bench/env.py --only batch,env     # only some rows (names start with these)
    .venv/bin/python bench/env.py --seconds 5 --rounds 5 --rules hunan
    valgrind --tool=callgrind .venv/bin/python bench/env.py --steps 220   # instructions, whatever the load
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from paohuzi.engine import Hand
from paohuzi.env import DEFAULT_ILLEGAL_REWARD, PaohuziVectorEnv, raw_env
from paohuzi.env import env as make_env
from paohuzi.env.batch import BatchEnv
from paohuzi.env.features import action_mask, featurize
from paohuzi.rules import find_preset


def pettingzoo_stack(rules: str) -> Any:
    """The raw environment in PettingZoo's three classic wrappers: ``env()`` before it had its own layer."""
    wrapped: Any = raw_env(rules=rules)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=DEFAULT_ILLEGAL_REWARD)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


FACTORIES: dict[str, Callable[[str], Any]] = {
    "env()": lambda rules: make_env(rules=rules),
    "raw_env()": lambda rules: raw_env(rules=rules),
    "PettingZoo's 3 wrappers": pettingzoo_stack,
}


def env_round(rules: str, seconds: float, seed: int, factory: str = "env()") -> tuple[int, int, float]:
    """One round of PettingZoo's benchmark loop on ``FACTORIES[factory]``: (turns, hands, CPU seconds)."""
    rng = random.Random(seed)
    env = FACTORIES[factory](rules)
    env.reset(seed=seed)
    turns = hands = 0
    start = time.process_time()
    while True:
        for _agent in env.agent_iter(env.num_agents):
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            env.step(action)
            turns += 1
            if all(env.terminations.values()) or all(env.truncations.values()):
                env.reset()
                hands += 1
        if time.process_time() - start > seconds:
            return turns, hands, time.process_time() - start


def batch_round(rules: str, seconds: float, seed: int, hands: int = 64) -> tuple[int, int, float]:
    """:class:`BatchEnv` over ``hands`` hands, random legal IDs for every row: (agent steps, hands, CPU s)."""
    rng = np.random.default_rng(seed)
    batch = BatchEnv(hands, rules)
    _, masks, _ = batch.reset(seed=seed)
    steps = done = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(20):
            actions = np.argmax(rng.random(masks.shape, np.float32) * masks, axis=1)
            _, masks, _, _, dones = batch.step(actions)
            done += int(dones.sum())
        steps += 20 * hands
    return steps, done, time.process_time() - start


def vector_round(rules: str, seconds: float, seed: int, copies: int = 8) -> tuple[int, int, float]:
    """:class:`PaohuziVectorEnv` (``copies`` Gymnasium copies, random opponents): (learner steps, hands, CPU s)."""
    rng = np.random.default_rng(seed)
    envs = PaohuziVectorEnv(num_envs=copies, rules=rules, opponents="random")
    obs, _ = envs.reset(seed=seed)
    steps = done = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        masks = obs["action_mask"]
        actions = np.argmax(rng.random(masks.shape, np.float32) * masks, axis=1)
        obs, _, terminated, truncated, _ = envs.step(actions)
        steps += copies
        done += int((terminated | truncated).sum())
    return steps, done, time.process_time() - start


def engine_round(rules: str, seconds: float, seed: int) -> tuple[int, int, float]:
    """The engine alone: random legal actions, no observations. (turns, hands, CPU seconds)."""
    rng = random.Random(seed)
    preset = find_preset(rules)
    turns = hands = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        hand = Hand(preset, seed=seed + hands)
        while not hand.over:
            seat = hand.deciding[0]
            legal = hand.legal_actions(seat)
            hand.apply(seat, legal[rng.randrange(len(legal))])
            turns += 1
        hands += 1
    return turns, hands, time.process_time() - start


def pieces(rules: str, n: int = 200) -> dict[str, float]:
    """Microseconds per call of the parts of a turn, on positions from random play."""
    rng = random.Random(1)
    preset = find_preset(rules)
    hands = []
    for seed in range(n):
        hand = Hand(preset, seed=seed)
        for _ in range(rng.randrange(40)):
            if hand.over:
                break
            seat = hand.deciding[0]
            hand.apply(seat, rng.choice(hand.legal_actions(seat)))
        hands.append(hand)
    out: dict[str, float] = {}
    best = float("inf")
    for _ in range(5):
        t = time.process_time()
        observations = [hand.observation(s) for hand in hands for s in hand.seats]
        best = min(best, time.process_time() - t)
    out["engine observation()"] = best / len(observations) * 1e6
    for name, fn in (("featurize()", featurize), ("action_mask()", action_mask)):
        best = float("inf")
        for _ in range(5):
            t = time.process_time()
            for obs in observations:
                fn(obs)
            best = min(best, time.process_time() - t)
        out[name] = best / len(observations) * 1e6
    return out


def fixed_batch_steps(rules: str, steps: int, hands: int = 64) -> None:
    """Exactly ``steps`` batch steps of :func:`batch_round`'s play (seed 1, no clock): for counting
    instructions, which the machine's load does not change (``--steps``; docs/PERFORMANCE.md)."""
    rng = np.random.default_rng(0)
    batch = BatchEnv(hands, rules)
    _, masks, _ = batch.reset(seed=1)
    for _ in range(steps):
        actions = np.argmax(rng.random(masks.shape, np.float32) * masks, axis=1)
        _, masks, _, _, _ = batch.step(actions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="qq")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=64, help="hands of the batched row (default 64)")
    parser.add_argument("--only", default="", help="comma-separated row-name prefixes to run (default: all)")
    parser.add_argument("--steps", type=int, default=None,
                        help="only play this many BatchEnv steps, untimed (count instructions under callgrind)")
    args = parser.parse_args(argv)
    if args.steps is not None:
        fixed_batch_steps(args.rules, args.steps, args.batch)
        return 0
    print(f"paohuzi env benchmark — rules {args.rules}, Python {platform.python_version()}, "
          f"{platform.machine()}, {args.rounds} rounds of {args.seconds:g} CPU s (median, best)")
    rounds: list[tuple[str, Callable[[str, float, int], tuple[int, int, float]]]] = [
        (name, lambda *a, name=name: env_round(*a, factory=name)) for name in FACTORIES  # type: ignore[misc]
    ]
    rounds.append((f"BatchEnv ({args.batch} hands)",
                   lambda *a: batch_round(*a, hands=args.batch)))  # type: ignore[misc]
    rounds.append(("PaohuziVectorEnv (8)", vector_round))
    rounds.append(("engine alone", engine_round))
    if args.only:
        wanted = tuple(p.strip() for p in args.only.split(","))
        rounds = [r for r in rounds if r[0].startswith(wanted)]
    # Interleave the rounds (env(), raw_env(), …, env(), raw_env(), …) so that a change in the machine's
    # load hits every row alike.
    rates: dict[str, list[float]] = {label: [] for label, _ in rounds}
    per_hand: dict[str, float] = {}
    for r in range(args.rounds):
        for label, fn in rounds:
            turns, hands, cpu = fn(args.rules, args.seconds, 1000 * r)
            rates[label].append(turns / cpu)
            per_hand[label] = turns / max(hands, 1)
    for label, _ in rounds:
        print(f"{label:24s} median {statistics.median(rates[label]):7.0f}  best {max(rates[label]):7.0f} "
              f"turns/s  ({per_hand[label]:.1f} turns/hand)")
    if not args.only:
        for name, us in pieces(args.rules).items():
            print(f"  {name:30s} {us:7.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
