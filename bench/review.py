"""What a 复盘 costs and whether it tells good play from bad (docs/AI.md §10, issue 34).

Plays ``hands`` qq hands (seeds 20,000…) with a different player at each seat — ``random`` (seat 0),
``greedy`` (seat 1) and ``search`` (seat 2), rotated by the seed so each sits everywhere — and reviews every
seat of every hand with :func:`paohuzi.bots.review.review_record` at ``--worlds`` (default: the review's own
32). Prints per player: decisions judged per hand, 准确率 (share not marked) and points lost per hand, with
95 % intervals over hands; and the CPU seconds (``time.process_time``, one core) a hand's review of one seat
took: median, 90th percentile, and per decision.

    PYTHONPATH=src .venv/bin/python bench/review.py 30
    PAOHUZI_PURE=1 PYTHONPATH=src .venv/bin/python bench/review.py 10    # the engine and bots as Python
"""

from __future__ import annotations

import argparse
import statistics
import time

from paohuzi.bots import make_bot
from paohuzi.bots.review import ReviewSettings, review_record
from paohuzi.engine import Hand
from paohuzi.rules import find_preset
from paohuzi.stats import mean_ci

PLAYERS = ("random", "greedy", "search")


def main(hands: int, worlds: int) -> None:
    rules = find_preset("qq")
    settings = ReviewSettings(worlds=worlds)
    judged: dict[str, list[float]] = {p: [] for p in PLAYERS}
    accuracy: dict[str, list[float]] = {p: [] for p in PLAYERS}
    lost: dict[str, list[float]] = {p: [] for p in PLAYERS}
    seconds: list[float] = []
    per_decision: list[float] = []
    for n in range(hands):
        seed = 20_000 + n
        hand = Hand(rules, seed=seed)
        names = {s: PLAYERS[(s + n) % 3] for s in hand.seats}
        bots = {s: make_bot(names[s], seed=seed + s) for s in hand.seats}
        while not hand.over:
            s = hand.deciding[0]
            hand.apply(s, bots[s].act(hand.observation(s), hand.legal_actions(s)))
        record = hand.record()
        for s in hand.seats:
            start = time.process_time()
            review = review_record(record, s, seed=0, settings=settings)
            took = time.process_time() - start
            seconds.append(took)
            if review.judged:
                per_decision.append(took / review.judged)
                accuracy[names[s]].append(review.accuracy)
            judged[names[s]].append(review.judged)
            lost[names[s]].append(review.points_lost)
    print(f"{hands} hands, {worlds} worlds a decision (qq; seeds 20000…)")
    print("player   decisions/hand  准确率 (95% CI)          points lost/hand (95% CI)")
    for p in PLAYERS:
        acc, pl = mean_ci(accuracy[p]), mean_ci(lost[p])
        print(f"{p:8} {statistics.mean(judged[p]):14.1f}  {acc.mean:.3f} [{acc.low:.3f}, {acc.high:.3f}]     "
              f"{pl.mean:6.2f} [{pl.low:.2f}, {pl.high:.2f}]")
    q = statistics.quantiles(seconds, n=10)
    print(f"CPU seconds a review (one seat, one hand): median {statistics.median(seconds):.2f}, 90th percentile "
          f"{q[-1]:.2f}, max {max(seconds):.2f}; a decision: median {1000 * statistics.median(per_decision):.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("hands", type=int, nargs="?", default=30)
    parser.add_argument("--worlds", type=int, default=ReviewSettings().worlds)
    args = parser.parse_args()
    main(args.hands, args.worlds)
