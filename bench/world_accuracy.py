"""How close the search bot's sampled worlds come to the truth (docs/AI.md §4a, issue #16).

Replays greedy-vs-random hands and, at every fourth decision with a choice, deals 8 worlds with each sampler
— uniform (``bots/world.py``), caps (``bots/infer.py``, ``pool=1``) and caps + opponent model (``pool=4``)
— and scores the share of the other seats' hand cards each world puts in the right hand. Prints the means
and paired 95 % CIs over positions.

    PYTHONPATH=src .venv/bin/python bench/world_accuracy.py 150
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable

from paohuzi.bots import infer, make_bot
from paohuzi.bots import world as uniform
from paohuzi.bots.view import read
from paohuzi.bots.world import World
from paohuzi.engine import ActionKind, Hand
from paohuzi.rules import find_preset

WORLDS = 8


def main(hands: int) -> None:
    rules = find_preset("qq")
    rng = random.Random(1)
    scores: dict[str, list[float]] = {"uniform": [], "caps": [], "infer": []}
    start = time.process_time()
    for seed in range(hands):
        hand = Hand(rules, seed=10_000 + seed)
        bots = {s: make_bot("greedy" if s % 2 == seed % 2 else "random", seed=s) for s in hand.seats}
        step = 0
        while not hand.over:
            seat = hand.deciding[0]
            obs, legal = hand.observation(seat), hand.legal_actions(seat)
            if step % 4 == 0 and len(legal) > 1:
                view = read(obs)
                claim = any(a.kind in (ActionKind.PENG, ActionKind.CHI) for a in legal)
                true = {s: [0] * 20 for s in view.others}
                for s in view.others:
                    for c in hand.hand_of(s):
                        true[s][int(c)] += 1
                total = sum(sum(t) for t in true.values())
                samplers: dict[str, Callable[[], World]] = {
                    "uniform": lambda view=view: uniform.sample_world(view, rng),  # type: ignore[misc]
                    "caps": infer.Sampler(view, rng, pool=1, pending_claimable=claim),
                    "infer": infer.Sampler(view, rng, pool=4, pending_claimable=claim),
                }
                if total:
                    for name, deal in samplers.items():
                        right = 0.0
                        for _ in range(WORLDS):
                            w = deal()
                            right += sum(
                                min(a, b) for s in view.others for a, b in zip(w.hands[s], true[s], strict=True)
                            )
                        scores[name].append(right / total / WORLDS)
            hand.apply(seat, bots[seat].act(obs, legal))
            step += 1
    n = len(scores["uniform"])
    print(f"{hands} hands, {n} positions, {time.process_time() - start:.0f} CPU s")
    for name, values in scores.items():
        print(f"{name:8s} share of the other hands' cards placed right {sum(values) / n:.4f}")
    for a, b in (("caps", "uniform"), ("infer", "uniform"), ("infer", "caps")):
        d = [x - y for x, y in zip(scores[a], scores[b], strict=True)]
        m = sum(d) / n
        se = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1) / n)
        print(f"{a} - {b}: {m:+.4f} [{m - 1.96 * se:+.4f}, {m + 1.96 * se:+.4f}]")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 150)
