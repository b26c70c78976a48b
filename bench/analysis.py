"""Benchmark of the hand analysis (R6): µs per request on a fixed, seeded corpus.

Categories (one line each):

- ``complete``   ``arrangements()`` on complete hands built from random groups (table and hand, every source)
- ``near-miss``  ``arrangements()`` on those hands with one change (mostly incomplete)
- ``deal``       ``arrangements()`` on a random dealt 20-card hand and a card from the rest
- ``waits-deal`` ``waits()`` of a random dealt 20-card hand (every kind tried)
- ``waits-ready`` ``waits()`` of a hand one card short of complete (a complete hand less its card won)
- ``complete-all`` ``arrangements_all()`` (every arrangement, for the R9 families) on the ``complete`` hands
- ``waits-ready-all`` ``waits_all_counted()`` of the ``waits-ready`` hands
- ``complete15``, ``deal15``, ``waits-deal15``, ``waits-ready15``: the same on 15-card hands (衡阳六胡抢, R9.3:
  5 门子, 起胡 6) with 一五十 (``yiwushi=True``): complete hands of 5 groups (or a 提, 3 groups and a 将), a dealt
  14-card hand and a card, waits of a dealt 14-card hand and of a complete hand less its card

Three figures per category, each the median over the corpus of µs per request, then the median of that
over the repetitions (with the range of the repetitions):

- ``cold``   ``analysis.clear_cache()`` before every request (not timed): nothing memoised.
- ``stream`` the cache is cleared once per repetition, then the corpus runs once: each hand is seen for
  the first time, but memo entries from earlier hands may help (a long-running process).
- ``warm``   the same request again right after it ran: everything memoised.

Run ``python bench/analysis.py`` (or ``--quick`` for a fast, smaller run). Goals (docs/PERFORMANCE.md):
median ≤ 10 µs per complete-hand analysis, ≤ 150 µs per full waits of a hand.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from paohuzi import analysis
from paohuzi.analysis import Source, arrangements, arrangements_all, waits, waits_all_counted
from paohuzi.cards import CARDS, Card
from paohuzi.groups import MIXED_SHAPES_YIWUSHI

ROOT = Path(__file__).resolve().parent.parent


def _load_cases():  # type: ignore[no-untyped-def]
    """The seeded case generators of the agreement test (tests/analysis/cases.py), loaded by path."""
    spec = importlib.util.spec_from_file_location(
        "paohuzi_bench_cases", ROOT / "tests" / "analysis" / "cases.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


cases = _load_cases()
#: Median µs per request the project aims at (docs/PERFORMANCE.md).
GOALS = {"complete": 10.0, "waits-deal": 150.0, "waits-ready": 150.0}
Request = Callable[[], object]


def corpus(n: int, n_waits: int, seed: int = 2024) -> dict[str, list[Request]]:
    """The fixed corpus: ``n`` requests per arrangements category, ``n_waits`` per waits category."""
    rng = random.Random(seed)

    def req(c) -> Request:  # type: ignore[no-untyped-def]
        hand, table, card, source, m = c.hand, c.table, c.card, Source(c.source), c.min_huxi
        return lambda: arrangements(hand, table, card, source, min_huxi=m)

    def req_all(c) -> Request:  # type: ignore[no-untyped-def]
        hand, table, card, source, m = c.hand, c.table, c.card, Source(c.source), c.min_huxi
        return lambda: arrangements_all(hand, table, card, source, min_huxi=m)

    complete, near, deal, waits_deal, waits_ready = [], [], [], [], []
    complete_all, waits_ready_all = [], []
    while len(complete) < n or len(near) < n:
        c = cases.complete_case(rng)
        if c.card is None:
            continue
        if len(complete) < n and arrangements(c.hand, c.table, c.card, Source(c.source), min_huxi=c.min_huxi):
            complete.append(req(c))
            complete_all.append(req_all(c))
            if len(waits_ready) < n_waits:
                hand, table = c.hand, c.table
                waits_ready.append(lambda hand=hand, table=table: waits(hand, table))
                waits_ready_all.append(lambda hand=hand, table=table: waits_all_counted(hand, table, 15))
        if len(near) < n:
            near.append(req(cases.near_miss(rng, c)))
    while len(deal) < n:
        c = cases.random_deal(rng)
        if c.card is not None:
            deal.append(req(c))
    while len(waits_deal) < n_waits:
        c = cases.random_deal(rng)
        hand = c.hand[:20]
        waits_deal.append(lambda hand=hand: waits(hand))
    return {
        "complete": complete,
        "near-miss": near,
        "deal": deal,
        "waits-deal": waits_deal,
        "waits-ready": waits_ready,
        "complete-all": complete_all,
        "waits-ready-all": waits_ready_all,
        **corpus15(n, n_waits, rng),
    }


def _complete15(rng: random.Random) -> list[Card] | None:
    """15 cards of 5 门子 (句/绞 with 一五十, or 坎), or a 提 + 3 of them + a 将 (R9.3); None past 4 of a kind."""
    four = rng.random() < 0.3
    cards: list[int] = []
    for _ in range(3 if four else 5):
        if rng.random() < 0.25:
            cards += [rng.randrange(20)] * 3
        else:
            cards += rng.choice(MIXED_SHAPES_YIWUSHI).cards
    if four:
        cards += [rng.randrange(20)] * 4 + [rng.randrange(20)] * 2
    if max(cards.count(k) for k in set(cards)) > 4:
        return None
    return [CARDS[k] for k in cards]


def corpus15(n: int, n_waits: int, rng: random.Random) -> dict[str, list[Request]]:
    """15-card hands with 一五十 (R9.3 六胡抢, 起胡 6): the categories ending in 15."""
    sources = (Source.SELF, Source.OTHER, Source.DISCARD)
    complete: list[Request] = []
    waits_ready: list[Request] = []
    while len(complete) < n:
        cards = _complete15(rng)
        if cards is None:
            continue
        card = cards.pop(rng.randrange(len(cards)))
        source = rng.choice(sources)
        if not arrangements(cards, (), card, source, min_huxi=6, yiwushi=True):
            continue
        complete.append(lambda h=cards, c=card, s=source: arrangements(h, (), c, s, min_huxi=6, yiwushi=True))
        if len(waits_ready) < n_waits:
            waits_ready.append(lambda h=cards: waits(h, min_huxi=6, yiwushi=True))
    deck = [CARDS[k] for k in range(20) for _ in range(4)]
    deal: list[Request] = []
    waits_deal: list[Request] = []
    while len(deal) < n:
        drawn = rng.sample(deck, 15)
        hand, card = drawn[:14], drawn[14]
        source = rng.choice(sources)
        deal.append(lambda h=hand, c=card, s=source: arrangements(h, (), c, s, min_huxi=6, yiwushi=True))
        if len(waits_deal) < n_waits:
            waits_deal.append(lambda h=hand: waits(h, min_huxi=6, yiwushi=True))
    return {"complete15": complete, "deal15": deal, "waits-deal15": waits_deal, "waits-ready15": waits_ready}


def _clear() -> None:
    clear = getattr(analysis, "clear_cache", None)
    if clear is not None:
        clear()


def run_once(requests: list[Request], mode: str) -> float:
    """Median µs per request over the corpus, in one mode (cold, stream or warm)."""
    times: list[int] = []
    clock = time.perf_counter_ns
    if mode == "stream":
        _clear()
    for r in requests:
        if mode == "cold":
            _clear()
        elif mode == "warm":
            r()
        t0 = clock()
        r()
        times.append(clock() - t0)
    return statistics.median(times) / 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller corpus and fewer repetitions")
    parser.add_argument("--reps", type=int, default=None, help="repetitions (default 5, quick 3)")
    args = parser.parse_args(argv)
    n, n_waits, reps = (300, 60, 3) if args.quick else (2000, 300, 5)
    if args.reps:
        reps = args.reps
    t0 = time.perf_counter()
    requests = corpus(n, n_waits)
    print(
        f"# bench/analysis.py{' --quick' if args.quick else ''}: {n} requests per category, {n_waits} for waits, "
        f"{reps} repetitions; python {platform.python_version()} on {platform.machine()} "
        f"(corpus built in {time.perf_counter() - t0:.1f} s)"
    )
    print(f"# {'category':<14} {'n':>5}  {'cold µs':>22}  {'stream µs':>22}  {'warm µs':>22}")
    result: dict[tuple[str, str], float] = {}
    for name, reqs in requests.items():
        cols = []
        for mode in ("cold", "stream", "warm"):
            medians = [run_once(reqs, mode) for _ in range(reps)]
            result[name, mode] = statistics.median(medians)
            cols.append(f"{result[name, mode]:8.1f} [{min(medians):.1f}–{max(medians):.1f}]")
        print(f"{name:<16} {len(reqs):>5}  " + "  ".join(f"{c:>22}" for c in cols))
    _clear()
    for name, goal in GOALS.items():
        verdicts = ", ".join(
            f"{mode} {result[name, mode]:.1f} µs {'ok' if result[name, mode] <= goal else 'OVER'}"
            for mode in ("cold", "stream", "warm")
        )
        print(f"# goal {name} ≤ {goal:g} µs: {verdicts}")


if __name__ == "__main__":
    main()
