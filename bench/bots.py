"""Bot benchmark (issue #4): full hands per second on one core, random-vs-random and greedy-vs-greedy.

    python bench/bots.py [--hands N] [--preset NAME] [--seed S] [--matchups random,greedy,...] [--cold]

Each hand is dealt from its own seed and played to the end through the bot interface, exactly as
``paohuzi simulate`` plays it (:func:`paohuzi.bots.tournament.play_hand`: an observation per decision, the
bot's ``act``, ``Hand.apply``). A matchup is one bot spec playing all three seats. Rates are per second of
this process's CPU time (one core), so a shared machine skews them less; the wall-clock rate is printed
too. The second line says which optional compiled accelerators ran (``PAOHUZI_PURE=1``: none). A short
warm-up (5 % of the hands, at least 10) runs first: the greedy bot memoises its hand
analysis, so its speed grows as the memo fills (``--cold`` clears it before every hand instead). Record
results in docs/PERFORMANCE.md with the command line that produced them.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections import Counter

from paohuzi import analysis
from paohuzi.bots import evaluation, make_bot, split_specs
from paohuzi.bots.tournament import play_hand
from paohuzi.rules import find_preset


def run(spec: str, preset: str, hands: int, seed: int, cold: bool) -> tuple[float, float, float, Counter[str]]:
    rules = find_preset(preset)
    ends: Counter[str] = Counter()
    decisions = 0
    cpu = wall = 0.0
    for i in range(hands):
        if cold:
            evaluation.clear_cache()
            analysis.clear_cache()
        bots = [make_bot(spec, seed=seed * 1_000_003 + 3 * i + s) for s in range(rules.players_at_table)]
        start, start_cpu = time.perf_counter(), time.process_time()
        hand, made, _ = play_hand(rules, seed * 1_000_003 + i, bots)
        cpu += time.process_time() - start_cpu
        wall += time.perf_counter() - start
        decisions += sum(made)
        assert hand.outcome is not None
        ends["荒庄" if hand.outcome.kind == "draw" else "胡"] += 1
    return hands / cpu, hands / wall, decisions / cpu, ends


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands per matchup (default 1000)")
    parser.add_argument("--preset", default="qq")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--matchups", default="random,greedy", help="bot specs, each playing all seats")
    parser.add_argument("--cold", action="store_true", help="clear the analysis memos before every hand")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, preset {args.preset}, "
          f"{args.hands} hands per matchup, seed {args.seed}{', cold' if args.cold else ''}")
    print(f"compiled: analysis {'yes' if analysis.ACCELERATED else 'no'}, "
          f"bots' split search {'yes' if evaluation.ACCELERATED else 'no'}")
    print(f"{'matchup':<28} {'hands/s (CPU)':>14} {'hands/s (wall)':>15} {'decisions/s':>12}  ends")
    for spec in split_specs(args.matchups):
        warm = max(10, args.hands // 20)
        run(spec, args.preset, warm, args.seed + 7_777, args.cold)  # warm-up, not timed
        rate, wall, dps, ends = run(spec, args.preset, args.hands, args.seed, args.cold)
        name = " vs ".join([spec] * 3)
        ends_text = ", ".join(f"{n} {k}" for k, n in sorted(ends.items()))
        print(f"{name:<28} {rate:>14,.1f} {wall:>15,.1f} {dps:>12,.0f}  {ends_text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
