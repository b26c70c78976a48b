"""Engine benchmark: full hands per second with random legal actions on one core (issue #3 goal: ≥ 500).

    python bench/engine.py [--hands N] [--preset NAME] [--seed S] [--profile]

Each hand is dealt from its own seed and played to the end by picking, at every step, a random deciding
seat and a random one of its legal actions (seeded, so a run is repeatable). Reports hands/s and steps/s
(one step = one ``Hand.apply``), plus how hands ended. Rates are per second of this process's CPU time
(one core), so a shared machine skews them less; the wall-clock rate is printed too. Record results in
docs/PERFORMANCE.md with the command line that produced them.
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import random
import sys
import time
from collections import Counter

from paohuzi.engine import Hand
from paohuzi.rules import find_preset


def play(preset: str, hands: int, seed: int) -> tuple[float, float, int, Counter[str]]:
    rules = find_preset(preset)
    rng = random.Random(seed)
    steps = 0
    ends: Counter[str] = Counter()
    start, cpu = time.perf_counter(), time.process_time()
    for i in range(hands):
        hand = Hand(rules, seed=seed * 1_000_003 + i)
        while not hand.over:
            deciding = hand.deciding
            seat = deciding[0] if len(deciding) == 1 else rng.choice(deciding)
            actions = hand.legal_actions(seat)
            hand.apply(seat, actions[rng.randrange(len(actions))])
            steps += 1
        assert hand.outcome is not None
        ends[hand.outcome.kind] += 1
    return time.perf_counter() - start, time.process_time() - cpu, steps, ends


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--preset", default="qq")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="print the 25 most expensive functions")
    args = parser.parse_args(argv)
    play(args.preset, 200, args.seed + 1)  # warm up (analysis memo, caches)
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
    elapsed, cpu, steps, ends = play(args.preset, args.hands, args.seed)
    if args.profile:
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    print(f"python {platform.python_version()} on {platform.machine()}, preset {args.preset}, {args.hands} hands")
    print(
        f"{args.hands / cpu:,.0f} hands/s, {steps / cpu:,.0f} steps/s of CPU time ({steps / args.hands:.1f} steps/hand)"
    )
    print(f"wall clock: {args.hands / elapsed:,.0f} hands/s (lower when the machine is shared)")
    print("ends: " + ", ".join(f"{k} {v}" for k, v in sorted(ends.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
