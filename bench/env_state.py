"""Benchmark of the environment's state API and information state (issue 36): microseconds per call.

Positions are taken from random hands (``--hands`` of them, every decision), and each call is timed on each
position: ``clone()``, ``get_state()``, ``set_state()`` (a replay of the record), ``step()`` + ``step_back()``,
``sample_world()``, ``copy.deepcopy(env)`` for comparison, and one turn of the snapshot and of the
information-state observation (``observe()`` after a ``step()``, the history kept between steps). It reports
the median over positions of the per-call CPU time, in µs, and the load average.

    PYTHONPATH=src .venv/bin/python bench/env_state.py --hands 30
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from paohuzi import _compiled
from paohuzi.env import raw_env
from paohuzi.env.aec import PaohuziEnv


def per_call(fn: Callable[[], Any], reps: int) -> float:
    start = time.process_time()
    for _ in range(reps):
        fn()
    return (time.process_time() - start) / reps * 1e6


def positions(rules: str, hands: int, obs_type: str) -> list[PaohuziEnv]:
    """A clone of the environment at every decision of ``hands`` random hands."""
    e = raw_env(rules, obs_type=obs_type)
    rng = random.Random(0)
    out: list[PaohuziEnv] = []
    for h in range(hands):
        e.reset(seed=h)
        while not e.terminations[e.agent_selection]:
            e.observe(e.agent_selection)
            out.append(e.clone())
            e.step(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()))
    return out


def first_legal(e: PaohuziEnv) -> int:
    return int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--reps", type=int, default=20, help="calls per position")
    parser.add_argument("--rules", default="qq")
    args = parser.parse_args(argv)
    print(f"compiled engine: {_compiled.ACTIVE} ({_compiled.reason()}); load {os.getloadavg()[0]:.1f}")
    for obs_type in ("snapshot", "info_state"):
        envs = positions(args.rules, args.hands, obs_type)
        times: dict[str, list[float]] = {k: [] for k in (
            "clone", "get_state", "set_state", "step+step_back", "sample_world", "deepcopy", "step+observe")}
        fresh = raw_env(args.rules, obs_type=obs_type)
        for e in envs:
            state = e.get_state()
            times["clone"].append(per_call(e.clone, args.reps))
            times["get_state"].append(per_call(e.get_state, args.reps))
            times["set_state"].append(per_call(lambda s=state, f=fresh: f.set_state(s), max(1, args.reps // 4)))
            action = first_legal(e)

            def undo(e: PaohuziEnv = e, action: int = action) -> None:
                e.step(action)
                e.step_back()

            times["step+step_back"].append(per_call(undo, max(1, args.reps // 4)))
            times["sample_world"].append(per_call(lambda e=e: e.sample_world(rng=1), max(1, args.reps // 4)))
            times["deepcopy"].append(per_call(lambda e=e: copy.deepcopy(e), 2))
            c = e.clone()

            def turn(c: PaohuziEnv = c, action: int = action) -> None:
                t = c.clone()
                t.step(action)
                t.observe(t.agent_selection)

            times["step+observe"].append(per_call(turn, args.reps) - times["clone"][-1])
        cells = ", ".join(f"{k} {statistics.median(v):.0f}" for k, v in times.items())
        print(f"{obs_type} ({len(envs)} positions, median µs per call): {cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
